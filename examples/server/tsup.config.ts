import { defineConfig } from 'tsup'

// An application, not a library: one ESM entry that `node dist/main.js` runs, its
// dependencies (the Keyward packages included) loaded from node_modules.
export default defineConfig({
  entry: ['src/main.ts'],
  format: ['esm'],
  clean: true,
  sourcemap: true,
  target: 'node20',
  platform: 'node',
  tsconfig: 'tsconfig.json',
})
