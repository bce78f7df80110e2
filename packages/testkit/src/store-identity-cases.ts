import {
  type IdentityRecord,
  type IdentityStore,
  type KeyChangeEvent,
  type KeyStore,
  matchesIdentitySearch,
} from '@keyward/core'
import { expect, it } from 'vitest'
import type { StoreHarness } from './store-conformance.js'
import { recordFor, until } from './store-record.js'

let counter = 0
const uniqueProject = () => `proj-identity-${Date.now().toString(36)}-${(counter++).toString(36)}`

const second = (offsetMs = 0) => new Date(Math.floor(Date.now() / 1000) * 1000 + offsetMs)

/** @internal A new identity of `projectId`, as a service would build it. */
export function identityFor(projectId: string, externalId: string, createdAt = second()): IdentityRecord {
  return {
    id: crypto.randomUUID(),
    projectId,
    externalId,
    metadata: { plan: 'pro', seats: 3, nested: { ok: true, none: null } },
    ratelimits: [{ name: 'requests', limit: 10, duration: 1000 }],
    remaining: null,
    refill: null,
    refilledAt: null,
    createdAt,
    updatedAt: createdAt,
  }
}

const NO_IDENTITIES = 'the store keeps no identities (store.identities is optional)'

async function withIdentities(
  make: () => Promise<StoreHarness>,
): Promise<{ store: KeyStore; identities: IdentityStore } | null> {
  const { store } = await make()
  return store.identities ? { store, identities: store.identities } : null
}

/**
 * @internal The conformance cases of a store's identities (`store.identities`), registered inside
 * the suite's `describe`: each skipped, saying why, for a store that keeps none.
 */
