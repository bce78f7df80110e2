import { defineConfig } from 'vitest/config'
import base from './vitest.config.js'

// `pnpm test:faults`: the long fault tests, which stop, restart and stall real database
// processes of their own (and the pooler in front of them). One file at a time.
export default defineConfig({
  ...base,
  test: {
    ...base.test,
    include: ['packages/*/src/**/*.faults.test.ts', 'examples/*/src/**/*.faults.test.ts'],
    exclude: ['**/node_modules/**'],
    outputFile: { json: 'test-results-faults.json' },
    fileParallelism: false,
    testTimeout: 120_000,
    hookTimeout: 120_000,
  },
})
