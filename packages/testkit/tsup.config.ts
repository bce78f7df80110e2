import { packageBuild } from '../../tsup.base'

export default packageBuild({ external: ['vitest'], sourcemap: false })
