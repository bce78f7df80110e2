import { packageBuild } from '../../tsup.base'

// ESM only: the suites run inside vitest, which cannot be loaded with require().

export default packageBuild({ external: ['vitest'], sourcemap: false, format: ['esm'] })
