import { RateLimiterMemory } from 'rate-limiter-flexible'
import { describe, expect, it } from 'vitest'
import { developerGuard, projectGuard } from '../http/guards.js'
import type { KeywardRequest } from '../http/types.js'
import { MemoryKeyStore } from '../store/memory.js'
import type { UsageCount } from '../store/usage.js'
import type { KeywardEvent } from './events.js'
import { createKeyward } from './keyward.js'
import type { KeywardOptions } from './options.js'

/** A memory store that keeps every batch `recordUsage` was given, and can be made to fail. */
class RecordingStore extends MemoryKeyStore {
  batches: UsageCount[][] = []
  failing = false
  override async recordUsage(counts: readonly UsageCount[]): Promise<void> {
    if (this.failing) throw new Error('the database is down')
    this.batches.push([...counts])
    return super.recordUsage(counts)
  }
}

const owners: Record<string, string> = { proj_a: 'dev_a', proj_b: 'dev_b' }

function setup(extra: Partial<KeywardOptions> = {}) {
  const store = new RecordingStore()
  const keyward = createKeyward({
    store,
    projectOwner: (projectId) => owners[projectId] ?? null,
    trackLastUsed: false,
    ...extra,
  })
  return { store, keyward }
}

function request(
  headers: Record<string, string>,
  projectId = 'proj_a',
  address = '203.0.113.9',
): KeywardRequest {
  return {
    method: 'GET',
    url: `/api/v1/projects/${projectId}/reports?x=1`,
    params: { project_id: projectId },
    header: (name) => headers[name],
    address,
  }
}

// Sums of what the store holds, by key (or route and address) and outcome.
function totals(store: MemoryKeyStore): Record<string, number> {
  const sums: Record<string, number> = {}
  for (const row of store.usage.rows()) {
    const who = row.keyId || `${row.route} ${row.address}`
    const name = `${who} ${row.outcome}`
    sums[name] = (sums[name] ?? 0) + row.count
  }
  return sums
}

