import { createKeyward, ErrorType, type KeyChangeEvent, type KeyRecord, type KeyStore } from '@keyward/core'
import { afterEach, describe, expect, it } from 'vitest'
import { auditCases } from './store-audit-cases.js'
import { batchCases } from './store-batch-cases.js'
import { creditCases } from './store-credit-cases.js'
import { expiryCases } from './store-expiry-cases.js'
import { identityCases } from './store-identity-cases.js'
import { identityRoleCases } from './store-identity-role-cases.js'
import { importCases } from './store-import-cases.js'
import { ownerCases } from './store-owner-cases.js'
import { pageCases } from './store-page-cases.js'
import { policyCases } from './store-policy-cases.js'
import { randomPart, recordFor, until } from './store-record.js'
import { roleCases } from './store-role-cases.js'
import { usageCases } from './store-usage-cases.js'

/** A store under test plus a way to read what it really wrote, bypassing its methods. */
export interface StoreHarness {
  readonly store: KeyStore
  /** Every stored key record as raw rows (objects), read straight from storage. */
  readRaw(): Promise<readonly Record<string, unknown>[]>
  /** Every audit row as raw rows, read straight from storage; for a store with an audit log. */
  readRawAudit?(): Promise<readonly Record<string, unknown>[]>
  /** Releases connections; called after each test. */
  close?(): Promise<void>
}

/** Options of {@link runStoreConformance}. */
export interface StoreConformanceOptions {
  /** Name of the describe block. */
  readonly name: string
  /** Makes a fresh, empty store for each test. */
  readonly makeStore: () => StoreHarness | Promise<StoreHarness>
  /** How many times each race is run. Default 10. */
  readonly repeats?: number
}

let counter = 0
const uniqueOwner = (label: string) => `${label}-${Date.now().toString(36)}-${(counter++).toString(36)}`

const HOUR = 3_600_000
const at = (offsetMs: number) => new Date(Math.floor(Date.now() / 1000) * 1000 + offsetMs)

function settle<T>(promises: Promise<T>[]) {
  return Promise.allSettled(promises).then((results) => ({
    fulfilled: results.filter((r) => r.status === 'fulfilled').length,
    rejectedTypes: results.flatMap((r) =>
      r.status === 'rejected' ? [(r.reason as { type?: string }).type] : [],
    ),
  }))
}

/**
 * The conformance suite every `KeyStore` (of `@keyward/core`) runs, Keyward's own and third parties'.
 * Call it at the top level of a vitest test file. It checks the behaviour of every
 * method, the atomic active-key limit under races, by reading raw storage that no
 * record or field ever holds a full key, and, for a store with a change feed, that the feed
 * reports every write so that a verification cache over the store stays right, and, for a
 * store with `deactivateOwnerKeys`, that a deleted owner's keys end and stay ended under races,
 * and, for the optional `listKeysPage`, `setKeyExpiry` and `revokedReason`, that pages hold each
 * key once in order, that a rolled key keeps its grace expiry and that a new expiry reaches a
 * cache through the feed, and that a deactivation's reason is kept, and, for the optional credits
 * (`leaseCredits`, `returnCredits`, `changeCredits`), that leases never take more than the balance
 * under races, that a refill fires once per period, and that changes racing leases lose nothing,
 * and, for a store with an audit log (`appendAudit`), that every write appends its rows or is not
 * made, in one chain, and, for a store that keeps identities (`identities`), that external ids stay
 * unique under races, that pages hold each identity once in order, that keys join and leave, that
 * an identity with keys is deleted only with them revoked, and that its changes reach the feed for
 * each of its keys, and, for a store that imports keys (`insertImportedKeys`), that a batch is written
 * once (a stored or repeated hash left out, a closed owner's keys too) with its audit rows.
 *
 * @example
 * ```ts
 * import { runStoreConformance } from '@keyward/testkit'
 * runStoreConformance({
 *   name: 'MyStore',
 *   makeStore: async () => ({ store: new MyStore(db), readRaw: () => db.query('select * from keys') }),
 * })
 * ```
 */
