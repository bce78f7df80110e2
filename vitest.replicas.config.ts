import { defineConfig } from 'vitest/config'
import base from './vitest.config.js'

// `pnpm test:replicas`: the tests that build a primary and a streaming standby of their own
// from the machine's PostgreSQL binaries. One file at a time: each starts two servers.
export default defineConfig({
  ...base,
  test: {
    ...base.test,
    include: ['packages/*/src/**/*.replicas.test.ts', 'examples/*/src/**/*.replicas.test.ts'],
    exclude: ['**/node_modules/**'],
    outputFile: { json: 'test-results-replicas.json' },
    fileParallelism: false,
    testTimeout: 60_000,
    hookTimeout: 120_000,
  },
})
