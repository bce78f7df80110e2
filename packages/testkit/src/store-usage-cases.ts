import type { KeyStore, UsageCount, UsageRetention } from '@keyward/core'
import { expect, it } from 'vitest'
import type { StoreHarness } from './store-conformance.js'

let counter = 0
const uniqueOwner = (label: string) => `${label}-usage-${Date.now().toString(36)}-${(counter++).toString(36)}`

const RETENTION: UsageRetention = { minuteDays: 7, hourDays: 90, dayDays: 730 }
const DAY = 86_400_000

function keyOf(ownerId: string) {
  return { id: crypto.randomUUID(), ownerType: 'project' as const, ownerId }
}

function count(
  minute: Date,
  key: UsageCount['key'],
  outcome: UsageCount['outcome'],
  n: number,
  route = '',
  address = '',
): UsageCount {
  return { minute, key, outcome, count: n, route, address }
}

// Every count of the owner, summed per key and outcome, at the coarsest granularity.
async function totals(store: KeyStore, ownerId: string, from: Date, to: Date) {
  const rows = await store.readUsage!({
    owner: { type: 'project', id: ownerId },
    granularity: 'day',
    from,
    to,
  })
  const sums: Record<string, number> = {}
  for (const row of rows)
    sums[`${row.keyId} ${row.outcome}`] = (sums[`${row.keyId} ${row.outcome}`] ?? 0) + row.count
  return sums
}

/**
 * @internal The conformance cases of usage counts (`recordUsage`, `readUsage`, `compactUsage`),
 * registered inside the suite's `describe`; skipped for a store without them (they are optional).
 */
