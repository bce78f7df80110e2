import {
  type KeyFilter,
  type KeyOwner,
  type KeyPagePosition,
  type KeyRecord,
  matchesKeyFilter,
} from '@keyward/core'
import { expect, it } from 'vitest'
import type { StoreHarness } from './store-conformance.js'
import { recordFor } from './store-record.js'

let counter = 0
const uniqueOwner = (label: string) => `${label}-page-${Date.now().toString(36)}-${(counter++).toString(36)}`
const skipReason = 'the store has no listKeysPage (it is optional: the service sorts listKeysByOwner)'

// The listing's order: newest first, then the greater id first.
const newestFirst = (a: KeyRecord, b: KeyRecord) =>
  b.createdAt.getTime() - a.createdAt.getTime() || (a.id < b.id ? 1 : a.id > b.id ? -1 : 0)

/** Walks every page of an owner's keys, checking each page's size; returns the ids in order. */
async function walk(
  harness: StoreHarness,
  owner: KeyOwner,
  limit: number,
  filter?: KeyFilter,
): Promise<string[]> {
  const ids: string[] = []
  let after: KeyPagePosition | undefined
  for (let pages = 0; pages < 1000; pages++) {
    const page = await harness.store.listKeysPage!(owner, {
      limit,
      ...(after ? { after } : {}),
      ...(filter ? { filter } : {}),
    })
    expect(page.records.length).toBeLessThanOrEqual(limit)
    ids.push(...page.records.map((record) => record.id))
    if (page.next === null) return ids
    expect(page.records).toHaveLength(limit)
    // The last record's position (its time as a Date, or as precise text for a store that keeps more).
    const last = page.records.at(-1)!
    expect([new Date(page.next.createdAt).getTime(), page.next.id]).toEqual([
      last.createdAt.getTime(),
      last.id,
    ])
    after = page.next
  }
  throw new Error('more than 1,000 pages')
}

/**
 * @internal The conformance cases of `listKeysPage`, registered inside the suite's `describe`;
 * each is skipped, with the reason, for a store without the method.
 */
