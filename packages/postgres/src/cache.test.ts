// The verification cache over real PostgreSQL: revocations reach every service through the
// change feed, and a feed that is down (killed, or the server restarted) never lets a key
// revoked meanwhile through.
import { createKeyward, ErrorType, hashKey, type Keyward, type KeywardEvent } from '@keyward/core'
import pg from 'pg'
import { afterEach, describe, expect, it } from 'vitest'
import { ReplicaCluster, replicaClusterUnavailable } from '../../../scripts/replica-cluster.mjs'
import type { PostgresKeyStore } from './base.js'
import { createPgKeyStore } from './pg.js'
import { PG_URL, uniqueSchema } from './test/harness.js'

const project = { scope: 'project', projectId: 'proj-1' } as const
const outcome = (keyward: Keyward, key: string) =>
  keyward.authenticate({ projectKey: key }, project).then(
    () => 'accepted',
    (error: { type: string }) => error.type,
  )

/** Polls until `check` holds, every 2 ms, for at most `ms`; returns the time it took. */
async function until(check: () => Promise<boolean> | boolean, ms: number): Promise<number> {
  const started = performance.now()
  while (!(await check())) {
    if (performance.now() - started > ms) throw new Error(`not within ${ms} ms`)
    await new Promise((resolve) => setTimeout(resolve, 2))
  }
  return performance.now() - started
}

