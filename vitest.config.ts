import { readdirSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { defineConfig } from 'vitest/config'

// Tests run against each package's source: @keyward/NAME resolves to packages/NAME/src.
const packagesDir = fileURLToPath(new URL('./packages/', import.meta.url))
const alias = readdirSync(packagesDir).map((name) => ({
  find: new RegExp(`^@keyward/${name}$`),
  replacement: `${packagesDir}${name}/src/index.ts`,
}))

export default defineConfig({
  resolve: { alias },
  test: {
    include: ['packages/*/src/**/*.test.ts', 'examples/*/src/**/*.test.ts', 'examples/*/test/**/*.test.ts'],
    reporters: ['default', 'json'],
    outputFile: { json: 'test-results.json' },
    testTimeout: 30_000,
    hookTimeout: 60_000,
  },
})
