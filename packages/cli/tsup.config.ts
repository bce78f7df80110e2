import { defineConfig } from 'tsup'

export default defineConfig({
  // `index` is the library entry (`run` and its types); `bin` is the `keyward` binary,
  // which keeps its #! line and is made executable.
  entry: { index: 'src/index.ts', bin: 'src/bin.ts' },
  format: ['esm', 'cjs'],
  dts: { entry: { index: 'src/index.ts' } },
  clean: true,
  sourcemap: true,
  target: 'es2022',
  tsconfig: 'tsconfig.json',
  external: [/^@keyward\//],
})