export function runStoreConformance(options: StoreConformanceOptions): void {
  const repeats = options.repeats ?? 10

  describe(`KeyStore conformance: ${options.name}`, () => {
    let open: StoreHarness[] = []
    const make = async () => {
      const harness = await options.makeStore()
      open.push(harness)
      return harness
    }
    afterEach(async () => {
      const closing = open
      open = []
      for (const h of closing) await h.close?.()
    })

    batchCases(make)
    ownerCases(make, repeats)
    pageCases(make)
    expiryCases(make)
    policyCases(make)
    creditCases(make, repeats)
    usageCases(make)
    auditCases(make)
    identityCases(make)
    roleCases(make)
    identityRoleCases(make)
    importCases(make)

    it('inserts a record and finds it by hash and by id, field for field', async () => {
      const { store } = await make()
      const record = {
        ...(await recordFor(`ak_${randomPart(32)}`, 'developer', uniqueOwner('dev'))),
        name: 'laptop',
      }
      const inserted = await store.insertKey(record)
      expect(inserted).toEqual(record)
      expect(await store.findKeyByHash(record.hash)).toEqual(record)
      expect(await store.findKeyById(record.id)).toEqual(record)
      const expiring = {
        ...(await recordFor(`ak_${randomPart(32)}`, 'project', uniqueOwner('proj'))),
        expiresAt: at(24 * HOUR),
      }
      await store.insertKey(expiring)
      expect(await store.findKeyByHash(expiring.hash)).toEqual(expiring)
    })

    it('returns null for an unknown hash or id', async () => {
      const { store } = await make()
      expect(await store.findKeyByHash('0'.repeat(64))).toBeNull()
      expect(await store.findKeyById(crypto.randomUUID())).toBeNull()
      expect(await store.setKeyActive(crypto.randomUUID(), false)).toBeNull()
    })

    it('refuses a second record with the same hash', async () => {
      const { store } = await make()
      const key = `ak_${randomPart(32)}`
      await store.insertKey(await recordFor(key, 'project', uniqueOwner('proj')))
      await expect(store.insertKey(await recordFor(key, 'project', uniqueOwner('proj')))).rejects.toThrow()
    })

    it("lists only the owner's keys, active or not, oldest first", async () => {
      const { store } = await make()
      const owner = uniqueOwner('dev')
      const ids: string[] = []
      for (let i = 0; i < 3; i++) {
        const record = {
          ...(await recordFor(`ak_${randomPart(32)}`, 'developer', owner)),
          createdAt: new Date(1_700_000_000_000 + i * 1000),
        }
        await store.insertKey(record)
        ids.push(record.id)
      }
      await store.insertKey(await recordFor(`ak_${randomPart(32)}`, 'developer', uniqueOwner('other')))
      await store.insertKey(await recordFor(`ak_${randomPart(32)}`, 'project', owner))
      await store.setKeyActive(ids[1]!, false)
      const listed = await store.listKeysByOwner({ type: 'developer', id: owner })
      expect(listed.map((r) => r.id)).toEqual(ids)
      expect(listed.map((r) => r.active)).toEqual([true, false, true])
    })

    it('lists the owners of one type with their counts, oldest first (when it has listOwners)', async (context) => {
      const { store } = await make()
      if (!store.listOwners) return context.skip('the store has no listOwners (it is optional)')
      const [first, second] = [uniqueOwner('dev'), uniqueOwner('dev')]
      const at = (seconds: number) => new Date(1_600_000_000_000 + seconds * 1000)
      const insert = async (type: 'developer' | 'project', owner: string, seconds: number) => {
        const record = { ...(await recordFor(`ak_${randomPart(32)}`, type, owner)), createdAt: at(seconds) }
        return store.insertKey(record)
      }
      const old = await insert('developer', first, 0)
      await insert('developer', second, 1)
      await insert('developer', first, 2)
      await insert('project', first, 3)
      await store.setKeyActive(old.id, false)
      const owners = (await store.listOwners('developer')).filter((o) => [first, second].includes(o.id))
      expect(owners).toEqual([
        { id: first, keys: 2, activeKeys: 1, firstCreatedAt: at(0), lastCreatedAt: at(2) },
        { id: second, keys: 1, activeKeys: 1, firstCreatedAt: at(1), lastCreatedAt: at(1) },
      ])
      const projects = (await store.listOwners('project')).filter((o) => o.id === first)
      expect(projects).toEqual([
        { id: first, keys: 1, activeKeys: 1, firstCreatedAt: at(3), lastCreatedAt: at(3) },
      ])
    })

    it('deactivates and re-activates, and a no-op change returns the record', async () => {
      const { store } = await make()
      const record = await recordFor(`ak_${randomPart(32)}`, 'project', uniqueOwner('proj'))
      await store.insertKey(record)
      expect((await store.setKeyActive(record.id, false))?.active).toBe(false)
      expect((await store.findKeyByHash(record.hash))?.active).toBe(false)
      expect((await store.setKeyActive(record.id, false))?.active).toBe(false)
      expect((await store.setKeyActive(record.id, true))?.active).toBe(true)
      expect((await store.findKeyById(record.id))?.active).toBe(true)
    })

    it('enforces the active limit on insert and on re-activation; inactive keys do not count', async () => {
      const { store } = await make()
      const owner = uniqueOwner('dev')
      const records: KeyRecord[] = []
      for (let i = 0; i < 3; i++) {
        const record = await recordFor(`ak_${randomPart(32)}`, 'developer', owner)
        await store.insertKey(record, 3)
        records.push(record)
      }
      const extra = await recordFor(`ak_${randomPart(32)}`, 'developer', owner)
      await expect(store.insertKey(extra, 3)).rejects.toMatchObject({
        type: ErrorType.limitExceeded,
        status: 409,
      })
      expect(await store.findKeyByHash(extra.hash)).toBeNull()
      await store.setKeyActive(records[0]!.id, false)
      await store.insertKey(extra, 3)
      await expect(store.setKeyActive(records[0]!.id, true, 3)).rejects.toMatchObject({
        type: ErrorType.limitExceeded,
      })
      expect((await store.findKeyById(records[0]!.id))?.active).toBe(false)
    })

    it('100 concurrent developer-key creations give exactly 10 active and 90 limit_exceeded, every time', async () => {
      const harness = await make()
      const keyward = createKeyward({ store: harness.store })
      for (let round = 0; round < repeats; round++) {
        const developer = uniqueOwner('race')
        const { fulfilled, rejectedTypes } = await settle(
          Array.from({ length: 100 }, () => keyward.issueDeveloperKey(developer)),
        )
        expect(fulfilled).toBe(10)
        expect(rejectedTypes).toEqual(Array(90).fill(ErrorType.limitExceeded))
        const listed = await harness.store.listKeysByOwner({ type: 'developer', id: developer })
        expect(listed.filter((r) => r.active)).toHaveLength(10)
        const raw = await harness.readRaw()
        expect(raw.filter((row) => Object.values(row).includes(developer))).toHaveLength(10)
      }
    })

    it('re-activation races with creation never exceed the limit', async () => {
      const harness = await make()
      const keyward = createKeyward({ store: harness.store })
      for (let round = 0; round < repeats; round++) {
        const developer = uniqueOwner('reactivate')
        const issued = []
        for (let i = 0; i < 10; i++) issued.push(await keyward.issueDeveloperKey(developer))
        for (const { record } of issued) await keyward.deactivateKey(record.id)
        for (let i = 0; i < 5; i++) await keyward.issueDeveloperKey(developer)
        // 5 free places; 10 re-activations and 10 creations race for them.
        const { fulfilled, rejectedTypes } = await settle<unknown>([
          ...issued.map(({ record }) => keyward.activateKey(record.id)),
          ...Array.from({ length: 10 }, () => keyward.issueDeveloperKey(developer)),
        ])
        expect(fulfilled).toBe(5)
        expect(rejectedTypes).toEqual(Array(15).fill(ErrorType.limitExceeded))
        const listed = await harness.store.listKeysByOwner({ type: 'developer', id: developer })
        expect(listed.filter((r) => r.active)).toHaveLength(10)
      }
    })

    it('1,000 concurrent project-key creations all succeed', async () => {
      const harness = await make()
      const keyward = createKeyward({ store: harness.store })
      const project = uniqueOwner('proj')
      const { fulfilled } = await settle(Array.from({ length: 1000 }, () => keyward.issueProjectKey(project)))
      expect(fulfilled).toBe(1000)
      expect(await harness.store.listKeysByOwner({ type: 'project', id: project })).toHaveLength(1000)
      // A bound for a hang: on a loaded machine a thousand transactions through a pool of five
      // take tens of seconds.
    }, 180_000)

    it('two keys sharing their first 8 characters both verify, as different keys', async () => {
      const { store } = await make()
      const keyward = createKeyward({ store })
      const project = uniqueOwner('proj')
      const shared = `ak_${randomPart(5)}`
      const keys = [`${shared}${randomPart(27)}`, `${shared}${randomPart(27)}`]
      const records = await Promise.all(keys.map((key) => recordFor(key, 'project', project)))
      for (const record of records) await store.insertKey(record)
      expect(records[0]!.keyPrefix).toBe(records[1]!.keyPrefix)
      const auths = await Promise.all(
        keys.map((projectKey) =>
          keyward.authenticate({ projectKey }, { scope: 'project', projectId: project }),
        ),
      )
      expect(auths.map((a) => a.projectKey.id)).toEqual(records.map((r) => r.id))
    })

    it('a change feed, when the store has one, reports every write by hash and never a key; a cache over it hears writes made past the service', async (context) => {
      const { store } = await make()
      const feed = store.changes
      if (!feed) return context.skip('the store has no change feed (store.changes)')
      await until(() => feed.connected)
      const heard: KeyChangeEvent[] = []
      const stop = feed.subscribe((event) => heard.push(event))
      const keyward = createKeyward({ store, cache: {} })
      const { key, record } = await keyward.issueProjectKey(uniqueOwner('proj'))
      const requirement = { scope: 'project', projectId: record.ownerId } as const
      const outcome = () =>
        keyward.authenticate({ projectKey: key }, requirement).then(
          () => 'accepted',
          (error: { type: string }) => error.type,
        )
      await until(async () => (await outcome()) === 'accepted' && keyward.cacheStats()?.entries === 1)
      await store.setKeyActive(record.id, false) // past the service: only the feed tells the cache
      await until(async () => (await outcome()) === ErrorType.keyInvalid)
      const changes = () => heard.filter((event) => event.type === 'changed' && event.hash === record.hash)
      // The change is heard, unless the feed lost its connection meanwhile (on a loaded machine a
      // poll or a notification may be late): the cache then emptied itself, as it must.
      const lost = () => heard.some((event) => event.type === 'disconnected')
      await until(() => changes().length >= 2 || lost())
      if (!lost()) expect(changes().length).toBeGreaterThanOrEqual(2)
      expect(JSON.stringify(heard)).not.toContain(key.slice(3))
      stop()
    })

    it('expired keys and keys in a grace window do not count against the limit', async () => {
      const { store } = await make()
      const owner = uniqueOwner('dev')
      const expired = {
        ...(await recordFor(`ak_${randomPart(32)}`, 'developer', owner)),
        expiresAt: at(-HOUR),
      }
      const graced = {
        ...(await recordFor(`ak_${randomPart(32)}`, 'developer', owner)),
        expiresAt: at(HOUR),
        replacedBy: crypto.randomUUID(),
      }
      const expiring = {
        ...(await recordFor(`ak_${randomPart(32)}`, 'developer', owner)),
        expiresAt: at(HOUR),
      }
      await store.insertKey(expired)
      await store.insertKey(graced)
      await store.insertKey(expiring, 2)
      await store.insertKey(await recordFor(`ak_${randomPart(32)}`, 'developer', owner), 2)
      await expect(
        store.insertKey(await recordFor(`ak_${randomPart(32)}`, 'developer', owner), 2),
      ).rejects.toMatchObject({ type: ErrorType.limitExceeded })
      // An hour and a minute later, the expiring key no longer counts either.
      await store.setKeyActive(expired.id, false)
      expect((await store.setKeyActive(expired.id, true, 2, at(HOUR + 60_000)))?.active).toBe(true)
      await store.setKeyActive(expired.id, false)
      await expect(store.setKeyActive(expired.id, true, 2, at(0))).rejects.toMatchObject({
        type: ErrorType.limitExceeded,
      })
    })

    it('rolls a key: inserts the new record and gives the old one replacedBy and its grace expiry', async () => {
      const { store } = await make()
      // One reading of the clock for the whole case: `at` reads it, and a second may pass.
      const graceEnd = at(HOUR)
      const now = at(0)
      const owner = uniqueOwner('dev')
      const old = { ...(await recordFor(`ak_${randomPart(32)}`, 'developer', owner)), name: 'ci' }
      await store.insertKey(old, 1)
      const replacement = { ...(await recordFor(`ak_${randomPart(32)}`, 'developer', owner)), name: 'ci' }
      const rolled = await store.rollKey(old.id, replacement, graceEnd, now)
      expect(rolled).toEqual({
        previous: { ...old, replacedBy: replacement.id, expiresAt: graceEnd },
        replacement,
      })
      expect(await store.findKeyByHash(old.hash)).toEqual(rolled?.previous)
      expect(await store.findKeyByHash(replacement.hash)).toEqual(replacement)
      // Rolled once: never again, and its place went to the new key (the limit of 1 holds).
      const again = await recordFor(`ak_${randomPart(32)}`, 'developer', owner)
      expect(await store.rollKey(old.id, again, graceEnd, now)).toBeNull()
      expect(await store.findKeyByHash(again.hash)).toBeNull()
      await expect(
        store.insertKey(await recordFor(`ak_${randomPart(32)}`, 'developer', owner), 1),
      ).rejects.toMatchObject({ type: ErrorType.limitExceeded })
      // A key's own expiry only comes closer.
      const soonExpiry = new Date(now.getTime() + 60_000)
      const soon = { ...(await recordFor(`ak_${randomPart(32)}`, 'project', owner)), expiresAt: soonExpiry }
      await store.insertKey(soon)
      const next = await recordFor(`ak_${randomPart(32)}`, 'project', owner)
      expect((await store.rollKey(soon.id, next, graceEnd, now))?.previous.expiresAt).toEqual(soonExpiry)
    })

    it('refuses to roll an unknown, inactive, expired or foreign key, writing nothing', async () => {
      const { store } = await make()
      const owner = uniqueOwner('proj')
      const inactive = { ...(await recordFor(`ak_${randomPart(32)}`, 'project', owner)), active: false }
      const expired = { ...(await recordFor(`ak_${randomPart(32)}`, 'project', owner)), expiresAt: at(-1000) }
      const foreign = await recordFor(`ak_${randomPart(32)}`, 'project', uniqueOwner('proj'))
      for (const record of [inactive, expired, foreign]) await store.insertKey(record)
      for (const id of [crypto.randomUUID(), inactive.id, expired.id, foreign.id]) {
        const replacement = await recordFor(`ak_${randomPart(32)}`, 'project', owner)
        expect(await store.rollKey(id, replacement, at(HOUR), at(0))).toBeNull()
        expect(await store.findKeyByHash(replacement.hash)).toBeNull()
      }
      expect(await store.findKeyById(foreign.id)).toEqual(foreign)
      expect(await store.listKeysByOwner({ type: 'project', id: owner })).toHaveLength(2)
    })

    it('50 concurrent rolls of one key give exactly one new key, every time', async () => {
      const harness = await make()
      const keyward = createKeyward({ store: harness.store, trackLastUsed: false })
      for (let round = 0; round < repeats; round++) {
        const developer = uniqueOwner('roll')
        const { record } = await keyward.issueDeveloperKey(developer)
        const { fulfilled, rejectedTypes } = await settle(
          Array.from({ length: 50 }, () => keyward.rollKey(record.id, { graceSeconds: 60 })),
        )
        expect(fulfilled).toBe(1)
        expect(rejectedTypes).toEqual(Array(49).fill(ErrorType.keyRolled))
        const listed = await harness.store.listKeysByOwner({ type: 'developer', id: developer })
        expect(listed).toHaveLength(2)
        const raw = await harness.readRaw()
        expect(raw.filter((row) => Object.values(row).includes(developer))).toHaveLength(2)
      }
    })

    it('records uses in a batch: active keys only, never back in time', async () => {
      const { store } = await make()
      // One instant for the whole test: two calls of `at` may fall on either side of a second.
      const base = at(0).getTime()
      const usedAt = (offsetMs: number) => new Date(base + offsetMs)
      const owner = uniqueOwner('proj')
      const records = await Promise.all(
        Array.from({ length: 3 }, () => recordFor(`ak_${randomPart(32)}`, 'project', owner)),
      )
      for (const record of records) await store.insertKey(record)
      await store.setKeyActive(records[2]!.id, false)
      await store.recordKeyUse([
        { id: records[0]!.id, usedAt: usedAt(2000) },
        { id: records[1]!.id, usedAt: usedAt(1000) },
        { id: records[2]!.id, usedAt: usedAt(1000) },
        { id: crypto.randomUUID(), usedAt: usedAt(1000) },
      ])
      await store.recordKeyUse([{ id: records[0]!.id, usedAt: usedAt(1000) }])
      const used = await Promise.all(records.map((r) => store.findKeyById(r.id)))
      expect(used.map((r) => r?.lastUsedAt)).toEqual([usedAt(2000), usedAt(1000), null])
      expect((await store.findKeyByHash(records[1]!.hash))?.lastUsedAt).toEqual(usedAt(1000))
      await store.recordKeyUse([])
    })

    it('no record or field holds a full key or its random part', async () => {
      const harness = await make()
      const keyward = createKeyward({ store: harness.store })
      const issued = [
        await keyward.issueDeveloperKey(uniqueOwner('dev'), { name: 'a' }),
        await keyward.issueProjectKey(uniqueOwner('proj'), { name: 'b' }),
      ]
      const raw = await harness.readRaw()
      expect(raw.length).toBeGreaterThanOrEqual(2)
      const text = raw
        .map((row) => JSON.stringify(row, (_k, v) => (typeof v === 'bigint' ? v.toString() : v)))
        .join('\n')
      for (const { key, record } of issued) {
        expect(text).not.toContain(key)
        expect(text).not.toContain(key.slice(3))
        expect(text).not.toContain(key.slice(8))
        expect(text).toContain(record.hash)
        expect(text).toContain(record.keyPrefix)
      }
    })
  })
}
