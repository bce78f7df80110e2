import { packageBuild } from '../../tsup.base'

export default packageBuild({
  // `index` is the library entry (`run` and its types); `bin` is the `keyward` binary,
  // which keeps its #! line and is made executable.
  entry: { index: 'src/index.ts', bin: 'src/bin.ts' },
  dts: { entry: { index: 'src/index.ts' } },
})
