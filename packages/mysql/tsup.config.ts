import { packageBuild } from '../../tsup.base'

export default packageBuild({ entry: ['src/index.ts'], external: ['mysql2'] })
