import { join } from 'node:path'
import { defineConfig } from 'vitest/config'
import base from './vitest.config.js'

// `node scripts/nestjs-matrix.mjs`: packages/nestjs's suite on another NestJS major, installed by
// that script in KEYWARD_NESTJS_DIR. Every import of an @nestjs package, the adapter's and its
// tests', resolves there, so the adapter runs on that major's packages alone.
const dir = process.env.KEYWARD_NESTJS_DIR
if (!dir)
  throw new Error(
    'KEYWARD_NESTJS_DIR names the folder of the NestJS to test (scripts/nestjs-matrix.mjs sets it).',
  )

export default defineConfig({
  ...base,
  resolve: {
    alias: [
      ...((base.resolve?.alias ?? []) as { find: RegExp; replacement: string }[]),
      {
        find: /^@nestjs\/([\w-]+)(\/package\.json)?$/,
        replacement: join(dir, 'node_modules', '@nestjs', '$1$2'),
      },
    ],
  },
  test: {
    ...base.test,
    include: ['packages/nestjs/src/**/*.test.ts'],
    outputFile: { json: 'test-results-nestjs.json' },
  },
})