export function identityCases(make: () => Promise<StoreHarness>): void {
  it('inserts an identity and finds it by id and by external id, field for field (when it keeps identities)', async (context) => {
    const given = await withIdentities(make)
    if (!given) return context.skip(NO_IDENTITIES)
    const { identities } = given
    const project = uniqueProject()
    const acme = identityFor(project, 'customer_acme')
    expect(await identities.insertIdentity(acme)).toEqual(acme)
    expect(await identities.findIdentity(acme.id)).toEqual(acme)
    expect(await identities.findIdentityByExternalId(project, 'customer_acme')).toEqual(acme)
    expect(await identities.findIdentityByExternalId(uniqueProject(), 'customer_acme')).toBeNull()
    expect(await identities.findIdentity(crypto.randomUUID())).toBeNull()
    expect(await identities.findIdentity('not-a-uuid')).toBeNull()
  })

  it('keeps external ids unique within a project, under races (when it keeps identities)', async (context) => {
    const given = await withIdentities(make)
    if (!given) return context.skip(NO_IDENTITIES)
    const { identities } = given
    const project = uniqueProject()
    const inserted = await Promise.all(
      Array.from({ length: 20 }, () => identities.insertIdentity(identityFor(project, 'customer_acme'))),
    )
    expect(inserted.filter((identity) => identity !== null)).toHaveLength(1)
    // ensureIdentity: every racer gets the one identity, one of them created it.
    const ensured = await Promise.all(
      Array.from({ length: 20 }, () => identities.ensureIdentity(identityFor(project, 'customer_globex'))),
    )
    expect(new Set(ensured.map(({ identity }) => identity.id)).size).toBe(1)
    expect(ensured.filter(({ created }) => created)).toHaveLength(1)
    // Another project may use the same external id.
    expect(await identities.insertIdentity(identityFor(uniqueProject(), 'customer_acme'))).not.toBeNull()
  })

  it("lists a project's identities newest first, a page at a time, each once (when it keeps identities)", async (context) => {
    const given = await withIdentities(make)
    if (!given) return context.skip(NO_IDENTITIES)
    const { identities } = given
    const project = uniqueProject()
    const made: IdentityRecord[] = []
    // Two of them in the same second: the id orders them.
    for (const offset of [-3000, -2000, -2000, -1000, 0]) {
      made.push(
        (await identities.insertIdentity(identityFor(project, `customer_${made.length}`, second(offset))))!,
      )
    }
    await identities.insertIdentity(identityFor(uniqueProject(), 'elsewhere'))
    const seen: string[] = []
    let after: Parameters<IdentityStore['listIdentitiesPage']>[1]['after']
    for (let pages = 0; pages < 10; pages++) {
      const page = await identities.listIdentitiesPage(project, after ? { limit: 2, after } : { limit: 2 })
      seen.push(...page.records.map((identity) => identity.id))
      if (page.next === null) break
      after = page.next
    }
    const expected = [...made]
      .sort((a, b) => b.createdAt.getTime() - a.createdAt.getTime() || (a.id < b.id ? 1 : -1))
      .map((identity) => identity.id)
    expect(seen).toEqual(expected)
  })

  it("pages a search of a project's identities: an external id that contains it in any case, a wildcard as itself (when it keeps identities)", async (context) => {
    const given = await withIdentities(make)
    if (!given) return context.skip(NO_IDENTITIES)
    const { identities } = given
    const project = uniqueProject()
    const ids = ['customer_ACME', 'acme-2', 'Acme 3', 'globex', 'a%b', 'a_c', 'back\\slash']
    const made: Record<string, string> = {}
    for (const [i, externalId] of ids.entries()) {
      made[externalId] = (await identities.insertIdentity(
        identityFor(project, externalId, second(i * 1000)),
      ))!.id
    }
    await identities.insertIdentity(identityFor(uniqueProject(), 'acme elsewhere'))
    const search = async (q: string) => {
      const found: string[] = []
      let after: Parameters<IdentityStore['listIdentitiesPage']>[1]['after']
      for (let pages = 0; pages < 10; pages++) {
        const page = await identities.listIdentitiesPage(project, {
          limit: 2,
          q,
          ...(after ? { after } : {}),
        })
        found.push(...page.records.map((identity) => identity.externalId))
        if (page.next === null) break
        after = page.next
      }
      for (const externalId of found) expect(matchesIdentitySearch({ externalId }, q)).toBe(true)
      return found
    }
    expect(await search('acme')).toEqual(['Acme 3', 'acme-2', 'customer_ACME'])
    expect(await search('%')).toEqual(['a%b'])
    expect(await search('_')).toEqual(['a_c', 'customer_ACME'])
    expect(await search('\\')).toEqual(['back\\slash'])
    expect(await search('nobody')).toEqual([])
  })

  it('changes metadata and limits as given, keeps the rest, and returns null for an unknown id (when it keeps identities)', async (context) => {
    const given = await withIdentities(make)
    if (!given) return context.skip(NO_IDENTITIES)
    const { identities } = given
    const acme = (await identities.insertIdentity(identityFor(uniqueProject(), 'customer_acme')))!
    const later = second(1000)
    const cleared = await identities.updateIdentity(acme.id, { metadata: null }, later)
    expect(cleared).toEqual({ ...acme, metadata: null, updatedAt: later })
    const limits = [{ name: 'tokens', limit: 5000, duration: 60_000 }]
    const changed = await identities.updateIdentity(acme.id, { ratelimits: limits }, later)
    expect(changed).toEqual({ ...acme, metadata: null, ratelimits: limits, updatedAt: later })
    expect(await identities.findIdentity(acme.id)).toEqual(changed)
    expect(await identities.updateIdentity(crypto.randomUUID(), { metadata: null }, later)).toBeNull()
  })

  it('joins a key to an identity and takes it out, listing its keys (when it keeps identities)', async (context) => {
    const given = await withIdentities(make)
    if (!given) return context.skip(NO_IDENTITIES)
    const { store, identities } = given
    const project = uniqueProject()
    const acme = (await identities.insertIdentity(identityFor(project, 'customer_acme')))!
    const key = await store.insertKey(await recordFor(undefined, 'project', project))
    const joined = await identities.setKeyIdentity(key.id, acme.id)
    expect(joined?.identityId).toBe(acme.id)
    expect((await store.findKeyByHash(key.hash))?.identityId).toBe(acme.id)
    expect((await identities.listIdentityKeys(acme.id, { limit: 10 })).records.map((k) => k.id)).toEqual([
      key.id,
    ])
    expect((await identities.setKeyIdentity(key.id, null))?.identityId ?? null).toBeNull()
    expect((await identities.listIdentityKeys(acme.id, { limit: 10 })).records).toEqual([])
    expect(await identities.setKeyIdentity(crypto.randomUUID(), acme.id)).toBeNull()
  })

  it('keeps the identity of a key inserted with one (when it keeps identities)', async (context) => {
    const given = await withIdentities(make)
    if (!given) return context.skip(NO_IDENTITIES)
    const { store, identities } = given
    const project = uniqueProject()
    const acme = (await identities.insertIdentity(identityFor(project, 'customer_acme')))!
    const record = { ...(await recordFor(undefined, 'project', project)), identityId: acme.id }
    expect(await store.insertKey(record)).toEqual(record)
    expect(await store.findKeyByHash(record.hash)).toEqual(record)
    expect(await store.findKeyById(record.id)).toEqual(record)
    expect((await identities.listIdentityKeys(acme.id, { limit: 10 })).records).toEqual([record])
  })

  it('rolls a key of an identity into a key of the same identity (when it keeps identities)', async (context) => {
    const given = await withIdentities(make)
    if (!given) return context.skip(NO_IDENTITIES)
    const { store, identities } = given
    const project = uniqueProject()
    const acme = (await identities.insertIdentity(identityFor(project, 'customer_acme')))!
    const record = await store.insertKey({
      ...(await recordFor(undefined, 'project', project)),
      identityId: acme.id,
    })
    const replacement = { ...(await recordFor(undefined, 'project', project)), identityId: acme.id }
    const rolled = await store.rollKey(record.id, replacement, new Date(Date.now() + 60_000), new Date())
    expect(rolled?.replacement.identityId).toBe(acme.id)
    expect((await store.findKeyByHash(replacement.hash))?.identityId).toBe(acme.id)
  })

  it('deletes an identity with keys only when asked to revoke them, in one step (when it keeps identities)', async (context) => {
    const given = await withIdentities(make)
    if (!given) return context.skip(NO_IDENTITIES)
    const { store, identities } = given
    const project = uniqueProject()
    const acme = (await identities.insertIdentity(identityFor(project, 'customer_acme')))!
    const keys = await Promise.all(
      [1, 2].map(async () => store.insertKey(await recordFor(undefined, 'project', project))),
    )
    for (const key of keys) await identities.setKeyIdentity(key.id, acme.id)
    expect(await identities.deleteIdentity(acme.id, false)).toEqual({ kept: acme, keys: 2 })
    expect(await identities.findIdentity(acme.id)).toEqual(acme)
    const deleted = await identities.deleteIdentity(acme.id, true)
    expect(deleted && 'deleted' in deleted ? deleted.revoked.map((key) => key.id).sort() : null).toEqual(
      keys.map((key) => key.id).sort(),
    )
    expect(await identities.findIdentity(acme.id)).toBeNull()
    for (const key of keys) {
      // `identityId` absent means null, as for the record's other optional fields.
      const found = await store.findKeyByHash(key.hash)
      expect(found).toMatchObject({ active: false })
      expect(found?.identityId ?? null).toBeNull()
    }
    expect(await identities.deleteIdentity(acme.id, true)).toBeNull()
    // Its external id is free again.
    expect(await identities.insertIdentity(identityFor(project, 'customer_acme'))).not.toBeNull()
  })

  it("a change feed reports an identity's change for each of its keys (when it keeps identities)", async (context) => {
    const given = await withIdentities(make)
    if (!given) return context.skip(NO_IDENTITIES)
    const { store, identities } = given
    const feed = store.changes
    if (!feed) return context.skip('the store has no change feed (store.changes)')
    await until(() => feed.connected)
    const project = uniqueProject()
    const acme = (await identities.insertIdentity(identityFor(project, 'customer_acme')))!
    const keys = await Promise.all(
      [1, 2].map(async () => store.insertKey(await recordFor(undefined, 'project', project))),
    )
    for (const key of keys) await identities.setKeyIdentity(key.id, acme.id)
    const heard: KeyChangeEvent[] = []
    const stop = feed.subscribe((event) => heard.push(event))
    try {
      await identities.updateIdentity(acme.id, { ratelimits: [] }, second())
      const hashes = () => new Set(heard.flatMap((event) => (event.type === 'changed' ? [event.hash] : [])))
      await until(() => keys.every((key) => hashes().has(key.hash)))
      for (const key of keys) expect(hashes().has(key.hash)).toBe(true)
    } finally {
      stop()
    }
  })
}
