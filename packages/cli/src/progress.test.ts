import { describe, expect, it } from 'vitest'
import { EXIT } from './exit.js'
import { NOTICE_AFTER_MS } from './progress.js'
import { harness, STORE } from './test/harness.js'

describe('feedback while the store opens', () => {
  it('says on stderr that it waits for a slow embedded store, and when it is ready', async () => {
    const cli = harness({ openDelayMs: NOTICE_AFTER_MS + 300 })
    const result = await cli.run('keys', 'list', '--developer', 'dev_1', ...STORE)
    expect(result.code).toBe(EXIT.ok)
    expect(result.stdout).toBe('No keys for developer dev_1.\n')
    expect(result.stderr).toMatch(
      /^keyward: starting the embedded store in \/var\/lib\/keyward \(PGlite takes a few seconds to start\)\.\.\.\nkeyward: store ready in \d+\.\d s\.\n$/,
    )
  })

  it('says nothing while PostgreSQL connects (it answers or fails within its timeout)', async () => {
    const cli = harness({ openDelayMs: NOTICE_AFTER_MS + 300 })
    const url = 'postgres://operator:s3cret@db.internal/keys'
    const result = await cli.run('keys', 'list', '--developer', 'dev_1', '--pg-url', url)
    expect([result.code, result.stderr]).toEqual([EXIT.ok, ''])
  })

  it('says nothing when the store opens at once, or with --json', async () => {
    expect((await harness().run('keys', 'list', '--developer', 'd', ...STORE)).stderr).toBe('')
    const slow = harness({ openDelayMs: NOTICE_AFTER_MS + 300 })
    const json = await slow.run('keys', 'list', '--developer', 'd', '--json', ...STORE)
    expect([json.stdout, json.stderr]).toEqual(['{"keys":[],"next_cursor":null}\n', ''])
  })
})
