// A consumer of @keyward/testkit: the store conformance suite, installed from the tarball, run
// with vitest against a tiny store of the consumer's own (testkit/tiny-store.test.ts).
import assert from 'node:assert/strict'
import { spawnSync } from 'node:child_process'
import { join } from 'node:path'
import { runFixture } from './fixture.js'

runFixture('@keyward/testkit', async () => {
  // The suite runs in vitest's own ESM runner: once is enough, from the ESM copy of this fixture.
  if (process.argv[2] === 'CommonJS') return 'the suite runs under vitest, checked by the ESM run'
  const vitest = join('node_modules', 'vitest', 'vitest.mjs')
  const result = spawnSync(process.execPath, [vitest, 'run', '--root', 'testkit', '--reporter=dot'], {
    encoding: 'utf8',
    env: { ...process.env, CI: 'true', NO_COLOR: '1', FORCE_COLOR: '0' },
  })
  assert.equal(result.status, 0, `${result.stdout}\n${result.stderr}`)
  const passed = /Tests\s+(\d+) passed/.exec(result.stdout)?.[1]
  assert.ok(Number(passed) >= 10, `the suite ran too few tests:\n${result.stdout}`)
  return `the store conformance suite passes on a tiny store of its own (${passed} tests, vitest)`
})