describe('usage counts', () => {
  it('counts accepted verifications and every refusal of a known key, by outcome', async () => {
    const { store, keyward } = setup()
    const a = await keyward.issueProjectKey('proj_a')
    const expired = await keyward.issueProjectKey('proj_a', { expiresInDays: 1 })
    const inactive = await keyward.issueProjectKey('proj_a')
    await keyward.deactivateKey(inactive.record.id)
    await store.setKeyExpiry(expired.record.id, new Date(Date.now() - 1000))
    const dev = await keyward.issueDeveloperKey('dev_a')
    const guard = projectGuard(keyward)
    for (let i = 0; i < 3; i++) expect((await guard(request({ 'x-api-key': a.key }))).ok).toBe(true)
    await guard(request({ 'x-api-key': a.key }, 'proj_b'))
    await guard(request({ 'x-api-key': expired.key }))
    await guard(request({ 'x-api-key': inactive.key }))
    await guard(request({ 'x-api-key': dev.key }))
    await keyward.close()
    expect(totals(store)).toEqual({
      [`${a.record.id} accepted`]: 3,
      [`${a.record.id} wrong_project`]: 1,
      [`${expired.record.id} expired`]: 1,
      [`${inactive.record.id} inactive`]: 1,
      [`${dev.record.id} wrong_type`]: 1,
    })
  })

  it('counts refusals of unknown and malformed keys by route and client address, without a key', async () => {
    const { store, keyward } = setup()
    const guard = projectGuard(keyward)
    await guard(request({ 'x-api-key': `ak_${'Z'.repeat(32)}` }, 'proj_a', '198.51.100.1'))
    await guard(request({ 'x-api-key': `ak_${'Y'.repeat(32)}` }, 'proj_b', '198.51.100.1'))
    await guard(request({ 'x-api-key': 'ak_short' }, 'proj_a', '198.51.100.2'))
    await developerGuard(keyward)({ ...request({ 'x-developer-key': 'nope-nope-nope-nope' }), url: '/me' })
    await keyward.close()
    expect(totals(store)).toEqual({
      'GET /api/v1/projects/:project_id/reports 198.51.100.1 unknown': 2,
      'GET /api/v1/projects/:project_id/reports 198.51.100.2 malformed': 1,
      'GET /me 203.0.113.9 malformed': 1,
    })
    // Never a key, whole or in part.
    expect(JSON.stringify(store.usage.rows())).not.toMatch(/ak_/)
  })

  it('writes one row per key and outcome per flush, however many verifications, off the hot path', async () => {
    const { store, keyward } = setup({ cache: {} })
    const a = await keyward.issueProjectKey('proj_a')
    const b = await keyward.issueProjectKey('proj_a')
    const guard = projectGuard(keyward)
    for (let i = 0; i < 500; i++) {
      await guard(request({ 'x-api-key': a.key }))
      await guard(request({ 'x-api-key': b.key }))
    }
    // Nothing is written until the flush: the verifications never waited for the store.
    expect(store.batches).toEqual([])
    await keyward.flushUsage()
    const rows = store.batches.flat()
    // One minute, or two if the loop crossed a minute's end.
    expect(rows.length).toBeGreaterThanOrEqual(2)
    expect(rows.length).toBeLessThanOrEqual(4)
    expect(rows.every((row) => row.outcome === 'accepted')).toBe(true)
    expect(totals(store)).toEqual({ [`${a.record.id} accepted`]: 500, [`${b.record.id} accepted`]: 500 })
  })

  it('keeps the counts of a failed write for the next flush', async () => {
    const { store, keyward } = setup()
    const a = await keyward.issueProjectKey('proj_a')
    const guard = projectGuard(keyward)
    store.failing = true
    await guard(request({ 'x-api-key': a.key }))
    await keyward.flushUsage()
    expect(keyward.usageStats()).toMatchObject({ failedFlushes: 1, lastFlushAt: null, pending: 1 })
    store.failing = false
    await guard(request({ 'x-api-key': a.key }))
    await keyward.close()
    expect(totals(store)).toEqual({ [`${a.record.id} accepted`]: 2 })
    expect(keyward.usageStats()).toMatchObject({ failedFlushes: 1, pending: 0 })
  })

  it('at a clean stop, retries a failing store for credits.returnTimeoutMs, then writes once it answers', async () => {
    const { store, keyward } = setup({ credits: { returnTimeoutMs: 3000 } })
    const a = await keyward.issueProjectKey('proj_a')
    const guard = projectGuard(keyward)
    await guard(request({ 'x-api-key': a.key }))
    store.failing = true
    setTimeout(() => {
      store.failing = false
    }, 300)
    await keyward.close()
    expect(totals(store)).toEqual({ [`${a.record.id} accepted`]: 1 })
  })

  it('at a clean stop, reports by key prefix the counts it could not write, once, and resolves', async () => {
    const events: KeywardEvent[] = []
    const { store, keyward } = setup({
      credits: { returnTimeoutMs: 400 },
      onEvent: (event) => events.push(event),
    })
    const a = await keyward.issueProjectKey('proj_a')
    const b = await keyward.issueProjectKey('proj_a')
    const guard = projectGuard(keyward)
    for (let i = 0; i < 3; i++) await guard(request({ 'x-api-key': a.key }))
    await guard(request({ 'x-api-key': b.key }))
    await guard(request({ 'x-api-key': 'ak_unknownunknownunknownunknown1234' }))
    store.failing = true
    const started = performance.now()
    await keyward.close()
    expect(performance.now() - started).toBeGreaterThanOrEqual(200)
    // The first write's failure is reported as it happens; the retries' only as what was lost.
    expect(events.filter((event) => event.type === 'store.error')).toHaveLength(1)
    expect(events.filter((event) => event.type === 'usage.stranded')).toEqual([
      {
        type: 'usage.stranded',
        count: 5,
        keys: [
          { keyId: a.record.id, keyPrefix: a.record.keyPrefix, count: 3 },
          { keyId: b.record.id, keyPrefix: b.record.keyPrefix, count: 1 },
        ],
      },
    ])
    expect(JSON.stringify(events.filter((event) => event.type === 'usage.stranded'))).not.toContain(a.key)
    expect(totals(store)).toEqual({})
  })

  it("moves a count to rate_limited when the key's own rate limit refuses it", async () => {
    const { store, keyward } = setup({
      protection: {
        limiter: (settings) => new RateLimiterMemory(settings),
        keyRateLimits: { project: { limit: 2, windowSeconds: 60 } },
      },
    })
    const a = await keyward.issueProjectKey('proj_a')
    const guard = projectGuard(keyward)
    const results = []
    for (let i = 0; i < 5; i++) results.push((await guard(request({ 'x-api-key': a.key }))).ok)
    expect(results).toEqual([true, true, false, false, false])
    await keyward.close()
    expect(totals(store)).toEqual({ [`${a.record.id} accepted`]: 2, [`${a.record.id} rate_limited`]: 3 })
  })

  it('reads an owner’s counts by bucket, summing minutes into hours and days', async () => {
    const { store, keyward } = setup()
    const key = { id: crypto.randomUUID(), ownerType: 'project' as const, ownerId: 'proj_a' }
    const other = { id: crypto.randomUUID(), ownerType: 'project' as const, ownerId: 'proj_b' }
    const minute = (iso: string) => new Date(iso)
    await store.recordUsage([
      { minute: minute('2026-01-01T10:01:00Z'), key, outcome: 'accepted', count: 2, route: '', address: '' },
      { minute: minute('2026-01-01T10:59:00Z'), key, outcome: 'accepted', count: 3, route: '', address: '' },
      { minute: minute('2026-01-01T11:00:00Z'), key, outcome: 'expired', count: 1, route: '', address: '' },
      {
        minute: minute('2026-01-01T10:01:00Z'),
        key: other,
        outcome: 'accepted',
        count: 7,
        route: '',
        address: '',
      },
    ])
    const query = {
      owner: { type: 'project', id: 'proj_a' },
      from: minute('2026-01-01T10:30:00Z'),
      to: minute('2026-01-02T00:00:00Z'),
    } as const
    expect(await keyward.readUsage({ ...query, granularity: 'hour' })).toEqual([
      { start: minute('2026-01-01T10:00:00Z'), keyId: key.id, outcome: 'accepted', count: 5 },
      { start: minute('2026-01-01T11:00:00Z'), keyId: key.id, outcome: 'expired', count: 1 },
    ])
    expect(await keyward.readUsage({ ...query, granularity: 'minute' })).toEqual([
      { start: minute('2026-01-01T10:59:00Z'), keyId: key.id, outcome: 'accepted', count: 3 },
      { start: minute('2026-01-01T11:00:00Z'), keyId: key.id, outcome: 'expired', count: 1 },
    ])
    // Compaction rolls old minutes into hours, old hours into days: the totals stay.
    const later = minute('2026-06-01T00:00:00Z')
    while ((await store.compactUsage({ minuteDays: 7, hourDays: 90, dayDays: 730 }, later, 1)) > 0) {}
    expect(store.usage.rows().every((row) => row.granularity === 'day')).toBe(true)
    expect(await keyward.readUsage({ ...query, granularity: 'day' })).toEqual([
      { start: minute('2026-01-01T00:00:00Z'), keyId: key.id, outcome: 'accepted', count: 5 },
      { start: minute('2026-01-01T00:00:00Z'), keyId: key.id, outcome: 'expired', count: 1 },
    ])
    // Two years on, the day rows go: the two of proj_a and the one of proj_b.
    const retention = { minuteDays: 7, hourDays: 90, dayDays: 730 }
    expect(await store.compactUsage(retention, minute('2029-01-01T00:00:00Z'), 10)).toBe(3)
    expect(store.usage.rows()).toEqual([])
  })

  it('counts nothing with `usage: false`, and checks its options once', async () => {
    const { store, keyward } = setup({ usage: false })
    const a = await keyward.issueProjectKey('proj_a')
    await projectGuard(keyward)(request({ 'x-api-key': a.key }))
    await keyward.close()
    expect(store.batches).toEqual([])
    expect(keyward.usageRetention).toBeNull()
    expect(() => setup({ usage: { flushIntervalSeconds: 0 } })).toThrow('`usage.flushIntervalSeconds`')
    expect(() => setup({ usage: { retention: { minuteDays: 100 } } })).toThrow('`usage.retention`')
  })
})
