import { packageBuild } from '../../tsup.base'

export default packageBuild({
  // `index` is the library entry (`run` and its types); `bin` is the `keyward` binary,
  // which keeps its #! line and is made executable.
  entry: { index: 'src/index.ts', bin: 'src/bin.ts' },
  dts: { entry: { index: 'src/index.ts' } },
  // The drivers of `doctor --mysql-url` and `doctor --sqlite` are the application's, installed
  // beside the CLI (optional peers): bundled, better-sqlite3 cannot load its native binding.
  external: ['mysql2', 'better-sqlite3'],
})
