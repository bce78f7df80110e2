import { type KeyRecord, MemoryKeyStore } from '@keyward/core'
import { describe, expect, it } from 'vitest'
import { EXIT } from '../exit.js'
import { harness, STORE } from '../test/harness.js'

/**
 * One memory store that every run opens (as processes share one database), whose every call
 * waits a turn, so that concurrent commands interleave between their calls.
 */
function interleaving(records: Map<string, KeyRecord>) {
  if (shared) return shared
  const store = new MemoryKeyStore({ records })
  shared = store
  const tick = () => new Promise((resolve) => setTimeout(resolve, 1))
  for (const method of ['insertKey', 'listKeysByOwner', 'findKeyById'] as const) {
    const original = store[method].bind(store) as (...args: unknown[]) => Promise<unknown>
    ;(store as unknown as Record<string, unknown>)[method] = async (...args: unknown[]) => {
      await tick()
      return original(...args)
    }
  }
  return store
}
let shared: MemoryKeyStore | undefined

describe('keyward developers register, at the same moment', () => {
  it('10 concurrent registrations of one developer issue exactly one key', async () => {
    const cli = harness({ store: interleaving })
    const results = await Promise.all(
      Array.from({ length: 10 }, () => cli.run('developers', 'register', 'dev_1', '--json', ...STORE)),
    )
    expect(results.map((r) => r.code).sort()).toEqual([0, ...Array(9).fill(EXIT.failed)])
    expect([...cli.records.values()].filter((r) => r.active)).toHaveLength(1)
    expect(cli.records.size).toBe(1)
  })
})

describe('keyward developers list', () => {
  it('lists the developers with their key counts, oldest first', async () => {
    const cli = harness()
    const keyward = cli.keyward()
    const first = await keyward.issueDeveloperKey('dev_1')
    await keyward.issueDeveloperKey('dev_1')
    await keyward.deactivateKey(first.record.id)
    const other = await keyward.issueDeveloperKey('dev_2')
    await keyward.deactivateKey(other.record.id)
    await keyward.issueProjectKey('proj_1')
    const result = await cli.run('developers', 'list', ...STORE)
    expect(result.code).toBe(EXIT.ok)
    const lines = result.stdout.trimEnd().split('\n')
    expect(lines[0]).toMatch(/^DEVELOPER {2}KEYS {2}ACTIVE {2}FIRST KEY {13}LATEST KEY$/)
    expect(lines[1]).toMatch(/^dev_1 {6}2 {5}1 {7}\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ {2}\d{4}-/)
    expect(lines[2]).toMatch(/^dev_2 {6}1 {5}0 {7}\d{4}-/)
    expect(lines.at(-1)).toBe('2 developers, 1 with an active key.')
    expect(result.stdout).not.toContain('proj_1')
    expect(result.stdout).not.toContain(first.key.slice(8))
  })

  it('--json prints snake_case summaries; no developers is not an error', async () => {
    const cli = harness()
    expect(await cli.run('developers', 'list', ...STORE)).toEqual({
      code: EXIT.ok,
      stdout: 'No developers: register one with keyward developers register <developer-id>.\n',
      stderr: '',
    })
    const { record } = await cli.keyward().issueDeveloperKey('dev_1')
    const result = await cli.run('developers', 'list', '--json', ...STORE)
    expect(JSON.parse(result.stdout)).toEqual({
      developers: [
        {
          developer_id: 'dev_1',
          keys: 1,
          active_keys: 1,
          first_created_at: record.createdAt.toISOString(),
          last_created_at: record.createdAt.toISOString(),
        },
      ],
    })
  })

  it('exits 4 with one line when the store cannot list owners', async () => {
    const cli = harness({
      store: (records) => Object.assign(new MemoryKeyStore({ records }), { listOwners: undefined }),
    })
    const result = await cli.run('developers', 'list', ...STORE)
    expect([result.code, result.stdout]).toEqual([EXIT.internal, ''])
    expect(result.stderr).toBe(
      'keyward: Unexpected error: This key store cannot list owners (no `listOwners`).\n',
    )
  })
})