describe.skipIf(!PG_URL)('the verification cache on PostgreSQL (set KEYWARD_PG_URL to run)', () => {
  const stores: PostgresKeyStore[] = []
  afterEach(async () => {
    const schema = stores[0]?.schema
    if (schema) await stores[0]!.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`)
    for (const store of stores.splice(0)) await store.close()
  })

  /** A service with a pool, a change feed and a cache of its own, on `schema`. */
  async function service(schema: string, feed: Record<string, unknown> = {}, events?: KeywardEvent[]) {
    const store = await createPgKeyStore(
      { connectionString: PG_URL as string, poolConfig: { max: 4 } },
      { schema, changeFeed: { reconnectMinMs: 20, ...feed } },
    )
    stores.push(store)
    return createKeyward({ store, cache: {}, onEvent: (event) => events?.push(event) })
  }

  it('a key revoked in one service is refused by another within milliseconds, not the TTL', async () => {
    const schema = uniqueSchema()
    const a = await service(schema)
    const b = await service(schema)
    const { key, record } = await a.issueProjectKey('proj-1')
    // A lookup under way while any change is heard fills nothing: b may hear the insert late.
    await until(async () => (await outcome(b, key)) === 'accepted' && b.cacheStats()?.entries === 1, 15_000)
    const { hits } = b.cacheStats()!
    expect(await outcome(b, key)).toBe('accepted')
    expect(b.cacheStats()?.hits).toBe(hits + 1)

    await a.deactivateKey(record.id)
    expect(await outcome(a, key)).toBe(ErrorType.keyInvalid) // its own write: at once
    // The TTL is a minute; the feed brings it within a few milliseconds (15 s is the test's patience on a loaded machine).
    await until(async () => (await outcome(b, key)) === ErrorType.keyInvalid, 15_000)
    await a.activateKey(record.id)
    await until(async () => (await outcome(b, key)) === 'accepted', 15_000)
  })

  it('strict revocation: once setKeyPolicies narrowing a key returns in one service, another refuses it at once', async () => {
    const schema = uniqueSchema()
    // Two processes' services: a pool, a change feed with fences, a cache of their own each.
    const strict = async () => {
      const store = await createPgKeyStore(
        { connectionString: PG_URL as string, poolConfig: { max: 3 } },
        { schema, strictRevocation: { boundMs: 250 }, changeFeed: { reconnectMinMs: 20 } },
      )
      stores.push(store)
      return createKeyward({ store, cache: {}, permissions: ['reports:read', 'reports:write'] })
    }
    const a = await strict()
    const b = await strict()
    const { key, record } = await a.issueProjectKey('proj-1', {
      permissions: ['reports:read', 'reports:write'],
    })
    const needing = (permission: string, address = '203.0.113.9') =>
      b.authenticate({ projectKey: key, address }, { ...project, permissions: { allOf: [permission] } }).then(
        () => 'accepted',
        (error: { type: string }) => error.type,
      )
    // b caches the key (arranging may wait; what follows the change may not).
    await until(
      async () => (await needing('reports:write')) === 'accepted' && b.cacheStats()?.entries === 1,
      15_000,
    )
    const { hits } = b.cacheStats()!
    expect(await needing('reports:write')).toBe('accepted')
    expect(b.cacheStats()?.hits).toBe(hits + 1) // from b's cache

    await a.setKeyPolicies(record.id, { permissions: ['reports:read'] })
    // Right after the acknowledgement, with no waiting: b heard it, or reads the primary.
    expect(await needing('reports:write')).toBe(ErrorType.permissionDenied)
    expect(await needing('reports:read')).toBe('accepted')

    // A narrower IP allowlist is acknowledged the same way.
    await until(
      async () => (await needing('reports:read')) === 'accepted' && b.cacheStats()?.entries === 1,
      15_000,
    )
    await a.setKeyPolicies(record.id, { ipAllowlist: ['198.51.100.0/24'] })
    expect(await needing('reports:read')).toBe(ErrorType.ipNotAllowed)
    expect(await needing('reports:read', '198.51.100.7')).toBe('accepted')
  })

  it("strict revocation: once a role's change or detaching deletion returns in one service, another holds it at once for each key", async () => {
    const schema = uniqueSchema()
    // Two processes' services: a pool, a change feed with fences, a cache of their own each.
    const strict = async () => {
      const store = await createPgKeyStore(
        { connectionString: PG_URL as string, poolConfig: { max: 3 } },
        { schema, strictRevocation: { boundMs: 250 }, changeFeed: { reconnectMinMs: 20 } },
      )
      stores.push(store)
      return createKeyward({
        store,
        cache: {},
        permissions: ['reports:read', 'reports:write', 'billing:read'],
      })
    }
    const a = await strict()
    const b = await strict()
    const role = await a.createRole('proj-1', { name: 'reports', permissions: ['reports:*'] })
    const keys = await Promise.all(
      [1, 2].map(() => a.issueProjectKey('proj-1', { roles: ['reports'], permissions: ['billing:read'] })),
    )
    const needing = (key: string, permissions: string) =>
      b.authenticate({ projectKey: key }, { ...project, permissions }).then(
        () => 'accepted',
        (error: { type: string }) => error.type,
      )
    const cached = () =>
      until(async () => {
        for (const { key } of keys) if ((await needing(key, 'reports:write')) !== 'accepted') return false
        return b.cacheStats()?.entries === 2
      }, 15_000)
    await cached()
    await a.updateRole(role.id, { permissions: ['reports:read'] })
    // Right after the acknowledgement, with no waiting: b heard it for each key, or reads the primary.
    for (const { key } of keys) {
      expect(await needing(key, 'reports:write')).toBe(ErrorType.permissionDenied)
      expect(await needing(key, 'reports:read and billing:read')).toBe('accepted')
    }
    await a.updateRole(role.id, { permissions: ['reports:read', 'reports:write'] })
    await cached()
    expect((await a.deleteRole(role.id, { detach: true }))?.detached).toHaveLength(2)
    for (const { key } of keys) {
      expect(await needing(key, 'reports:read')).toBe(ErrorType.permissionDenied)
      expect(await needing(key, 'billing:read')).toBe('accepted')
    }
  })

  it('a key rolled with no grace, or revoked as leaked, in one service is refused by another through the feed', async () => {
    const schema = uniqueSchema()
    const a = await service(schema)
    const b = await service(schema)
    const rolled = await a.issueProjectKey('proj-1')
    const leaked = await a.issueProjectKey('proj-1')
    for (const { key } of [rolled, leaked]) {
      await until(async () => (await outcome(b, key)) === 'accepted', 15_000)
    }
    await until(async () => {
      for (const { key } of [rolled, leaked]) await outcome(b, key)
      return b.cacheStats()?.entries === 2
    }, 15_000)
    const { hits } = b.cacheStats()!
    expect(await outcome(b, rolled.key)).toBe('accepted')
    expect(await outcome(b, leaked.key)).toBe('accepted')
    expect(b.cacheStats()?.hits).toBe(hits + 2) // both answered from b's cache

    const next = await a.rollKey(rolled.record.id, { graceSeconds: 0 })
    expect(await outcome(a, rolled.key)).toBe(ErrorType.keyInvalid)
    await until(async () => (await outcome(b, rolled.key)) === ErrorType.keyInvalid, 15_000)
    expect(await outcome(b, next!.key)).toBe('accepted')

    await a.revokeLeakedKeys([{ hash: await hashKey(leaked.key) }])
    expect(await outcome(a, leaked.key)).toBe(ErrorType.keyInvalid)
    await until(async () => (await outcome(b, leaked.key)) === ErrorType.keyInvalid, 15_000)
  })

  it('writing last used sends no notification; a roll, a batch deactivation and an insert each do', async () => {
    const schema = uniqueSchema()
    const a = await service(schema)
    // The trigger's notifications themselves, heard on a session of the test's own: what a feed
    // does with them (a reconnection under load, say) is the other tests' concern.
    const listener = new pg.Client({ connectionString: PG_URL })
    await listener.connect()
    const heard: string[] = []
    listener.on('notification', (message) => {
      const change = JSON.parse(message.payload ?? '{}') as { schema?: string; hash?: string }
      if (message.channel === 'keyward_key_changes' && change.schema === schema && change.hash) {
        heard.push(change.hash)
      }
    })
    try {
      await listener.query('LISTEN keyward_key_changes')
      const { record } = await a.issueProjectKey('proj-1')
      await until(() => heard.includes(record.hash), 15_000)
      heard.length = 0
      // Notifications arrive in commit order: once the marker's insert is heard, an earlier
      // notification of the last-use write would have been heard too.
      await a.store.recordKeyUse([{ id: record.id, usedAt: new Date() }])
      const marker = await a.issueProjectKey('proj-1')
      await until(() => heard.includes(marker.record.hash), 15_000)
      expect((await a.findKey(record.id))?.lastUsedAt).toBeInstanceOf(Date)
      expect(heard).toEqual([marker.record.hash])

      const next = await a.rollKey(record.id, { graceSeconds: 0 })
      await a.store.deactivateKeys([marker.record.id])
      await until(() => heard.length >= 4, 15_000)
      expect(heard.slice(1).sort()).toEqual([record.hash, next!.record.hash, marker.record.hash].sort())
    } finally {
      await listener.end()
    }
  })

  it('a killed listener connection: the cache is emptied and bypassed, a key revoked meanwhile is refused, then the cache is used again', async () => {
    const schema = uniqueSchema()
    const applicationName = `kw_feed_${schema}`.slice(0, 63)
    const events: KeywardEvent[] = []
    // A slow first reconnection, so that the revocation surely falls in the outage.
    const a = await service(
      schema,
      { reconnectMinMs: 1500, clientConfig: { application_name: applicationName } },
      events,
    )
    const b = await service(schema)
    const { key, record } = await b.issueProjectKey('proj-1')
    await until(async () => (await outcome(a, key)) === 'accepted' && a.cacheStats()?.entries === 1, 15_000)

    const admin = new pg.Client({ connectionString: PG_URL })
    await admin.connect()
    const { rows } = await admin.query(
      'SELECT pg_terminate_backend(pid) AS killed FROM pg_stat_activity WHERE application_name = $1',
      [applicationName],
    )
    await admin.end()
    expect(rows).toEqual([{ killed: true }])
    await until(() => a.cacheStats()?.connected === false, 15_000)
    expect(events).toContainEqual(
      expect.objectContaining({ type: 'cache.bypassed', reason: 'feed_disconnected' }),
    )
    expect(a.cacheStats()?.entries).toBe(0)

    await b.deactivateKey(record.id) // a does not hear this one
    expect(a.cacheStats()?.connected).toBe(false)
    expect(await outcome(a, key)).toBe(ErrorType.keyInvalid)

    await until(() => a.cacheStats()?.connected === true, 10_000)
    expect(events.at(-1)).toEqual({ type: 'cache.resumed' })
    // Cached again (a lookup under way while a late notification is heard fills nothing).
    await until(
      async () => (await outcome(a, key)) === ErrorType.keyInvalid && a.cacheStats()?.entries === 1,
      15_000,
    )
    const { hits } = a.cacheStats()!
    expect(await outcome(a, key)).toBe(ErrorType.keyInvalid)
    expect(a.cacheStats()?.hits).toBe(hits + 1)
    await b.activateKey(record.id)
    await until(async () => (await outcome(a, key)) === 'accepted', 15_000)
  })
})

const ownCluster = replicaClusterUnavailable() === undefined

describe.skipIf(!ownCluster)(
  'the verification cache across a PostgreSQL restart (needs the server binaries: pg_config --bindir)',
  () => {
    let cluster: ReplicaCluster | undefined
    const stores: PostgresKeyStore[] = []
    afterEach(async () => {
      for (const store of stores.splice(0)) await store.close()
      await cluster?.destroy()
      cluster = undefined
    })

    it('fails closed while the server is down, refuses a key revoked before the feed is back, then caches again', async () => {
      cluster = await ReplicaCluster.start({ standby: false })
      const { url } = cluster.primary
      const events: KeywardEvent[] = []
      const open = async (feed: Record<string, unknown>, onEvent?: (event: KeywardEvent) => void) => {
        const store = await createPgKeyStore(
          { connectionString: url, poolConfig: { max: 2 } },
          { changeFeed: { reconnectMinMs: 100, reconnectMaxMs: 3000, ...feed }, queryTimeoutMs: 2000 },
        )
        stores.push(store)
        return createKeyward({ store, cache: {}, ...(onEvent ? { onEvent } : {}) })
      }
      const a = await open({}, (event) => events.push(event))
      const b = await open({})
      const { key, record } = await b.issueProjectKey('proj-1')
      await until(async () => (await outcome(a, key)) === 'accepted' && a.cacheStats()?.entries === 1, 15_000)

      await cluster.stopNode(cluster.primary)
      await until(() => a.cacheStats()?.connected === false, 10_000)
      expect(a.cacheStats()?.entries).toBe(0)
      // Down: no answer from memory, so the store's failure is the answer (fail closed).
      expect(await outcome(a, key)).toBe(ErrorType.storeUnavailable)

      await cluster.startNode(cluster.primary)
      // Revoke as soon as the server takes writes, before a's feed (backing off) is back.
      await until(async () => (await b.deactivateKey(record.id).catch(() => null)) !== null, 20_000)
      if (!a.cacheStats()?.connected) expect(await outcome(a, key)).toBe(ErrorType.keyInvalid)
      await until(() => a.cacheStats()?.connected === true, 20_000)
      expect(await outcome(a, key)).toBe(ErrorType.keyInvalid)
      // Cached again (a lookup under way while a late notification is heard fills nothing).
      await until(
        async () => (await outcome(a, key)) === ErrorType.keyInvalid && a.cacheStats()?.entries === 1,
        15_000,
      )
      const { hits } = a.cacheStats()!
      expect(await outcome(a, key)).toBe(ErrorType.keyInvalid)
      expect(a.cacheStats()?.hits).toBe(hits + 1)
      expect(events.map((event) => event.type)).toEqual(
        expect.arrayContaining(['cache.bypassed', 'cache.resumed']),
      )
    }, 90_000)
  },
)
