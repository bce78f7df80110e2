import { MemoryKeyStore } from '@keyward/core'
import { describe, expect, it } from 'vitest'
import { EXIT } from '../exit.js'
import { harness, STORE } from '../test/harness.js'

const HOUR = 3_600_000

// One store for every run, holding usage counts of project proj_1's key.
async function world() {
  let store: MemoryKeyStore | undefined
  const cli = harness({ store: (records) => (store ??= new MemoryKeyStore({ records })) })
  await cli.run('keys', 'list', '--project', 'proj_1', ...STORE)
  const key = { id: crypto.randomUUID(), ownerType: 'project' as const, ownerId: 'proj_1' }
  const minute = new Date(Math.floor((Date.now() - 2 * HOUR) / 60_000) * 60_000)
  await store!.recordUsage([
    { minute, key, outcome: 'accepted', count: 41, route: '', address: '' },
    { minute, key, outcome: 'expired', count: 1, route: '', address: '' },
  ])
  return { cli, key, hour: new Date(Math.floor(minute.getTime() / HOUR) * HOUR) }
}

describe('keyward usage', () => {
  it("shows a project's counts per bucket, key and outcome; --json as the endpoint answers", async () => {
    const { cli, key, hour } = await world()
    const text = await cli.run('usage', '--project', 'proj_1', ...STORE)
    expect(text.code).toBe(EXIT.ok)
    expect(text.stdout).toContain(`${hour.toISOString()}  ${key.id}  accepted  41`)
    expect(text.stdout).toMatch(/42 verifications of the keys of project proj_1 from .* by hour\.\n$/)
    const json = await cli.run('usage', '--project', 'proj_1', '--granularity', 'day', '--json', ...STORE)
    expect(JSON.parse(json.stdout).usage).toEqual([
      { start: expect.any(String), key_id: key.id, outcome: 'accepted', count: 41 },
      { start: expect.any(String), key_id: key.id, outcome: 'expired', count: 1 },
    ])
    const none = await cli.run('usage', '--developer', 'dev_1', ...STORE)
    expect(none.stdout).toMatch(/^No verifications of the keys of developer dev_1 from /)
  })

  it('refuses a bad range as a usage error (exit 2) that names the option', async () => {
    const { cli } = await world()
    const old = new Date(Date.now() - 30 * 24 * HOUR).toISOString()
    const cases: [string[], RegExp][] = [
      [['--granularity', 'minute', '--from', old], /--from: Counts by minute are kept 7 days/],
      [['--from', '2026-01-02T00:00:00Z', '--to', '2026-01-01T00:00:00Z'], /--from: from must be before to/],
      [['--from', 'yesterday'], /--from: Input should be an RFC 3339 time/],
      [['--key', 'nope'], /--key: Input should be a valid UUID/],
      [[], /Give exactly one of --developer ID or --project ID/],
    ]
    for (const [args, message] of cases) {
      const owner = args.length === 0 ? [] : ['--project', 'proj_1']
      const result = await cli.run('usage', ...owner, ...args, ...STORE)
      expect(result.code).toBe(EXIT.usage)
      expect(result.stderr).toMatch(message)
    }
  })
})
