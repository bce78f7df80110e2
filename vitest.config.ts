import { readdirSync } from 'node:fs'
import { availableParallelism } from 'node:os'
import { fileURLToPath } from 'node:url'
import { defineConfig } from 'vitest/config'

// Tests run against each package's source: @keyward/NAME resolves to packages/NAME/src, and an
// entry point @keyward/NAME/ENTRY to packages/NAME/src/ENTRY.ts.
const packagesDir = fileURLToPath(new URL('./packages/', import.meta.url))
const alias = readdirSync(packagesDir).flatMap((name) => [
  { find: new RegExp(`^@keyward/${name}$`), replacement: `${packagesDir}${name}/src/index.ts` },
  { find: new RegExp(`^@keyward/${name}/([\\w-]+)$`), replacement: `${packagesDir}${name}/src/$1.ts` },
])

export default defineConfig({
  resolve: { alias },
  test: {
    include: [
      'packages/*/src/**/*.test.ts',
      'packages/console/app/src/**/*.test.ts',
      'examples/*/src/**/*.test.ts',
      'examples/*/test/**/*.test.ts',
    ],
    // Tests that build PostgreSQL clusters of their own run apart: `pnpm test:replicas` and
    // `pnpm test:faults`; so do the apps built by a framework's own build: `pnpm test:builds`.
    exclude: ['**/node_modules/**', '**/*.replicas.test.ts', '**/*.faults.test.ts', '**/*.build.test.ts'],
    reporters: ['default', 'json'],
    outputFile: { json: 'test-results.json' },
    // A PGlite database starts in a few seconds on a quiet machine and in tens of seconds on a
    // loaded one (its WebAssembly compiles on a busy CPU): the bound is for a hang, not for speed.
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // Test files at once: at least 2. Vitest's default (one fewer than the cores) runs the files one
    // by one on a 2-core machine, where most of them wait on PostgreSQL, Redis or a child process.
    // KEYWARD_TEST_WORKERS sets it.
    maxWorkers: Number(process.env.KEYWARD_TEST_WORKERS) || Math.max(2, availableParallelism()),
  },
})
