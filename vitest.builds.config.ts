import { defineConfig } from 'vitest/config'
import base from './vitest.config.js'

// `pnpm test:builds`: the apps that a framework's own build makes, built and started as their users
// would (`next build`, `next start`). Each takes a minute or more of both cores: one at a time.
export default defineConfig({
  ...base,
  test: {
    ...base.test,
    include: ['examples/*/test/**/*.build.test.ts'],
    exclude: ['**/node_modules/**'],
    outputFile: { json: 'test-results-builds.json' },
    fileParallelism: false,
    hookTimeout: 300_000,
  },
})