export function pageCases(make: () => Promise<StoreHarness>): void {
  it('pages 250 keys, many created in the same instant, newest first: each key once, in order (when it has listKeysPage)', async (context) => {
    const harness = await make()
    if (!harness.store.listKeysPage) return context.skip(skipReason)
    const project = uniqueOwner('proj')
    const owner: KeyOwner = { type: 'project', id: project }
    // 150 keys in one instant, 100 in the next: the id alone orders each group.
    const instants = [new Date(1_700_000_000_000), new Date(1_700_000_000_001)]
    const records: KeyRecord[] = []
    for (let i = 0; i < 250; i++) {
      const record = {
        ...(await recordFor(undefined, 'project', project)),
        createdAt: instants[i < 150 ? 0 : 1]!,
      }
      records.push(await harness.store.insertKey(record))
    }
    // Keys of other owners, one of them with the same id for the other kind, are never listed.
    await harness.store.insertKey(await recordFor(undefined, 'project', uniqueOwner('proj')))
    await harness.store.insertKey(await recordFor(undefined, 'developer', project), 10)
    await harness.store.setKeyActive(records[7]!.id, false)
    const expected = [...records].sort(newestFirst).map((record) => record.id)
    for (const limit of [1, 40, 100, 200]) expect(await walk(harness, owner, limit)).toEqual(expected)
    const first = await harness.store.listKeysPage(owner, { limit: 3 })
    expect(first.records.map((record) => record.id)).toEqual(expected.slice(0, 3))
    expect(first.records[0]).toEqual(records.find((record) => record.id === expected[0]))
  })

  it('pages only the keys a filter keeps: a name that contains q in any case, a prefix that starts with it, a status (when it has listKeysPage)', async (context) => {
    const harness = await make()
    if (!harness.store.listKeysPage) return context.skip(skipReason)
    const owner: KeyOwner = { type: 'project', id: uniqueOwner('proj') }
    const now = new Date(1_700_000_100_000)
    // Names with the wildcards of LIKE, which match only themselves; keys of one instant and of many.
    const names = ['Prod web', 'prod-api', 'staging', null, '100% off', 'a_b', 'ab', 'PRODUCTION', 'ci']
    const records: KeyRecord[] = []
    for (let i = 0; i < 36; i++) {
      const base = await recordFor(undefined, 'project', owner.id)
      const record = await harness.store.insertKey({
        ...base,
        name: names[i % names.length]!,
        createdAt: new Date(1_700_000_000_000 + Math.floor(i / 3) * 1000),
        // Every fourth expired at `now`, every fifth a day later.
        expiresAt:
          i % 4 === 1
            ? new Date(now.getTime() - 1)
            : i % 5 === 2
              ? new Date(now.getTime() + 86_400_000)
              : null,
      })
      // Every seventh revoked, and of the others every seventh revoked by a leak report.
      if (i % 7 === 3) records.push((await harness.store.setKeyActive(record.id, false))!)
      else if (i % 7 === 5) records.push((await harness.store.deactivateKeys([record.id], 'leaked'))[0]!)
      else records.push(record)
    }
    await harness.store.insertKey({
      ...(await recordFor(undefined, 'project', uniqueOwner('proj'))),
      name: 'prod',
    })
    const prefix = records[5]!.keyPrefix
    const filters: KeyFilter[] = [
      { q: 'prod', now },
      { q: 'PROD', status: 'active', now },
      { q: '%', now },
      { q: '_', now },
      { q: 'a_b', now },
      { q: prefix.slice(0, 6), now },
      { q: `${prefix}...`, now },
      { status: 'active', now },
      { status: 'expired', now },
      { status: 'revoked', now },
      { status: 'leaked', now },
      { q: 'prod', status: 'leaked', now },
      { q: 'nothing like it', now },
    ]
    for (const filter of filters) {
      const expected = records
        .filter((record) => matchesKeyFilter(record, filter))
        .sort(newestFirst)
        .map((record) => record.id)
      for (const limit of [2, 50]) {
        expect({ filter, limit, ids: await walk(harness, owner, limit, filter) }).toEqual({
          filter,
          limit,
          ids: expected,
        })
      }
    }
    // The rule itself: a prefix matches however many keys share it, a status needs no q.
    expect(
      records.filter((record) => matchesKeyFilter(record, { q: `${prefix}...`, now })).length,
    ).toBeGreaterThan(0)
    expect(
      records.filter((record) => matchesKeyFilter(record, { status: 'expired', now })).length,
    ).toBeGreaterThan(0)
    // A leaked key is revoked too, and a key revoked otherwise is not leaked.
    const leaked = records.filter((record) => matchesKeyFilter(record, { status: 'leaked', now }))
    const revoked = records.filter((record) => matchesKeyFilter(record, { status: 'revoked', now }))
    expect(leaked.length).toBeGreaterThan(0)
    expect(revoked.length).toBeGreaterThan(leaked.length)
    expect(leaked.every((record) => revoked.includes(record))).toBe(true)
  })

  it('answers the last page with next null, an empty owner with no records (when it has listKeysPage)', async (context) => {
    const harness = await make()
    if (!harness.store.listKeysPage) return context.skip(skipReason)
    const owner: KeyOwner = { type: 'developer', id: uniqueOwner('dev') }
    expect(await harness.store.listKeysPage(owner, { limit: 10 })).toEqual({ records: [], next: null })
    const records: KeyRecord[] = []
    for (let i = 0; i < 4; i++) {
      const record = {
        ...(await recordFor(undefined, 'developer', owner.id)),
        createdAt: new Date(1_700_000_000_000 + i),
      }
      records.push(await harness.store.insertKey(record, 10))
    }
    const exact = await harness.store.listKeysPage(owner, { limit: 4 })
    expect([exact.records.map((record) => record.id), exact.next]).toEqual([
      records.map((r) => r.id).reverse(),
      null,
    ])
    const page = await harness.store.listKeysPage(owner, { limit: 3 })
    const last = await harness.store.listKeysPage(owner, { limit: 3, after: page.next! })
    expect([last.records.map((record) => record.id), last.next]).toEqual([[records[0]!.id], null])
    // A key created after the first page was read is newer: it is not in a later page.
    await harness.store.insertKey(
      { ...(await recordFor(undefined, 'developer', owner.id)), createdAt: new Date(1_700_000_000_010) },
      10,
    )
    const again = await harness.store.listKeysPage(owner, { limit: 3, after: page.next! })
    expect(again.records.map((record) => record.id)).toEqual([records[0]!.id])
  })
}
