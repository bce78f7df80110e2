import {
  apiKeyGuard,
  createKeyward,
  ErrorType,
  type KeyChangeEvent,
  type KeywardRequest,
} from '@keyward/core'
import { expect, it } from 'vitest'
import type { StoreHarness } from './store-conformance.js'
import { connectedFeed, recordFor, until } from './store-record.js'

let counter = 0
const uniqueOwner = (label: string) =>
  `${label}-policy-${Date.now().toString(36)}-${(counter++).toString(36)}`

const POLICIES = {
  ipAllowlist: ['203.0.113.0/24', '2001:db8::/32', '::ffff:198.51.100.7'],
  permissions: ['reports:read', 'generations:delete'],
  metadata: { plan: 'pro', tags: ['a', 'b'], nested: { n: 1, ok: true, none: null } },
  ratelimits: [
    { name: 'requests', limit: 100, duration: 60_000 },
    { name: 'exports.daily', limit: 5, duration: 86_400_000 },
  ],
}

/**
 * @internal The conformance cases of a key's policies (IP allowlist, permissions, metadata, stored
 * rate limits) and of `setKeyPolicies`, registered inside the suite's `describe`.
 */
export function policyCases(make: () => Promise<StoreHarness>): void {
  const noPolicies = 'the store has no setKeyPolicies (it is optional)'

  it("keeps a key's policies as inserted, and rolls them into the new key", async () => {
    const { store } = await make()
    const owner = uniqueOwner('proj')
    const record = { ...(await recordFor(undefined, 'project', owner)), ...POLICIES }
    const inserted = await store.insertKey(record)
    expect(inserted).toEqual(record)
    expect(await store.findKeyByHash(record.hash)).toEqual(record)
    expect(await store.findKeyById(record.id)).toEqual(record)
    expect(await store.listKeysByOwner({ type: 'project', id: owner })).toEqual([record])
    const replacement = { ...(await recordFor(undefined, 'project', owner)), ...POLICIES }
    const rolled = await store.rollKey(record.id, replacement, new Date(Date.now() + 60_000), new Date())
    expect(rolled?.replacement).toEqual(replacement)
    expect(rolled?.previous.permissions).toEqual(POLICIES.permissions)
  })

  it('sets, keeps and clears policies field by field, and returns null for an unknown id (when it has setKeyPolicies)', async (context) => {
    const { store } = await make()
    if (!store.setKeyPolicies) return context.skip(noPolicies)
    const record = await store.insertKey(await recordFor(undefined, 'project', uniqueOwner('proj')))
    expect(await store.setKeyPolicies(record.id, POLICIES)).toEqual({ ...record, ...POLICIES })
    // A field left undefined stays as it is.
    const narrower = await store.setKeyPolicies(record.id, { permissions: ['reports:read'] })
    expect(narrower).toEqual({ ...record, ...POLICIES, permissions: ['reports:read'] })
    expect(await store.findKeyByHash(record.hash)).toEqual(narrower)
    const cleared = await store.setKeyPolicies(record.id, {
      ipAllowlist: null,
      metadata: null,
      ratelimits: null,
    })
    expect(cleared).toEqual({ ...record, permissions: ['reports:read'] })
    // Stored rate limits are absent for none, whether cleared by null or by an empty list.
    expect(cleared).not.toHaveProperty('ratelimits')
    const limited = await store.setKeyPolicies(record.id, { ratelimits: POLICIES.ratelimits })
    expect(limited?.ratelimits).toEqual(POLICIES.ratelimits)
    const emptied = await store.setKeyPolicies(record.id, { ratelimits: [] })
    expect(emptied).not.toHaveProperty('ratelimits')
    expect(await store.findKeyById(record.id)).not.toHaveProperty('ratelimits')
    expect(await store.setKeyPolicies(record.id, { permissions: [] })).toEqual({ ...record, permissions: [] })
    expect(await store.setKeyPolicies(crypto.randomUUID(), POLICIES)).toBeNull()
    expect(await store.setKeyPolicies('not-a-uuid', POLICIES)).toBeNull()
  })

  it('a change feed reports new permissions set past the service: a cache over it refuses the key at once (when it has setKeyPolicies)', async (context) => {
    const { store } = await make()
    if (!store.setKeyPolicies) return context.skip(noPolicies)
    const feed = await connectedFeed(store, context)
    const heard: KeyChangeEvent[] = []
    const stop = feed.subscribe((event) => heard.push(event))
    const keyward = createKeyward({
      store,
      cache: {},
      trackLastUsed: false,
      permissions: ['reports:read', 'reports:write'],
    })
    const { key, record } = await keyward.issueProjectKey(uniqueOwner('proj'))
    const outcome = () =>
      keyward
        .authenticate(
          { projectKey: key, address: '203.0.113.9' },
          { scope: 'project', projectId: record.ownerId, permissions: { allOf: ['reports:write'] } },
        )
        .then(
          () => 'accepted',
          (error: { type: string }) => error.type,
        )
    await until(async () => (await outcome()) === 'accepted' && keyward.cacheStats()?.entries === 1)
    await store.setKeyPolicies(record.id, { permissions: ['reports:read'] }) // past the service
    await until(async () => (await outcome()) === ErrorType.permissionDenied)
    await store.setKeyPolicies(record.id, { permissions: null, ipAllowlist: ['198.51.100.0/24'] })
    await until(async () => (await outcome()) === ErrorType.ipNotAllowed)
    expect(
      heard.filter((event) => event.type === 'changed' && event.hash === record.hash).length,
    ).toBeGreaterThanOrEqual(2)
    stop()
  })

  it('a change feed reports stored rate limits set past the service: a guard over a cache counts the new ones (when it has setKeyPolicies)', async (context) => {
    const { store } = await make()
    if (!store.setKeyPolicies) return context.skip(noPolicies)
    await connectedFeed(store, context)
    const keyward = createKeyward({ store, cache: {}, trackLastUsed: false, usage: false })
    const once = [{ name: 'requests', limit: 1, duration: 60_000 }]
    const { key, record } = await keyward.issueProjectKey(uniqueOwner('proj'), { ratelimits: once })
    const guard = apiKeyGuard(keyward)
    const request: KeywardRequest = {
      method: 'GET',
      url: '/',
      params: {},
      header: (name) => (name === 'x-api-key' ? key : undefined),
    }
    const status = async () => {
      const result = guard.now?.(request) ?? (await guard(request))
      return result.ok ? 200 : result.response.status
    }
    expect(await status()).toBe(200)
    await until(async () => (await status()) === 429 && keyward.cacheStats()?.entries === 1)
    await store.setKeyPolicies(record.id, { ratelimits: null }) // past the service
    await until(async () => (await status()) === 200)
    expect(await status()).toBe(200)
    await store.setKeyPolicies(record.id, { ratelimits: once })
    await until(async () => (await status()) === 429)
  })
}
