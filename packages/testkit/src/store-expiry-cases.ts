import { createKeyward, ErrorType, type KeyChangeEvent } from '@keyward/core'
import { expect, it } from 'vitest'
import type { StoreHarness } from './store-conformance.js'
import { connectedFeed, randomPart, recordFor, until } from './store-record.js'

let counter = 0
const uniqueOwner = (label: string) =>
  `${label}-expiry-${Date.now().toString(36)}-${(counter++).toString(36)}`
const HOUR = 3_600_000
const at = (offsetMs: number) => new Date(Math.floor(Date.now() / 1000) * 1000 + offsetMs)

/**
 * @internal The conformance cases of `setKeyExpiry` and of `revokedReason`, registered inside
 * the suite's `describe`; each is skipped, with the reason, for a store without them.
 */
export function expiryCases(make: () => Promise<StoreHarness>): void {
  const noExpiry = 'the store has no setKeyExpiry (it is optional)'

  it('sets and clears an expiry, and returns null for an unknown id (when it has setKeyExpiry)', async (context) => {
    const { store } = await make()
    if (!store.setKeyExpiry) return context.skip(noExpiry)
    const record = await store.insertKey(await recordFor(undefined, 'project', uniqueOwner('proj')))
    const expiry = at(HOUR)
    expect(await store.setKeyExpiry(record.id, expiry)).toEqual({ ...record, expiresAt: expiry })
    expect((await store.findKeyByHash(record.hash))?.expiresAt).toEqual(expiry)
    expect(await store.setKeyExpiry(record.id, null)).toEqual({ ...record, expiresAt: null })
    expect((await store.findKeyById(record.id))?.expiresAt).toBeNull()
    expect(await store.setKeyExpiry(crypto.randomUUID(), expiry)).toBeNull()
    expect(await store.setKeyExpiry('not-a-uuid', expiry)).toBeNull()
  })

  it('leaves a rolled key its grace expiry: it comes back unchanged (when it has setKeyExpiry)', async (context) => {
    const { store } = await make()
    if (!store.setKeyExpiry) return context.skip(noExpiry)
    const owner = uniqueOwner('dev')
    const old = await store.insertKey(await recordFor(undefined, 'developer', owner), 10)
    const graceEnd = at(HOUR)
    const rolled = await store.rollKey(
      old.id,
      await recordFor(undefined, 'developer', owner),
      graceEnd,
      at(0),
    )
    expect(await store.setKeyExpiry(old.id, at(48 * HOUR))).toEqual(rolled?.previous)
    expect(await store.setKeyExpiry(old.id, null)).toEqual(rolled?.previous)
    expect((await store.findKeyById(old.id))?.expiresAt).toEqual(graceEnd)
  })

  it('a change feed reports an expiry set past the service: a cache over it refuses the key at once (when it has setKeyExpiry)', async (context) => {
    const { store } = await make()
    if (!store.setKeyExpiry) return context.skip(noExpiry)
    const feed = await connectedFeed(store, context)
    const heard: KeyChangeEvent[] = []
    const stop = feed.subscribe((event) => heard.push(event))
    const keyward = createKeyward({ store, cache: {}, trackLastUsed: false })
    const { key, record } = await keyward.issueProjectKey(uniqueOwner('proj'))
    const outcome = () =>
      keyward.authenticate({ projectKey: key }, { scope: 'project', projectId: record.ownerId }).then(
        () => 'accepted',
        (error: { type: string }) => error.type,
      )
    await until(async () => (await outcome()) === 'accepted' && keyward.cacheStats()?.entries === 1)
    await store.setKeyExpiry(record.id, at(-HOUR)) // past the service: only the feed tells the cache
    await until(async () => (await outcome()) === ErrorType.keyInvalid)
    expect(heard.some((event) => event.type === 'changed' && event.hash === record.hash)).toBe(true)
    stop()
  })

  it('keeps why a key was deactivated, and clears it on re-activation (when it keeps revokedReason)', async (context) => {
    const { store } = await make()
    const owner = uniqueOwner('proj')
    const [revoked, leaked, batch] = await Promise.all(
      [0, 1, 2].map(async () => store.insertKey(await recordFor(`ak_${randomPart(32)}`, 'project', owner))),
    )
    const deactivated = await store.setKeyActive(revoked!.id, false)
    if (deactivated?.revokedReason === undefined) {
      return context.skip(
        'the store does not keep revokedReason (optional: an inactive key reads as revoked)',
      )
    }
    expect(deactivated.revokedReason).toBe('revoked')
    expect((await store.deactivateKeys([leaked!.id], 'leaked')).map((r) => r.revokedReason)).toEqual([
      'leaked',
    ])
    expect((await store.deactivateKeys([batch!.id])).map((r) => r.revokedReason)).toEqual(['revoked'])
    expect((await store.findKeyByHash(leaked!.hash))?.revokedReason).toBe('leaked')
    expect((await store.findKeysByHashes([leaked!.hash]))[0]?.revokedReason).toBe('leaked')
    const back = await store.setKeyActive(leaked!.id, true)
    expect([back?.active, back?.revokedReason ?? null]).toEqual([true, null])
    expect((await store.findKeyById(leaked!.id))?.revokedReason ?? null).toBeNull()
    if (store.deactivateOwnerKeys) {
      const closed = await store.deactivateOwnerKeys({ type: 'project', id: owner })
      expect(closed.map((r) => [r.id, r.revokedReason])).toEqual([[leaked!.id, 'revoked']])
    }
  })
}