export function usageCases(make: () => Promise<StoreHarness>): void {
  const none = 'the store has no recordUsage and readUsage (they are optional)'

  it('adds usage counts to what is stored and reads them per bucket, key and outcome (when it counts usage)', async (context) => {
    const { store } = await make()
    if (!store.recordUsage || !store.readUsage) return context.skip(none)
    const owner = uniqueOwner('proj')
    const [a, b, other] = [keyOf(owner), keyOf(owner), keyOf(uniqueOwner('proj'))]
    const m1 = new Date('2026-03-04T10:15:00Z')
    const m2 = new Date('2026-03-04T10:16:00Z')
    const m3 = new Date('2026-03-04T11:02:00Z')
    // One batch may name a row twice (a retried count and a new one): they add up.
    await store.recordUsage([
      count(m1, a, 'accepted', 2),
      count(m1, a, 'accepted', 3),
      count(m1, b, 'expired', 1),
      count(m1, other, 'accepted', 9),
      count(m1, null, 'unknown', 4, 'GET /x', '203.0.113.1'),
    ])
    await store.recordUsage([
      count(m2, a, 'accepted', 1),
      count(m3, a, 'accepted', 10),
      count(m1, a, 'accepted', 1),
    ])
    const owned = { type: 'project', id: owner } as const
    const from = new Date('2026-03-04T10:00:00Z')
    const to = new Date('2026-03-04T12:00:00Z')
    expect(await store.readUsage({ owner: owned, granularity: 'minute', from, to })).toEqual(
      [
        { start: m1, keyId: a.id, outcome: 'accepted', count: 6 },
        { start: m1, keyId: b.id, outcome: 'expired', count: 1 },
        { start: m2, keyId: a.id, outcome: 'accepted', count: 1 },
        { start: m3, keyId: a.id, outcome: 'accepted', count: 10 },
      ].sort((x, y) => x.start.getTime() - y.start.getTime() || (x.keyId < y.keyId ? -1 : 1)),
    )
    const hours = await store.readUsage({ owner: owned, granularity: 'hour', from, to, keyId: a.id })
    expect(hours).toEqual([
      { start: new Date('2026-03-04T10:00:00Z'), keyId: a.id, outcome: 'accepted', count: 7 },
      { start: new Date('2026-03-04T11:00:00Z'), keyId: a.id, outcome: 'accepted', count: 10 },
    ])
    // `from` names the bucket that holds it; `to` is exclusive.
    const within = await store.readUsage({
      owner: owned,
      granularity: 'hour',
      from: new Date('2026-03-04T10:59:00Z'),
      to: new Date('2026-03-04T11:00:00Z'),
      keyId: a.id,
    })
    expect(within.map((row) => row.count)).toEqual([7])
    // `keyIds` (an identity's keys): only those of the owner's keys; none when empty.
    const day = { owner: owned, granularity: 'day', from, to } as const
    expect(await store.readUsage({ ...day, keyIds: [b.id, other.id] })).toEqual([
      { start: new Date('2026-03-04T00:00:00Z'), keyId: b.id, outcome: 'expired', count: 1 },
    ])
    expect(await store.readUsage({ ...day, keyIds: [] })).toEqual([])
    expect(await store.readUsage({ ...day, keyIds: [a.id, b.id], keyId: a.id })).toEqual([
      { start: new Date('2026-03-04T00:00:00Z'), keyId: a.id, outcome: 'accepted', count: 17 },
    ])
    expect(
      await store.readUsage({ owner: { type: 'developer', id: owner }, granularity: 'day', from, to }),
    ).toEqual([])
  })

  it('adds concurrent batches of the same rows exactly (when it counts usage)', async (context) => {
    const { store } = await make()
    if (!store.recordUsage || !store.readUsage) return context.skip(none)
    const owner = uniqueOwner('proj')
    const keys = Array.from({ length: 20 }, () => keyOf(owner))
    const minute = new Date('2026-03-05T08:00:00Z')
    // Ten writers, each adding 1 to every key's row, in different orders.
    await Promise.all(
      Array.from({ length: 10 }, (_, w) =>
        store.recordUsage!(
          (w % 2 ? [...keys].reverse() : keys).map((key) => count(minute, key, 'accepted', 1)),
        ),
      ),
    )
    const sums = await totals(store, owner, minute, new Date(minute.getTime() + DAY))
    expect(Object.values(sums)).toEqual(keys.map(() => 10))
  })

  it('compacts in bounded steps: minutes into hours, hours into days, old days deleted; totals kept (when it compacts)', async (context) => {
    const { store } = await make()
    if (!store.recordUsage || !store.readUsage || !store.compactUsage) {
      return context.skip('the store has no compactUsage (it is optional)')
    }
    const owner = uniqueOwner('proj')
    const key = keyOf(owner)
    const now = new Date()
    const start = new Date(Math.floor((now.getTime() - 30 * DAY) / DAY) * DAY)
    // 5 minutes in each of 3 hours of one day, 30 days ago: past the minutes' retention.
    const counts: UsageCount[] = []
    for (let h = 0; h < 3; h++) {
      for (let m = 0; m < 5; m++)
        counts.push(count(new Date(start.getTime() + h * 3_600_000 + m * 60_000), key, 'accepted', 1))
    }
    await store.recordUsage(counts)
    const range = [new Date(start.getTime() - DAY), new Date(start.getTime() + 2 * DAY)] as const
    let steps = 0
    let touched: number
    do {
      touched = await store.compactUsage(RETENTION, now, 4)
      // Each step touches at most `limit` rows of each kind.
      expect(touched).toBeLessThanOrEqual(12)
      steps++
    } while (touched > 0 && steps < 50)
    expect(steps).toBeGreaterThan(2)
    // The minutes are gone (past their retention), their hours hold them.
    expect(
      await store.readUsage({
        owner: { type: 'project', id: owner },
        granularity: 'minute',
        from: range[0],
        to: range[1],
      }),
    ).toEqual([])
    const hours = await store.readUsage({
      owner: { type: 'project', id: owner },
      granularity: 'hour',
      from: range[0],
      to: range[1],
    })
    expect(hours.map((row) => row.count)).toEqual([5, 5, 5])
    expect(await totals(store, owner, ...range)).toEqual({ [`${key.id} accepted`]: 15 })
    // Past the hours' retention they roll into the day; past the days' they are deleted.
    while ((await store.compactUsage(RETENTION, new Date(now.getTime() + 100 * DAY), 100)) > 0) {}
    expect(await totals(store, owner, ...range)).toEqual({ [`${key.id} accepted`]: 15 })
    while ((await store.compactUsage(RETENTION, new Date(now.getTime() + 800 * DAY), 100)) > 0) {}
    expect(await totals(store, owner, ...range)).toEqual({})
  })
}
