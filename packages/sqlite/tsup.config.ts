import { packageBuild } from '../../tsup.base'

export default packageBuild({ entry: ['src/index.ts'], external: ['better-sqlite3'] })
