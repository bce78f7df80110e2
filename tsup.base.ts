import { defineConfig, type Options } from 'tsup'

/**
 * The build of a published Keyward package: ESM and CommonJS, each with its own type
 * declarations (`.d.ts`, `.d.cts`), source maps, ES2022, other Keyward packages kept external.
 * A package passes only what differs (entries, more externals, plugins).
 */
export function packageBuild(options: Options = {}) {
  return defineConfig({
    entry: ['src/index.ts'],
    format: ['esm', 'cjs'],
    dts: true,
    clean: true,
    sourcemap: true,
    target: 'es2022',
    tsconfig: 'tsconfig.json',
    ...options,
    external: [/^@keyward\//, ...(options.external ?? [])],
  })
}
