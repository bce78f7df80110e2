// Read replicas against a real primary and a real streaming standby that replays every commit
// APPLY_DELAY_MS late (recovery_min_apply_delay). Each "process" is a store of its own: its own
// pools, its own change feed connection, its own lag guard.
import { createKeyward, ErrorType, type KeyChangeFeed, type Keyward } from '@keyward/core'
import pg from 'pg'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ReplicaCluster, replicaClusterUnavailable } from '../../../../scripts/replica-cluster.mjs'
import type { PostgresKeyStore } from '../base.js'
import { RevocationUnconfirmedError } from '../fences.js'
import { createPgKeyStore } from '../pg.js'
import { uniqueSchema } from '../test/harness.js'
import { TcpProxy } from '../test/tcp-proxy.js'
import type { ReplicaEvent } from './reads.js'

const APPLY_DELAY_MS = 3000
// Strict revocation's bound (the default).
const BOUND_MS = 250
const unavailable = replicaClusterUnavailable()
// CI must run these, not skip them.
if (unavailable && process.env.KEYWARD_REQUIRE_REPLICAS) {
  throw new Error(`KEYWARD_REQUIRE_REPLICAS is set, but replica clusters cannot be built: ${unavailable}.`)
}

const until = async (what: string, check: () => Promise<boolean> | boolean, timeoutMs = 20_000) => {
  const deadline = Date.now() + timeoutMs
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`Timed out waiting for ${what}.`)
    await new Promise((resolve) => setTimeout(resolve, 25))
  }
}

/** Resolves when `feed` reports a change of `hash`. */
const heard = (feed: KeyChangeFeed, hash: string) =>
  new Promise<number>((resolve) => {
    const stop = feed.subscribe((event) => {
      if (event.type === 'changed' && event.hash === hash) {
        stop()
        resolve(performance.now())
      }
    })
  })

interface Process {
  readonly store: PostgresKeyStore
  readonly keyward: Keyward
  readonly events: ReplicaEvent[]
}

describe.skipIf(unavailable)(
  `read replicas on a primary and a streaming standby${unavailable ? ` (skipped: ${unavailable})` : ''}`,
  () => {
    let cluster: ReplicaCluster
    let standby: pg.Pool
    const schema = uniqueSchema()
    const processes: Process[] = []
    const proxies: TcpProxy[] = []

    /** A TCP proxy in front of the primary, to stall one process's change feed. */
    async function proxyToPrimary(): Promise<TcpProxy> {
      const proxy = await TcpProxy.start('127.0.0.1', Number(new URL(cluster.primary.url).port))
      proxies.push(proxy)
      return proxy
    }

    async function open(
      options: { maxLagMs?: number; cache?: boolean; feedThrough?: TcpProxy; confirmTimeoutMs?: number } = {},
    ): Promise<Process> {
      const events: ReplicaEvent[] = []
      const store = await createPgKeyStore(
        { connectionString: cluster.primary.url },
        {
          schema,
          replicas: [cluster.standby.url],
          replicaReads: { probeIntervalMs: 100, maxLagMs: options.maxLagMs ?? 30_000 },
          onEvent: (event) => events.push(event),
          ...(options.feedThrough
            ? { changeFeed: { connectionString: options.feedThrough.through(cluster.primary.url) } }
            : {}),
          ...(options.confirmTimeoutMs
            ? { strictRevocation: { confirmTimeoutMs: options.confirmTimeoutMs } }
            : {}),
        },
      )
      const process = {
        store,
        keyward: createKeyward({ store, ...(options.cache ? { cache: {} } : {}) }),
        events,
      }
      processes.push(process)
      return process
    }

    const onStandby = async (hash: string) => {
      const { rows } = await standby.query<{ active: boolean }>(
        `SELECT active FROM "${schema}".api_keys WHERE hash = $1`,
        [hash],
      )
      return rows[0]?.active
    }
    const verify = (keyward: Keyward, key: string) =>
      keyward.authenticate({ developerKey: key }, { scope: 'developer' }).then(
        () => 'accepted',
        (error: { type?: string }) => error.type ?? String(error),
      )
    /** Waits until `process` answers `key` from the standby (the standby has replayed it, the guard trusts it). */
    const servedByStandby = (process: Process, key: string) =>
      until('a lookup answered by the standby', async () => {
        const before = process.store.replicaStats!.replica
        expect(await verify(process.keyward, key)).toBe('accepted')
        return process.store.replicaStats!.replica > before
      })

    beforeAll(async () => {
      cluster = await ReplicaCluster.start({ applyDelayMs: APPLY_DELAY_MS })
      standby = new pg.Pool({ connectionString: cluster.standby.url, max: 2 })
      standby.on('error', () => {})
      // The first process migrates the schema on the primary; the standby replays it late.
      await open()
      await until('the standby to replay the schema', async () => {
        const { rows } = await standby.query('SELECT to_regclass($1) IS NOT NULL AS found', [
          `"${schema}".api_keys`,
        ])
        return rows[0].found === true
      })
    })

    afterAll(async () => {
      for (const proxy of proxies) proxy.resume()
      for (const process of processes.splice(0)) await process.store.close()
      for (const proxy of proxies.splice(0)) await proxy.stop()
      await standby?.end()
      await cluster?.destroy()
    })

    it('a new key works at once in every process, before the standby has it (read your writes)', async () => {
      const [a, b, c] = [processes[0]!, await open(), await open()]
      const { key, record } = await a.keyward.issueDeveloperKey('dev-new')
      expect(await verify(b.keyward, key)).toBe('accepted')
      expect(await verify(c.keyward, key)).toBe('accepted')
      expect(await verify(a.keyward, key)).toBe('accepted')
      // Accepted from the primary: the standby does not have the key yet.
      expect(await onStandby(record.hash)).toBeUndefined()
    })

    it('lookups by many hashes (leaked-key revocation) read the primary, never the standby', async () => {
      const [a, b] = processes as [Process, Process]
      const { record } = await a.keyward.issueDeveloperKey('dev-leaked')
      const before = { ...b.store.replicaStats! }
      const found = await b.store.findKeysByHashes([record.hash])
      expect(found.map((r) => r.id)).toEqual([record.id])
      expect(found[0]).toMatchObject({ expiresAt: null, lastUsedAt: null, replacedBy: null })
      // Found on the primary: the standby does not have the key yet, and was not asked.
      expect(await onStandby(record.hash)).toBeUndefined()
      expect(b.store.replicaStats).toEqual(before)
    })

    it('a revoked key is refused at once by every process while the standby still shows it active', async () => {
      const [a, b, c] = processes as [Process, Process, Process]
      // D has the verification cache too: a revocation empties its entry, and the lookup that
      // follows must not fill it again from the lagging standby.
      const d = await open({ cache: true })
      const { key, record } = await a.keyward.issueDeveloperKey('dev-revoke')
      await until('the standby to replay the key', async () => (await onStandby(record.hash)) === true)
      await servedByStandby(b, key)
      await servedByStandby(c, key)
      await until('D to read the key from the standby', async () => {
        const before = d.store.replicaStats!.replica
        await d.store.findKeyByHash(record.hash)
        return d.store.replicaStats!.replica > before
      })
      expect(await verify(d.keyward, key)).toBe('accepted')

      // B verifies without pause from before the revocation to after it (at most 20 s).
      const outcomes: { startedAt: number; outcome: string }[] = []
      let hammering = true
      const stopAt = Date.now() + 20_000
      const hammer = (async () => {
        while (hammering && Date.now() < stopAt) {
          const startedAt = performance.now()
          outcomes.push({ startedAt, outcome: await verify(b.keyward, key) })
        }
      })()
      let bHeard: number
      try {
        await new Promise((resolve) => setTimeout(resolve, 100))
        const heardByB = heard(b.store.changes!, record.hash)
        const heardByC = heard(c.store.changes!, record.hash)
        const heardByD = heard(d.store.changes!, record.hash)

        await a.keyward.deactivateKey(record.id)
        // The revoking process refuses as soon as the call returns.
        expect(await verify(a.keyward, key)).toBe(ErrorType.keyInvalid)
        bHeard = await heardByB
        await heardByC
        expect(await verify(c.keyward, key)).toBe(ErrorType.keyInvalid)
        await heardByD
        expect(await verify(d.keyward, key)).toBe(ErrorType.keyInvalid)
        expect(await verify(d.keyward, key)).toBe(ErrorType.keyInvalid)
        await new Promise((resolve) => setTimeout(resolve, 200))
      } finally {
        hammering = false
        await hammer
      }

      // The standby still shows the key active: every refusal came from the lag guard.
      expect(await onStandby(record.hash)).toBe(true)
      const before = outcomes.filter((o) => o.startedAt < bHeard - 50)
      const after = outcomes.filter((o) => o.startedAt >= bHeard)
      expect(before.length).toBeGreaterThan(0)
      expect(before.every((o) => o.outcome === 'accepted')).toBe(true)
      expect(after.length).toBeGreaterThan(0)
      expect(after.map((o) => o.outcome)).toEqual(after.map(() => ErrorType.keyInvalid))

      // Once the standby has replayed the revocation, the key is refused there too.
      await until(
        'the standby to replay the revocation',
        async () => (await onStandby(record.hash)) === false,
      )
      expect(await verify(b.keyward, key)).toBe(ErrorType.keyInvalid)
    })

    it('a standby lagging past the bound is not read, with events, until it catches up', async () => {
      // The fences of strict revocation commit all the time, so the standby is always about
      // its apply delay behind: it lags past the bound when its replay is paused.
      const lagged = await open({ maxLagMs: APPLY_DELAY_MS + 1500 })
      const { key, record } = await lagged.keyward.issueDeveloperKey('dev-lag')
      await until('the standby to replay the key', async () => (await onStandby(record.hash)) === true)
      await standby.query('SELECT pg_wal_replay_pause()')
      try {
        await until('the standby to lag past the bound', () =>
          lagged.events.some((event) => event.type === 'replica.lagging'),
        )
        const before = lagged.store.replicaStats!
        expect(await verify(lagged.keyward, key)).toBe('accepted')
        expect(lagged.store.replicaStats).toEqual({ replica: before.replica, primary: before.primary + 1 })
      } finally {
        await standby.query('SELECT pg_wal_replay_resume()')
      }
      await until('the standby to catch up', () =>
        lagged.events.some((event) => event.type === 'replica.caught_up'),
      )
      await servedByStandby(lagged, key)
    })

    it('the standby stopped: lookups go to the primary; restarted: back to the standby', async () => {
      const [a, b] = processes as [Process, Process]
      const { key, record } = await a.keyward.issueDeveloperKey('dev-restart')
      await until('the standby to replay the key', async () => (await onStandby(record.hash)) === true)
      await servedByStandby(b, key)
      b.events.length = 0

      await standby.end()
      await cluster.stopNode(cluster.standby)
      const fromPrimary = b.store.replicaStats!.primary
      expect(await verify(b.keyward, key)).toBe('accepted')
      expect(b.events).toContainEqual(expect.objectContaining({ type: 'replica.down' }))
      const other = await a.keyward.issueDeveloperKey('dev-restart')
      expect(await verify(b.keyward, other.key)).toBe('accepted')
      await a.keyward.deactivateKey(other.record.id)
      expect(await verify(b.keyward, other.key)).toBe(ErrorType.keyInvalid)
      expect(b.store.replicaStats!.primary).toBeGreaterThanOrEqual(fromPrimary + 3)

      await cluster.startNode(cluster.standby)
      standby = new pg.Pool({ connectionString: cluster.standby.url, max: 2 })
      standby.on('error', () => {})
      await until('the standby to be probed up', () => b.events.some((event) => event.type === 'replica.up'))
      await servedByStandby(b, key)
      // The key revoked while the standby was down stays refused while the standby replays it.
      expect(await verify(b.keyward, other.key)).toBe(ErrorType.keyInvalid)
    })

    it('strict revocation: a process whose feed is stalled refuses a key revoked elsewhere, cached or not, while the standby shows it active', async () => {
      const [w] = processes as [Process]
      const proxy = await proxyToPrimary()
      const p = await open({ feedThrough: proxy })
      const cached = createKeyward({ store: p.store, cache: {} })
      const { key, record } = await w.keyward.issueDeveloperKey('dev-strict')
      const later = await w.keyward.issueDeveloperKey('dev-strict')
      await until('the standby to replay the keys', async () => (await onStandby(later.record.hash)) === true)
      await servedByStandby(p, key)
      expect(await verify(cached, key)).toBe('accepted')
      const hits = cached.cacheStats()!.hits
      expect(await verify(cached, key)).toBe('accepted')
      expect(cached.cacheStats()!.hits).toBe(hits + 1) // in P's cache

      // P's feed delivers nothing from now on, and P's fences never come back.
      proxy.stall()
      const startedAt = performance.now()
      await w.keyward.deactivateKey(record.id)
      const tookMs = performance.now() - startedAt
      expect(tookMs).toBeGreaterThanOrEqual(BOUND_MS)
      expect(await onStandby(record.hash)).toBe(true)
      const before = p.store.replicaStats!
      // P never heard of the revocation; its cache and the standby would still say active.
      expect(await verify(cached, key)).toBe(ErrorType.keyInvalid)
      expect(await verify(p.keyward, key)).toBe(ErrorType.keyInvalid)
      expect(p.store.replicaStats).toEqual({ replica: before.replica, primary: before.primary + 2 })
      await until('P to report its feed late', () => p.events.some((event) => event.type === 'feed.stale'))
      expect(p.events).toContainEqual({ type: 'feed.stale', boundMs: BOUND_MS })
      expect(await onStandby(record.hash)).toBe(true)

      // The stall ends: the feed is fresh again, and once the standby has replayed past a
      // position read after that, P reads it again.
      proxy.resume()
      await until('P to hear a fence again', () => p.events.some((event) => event.type === 'feed.fresh'))
      expect(await verify(cached, key)).toBe(ErrorType.keyInvalid)
      await servedByStandby(p, later.key)
      expect(await verify(p.keyward, key)).toBe(ErrorType.keyInvalid)
    })

    it('strict revocation: every revocation takes the bound; one fails with outcome unknown when its own feed is stalled', async () => {
      const [w] = processes as [Process]
      const timed = async <T>(run: () => Promise<T>) => {
        const startedAt = performance.now()
        await run()
        return performance.now() - startedAt
      }
      const rolled = await w.keyward.issueDeveloperKey('dev-strict-roll')
      expect(await timed(() => w.keyward.rollKey(rolled.record.id))).toBeGreaterThanOrEqual(BOUND_MS)
      expect(
        await timed(() => w.keyward.deactivateOwnerKeys({ type: 'project', id: 'proj-strict' })),
      ).toBeGreaterThanOrEqual(BOUND_MS)
      // Issuing is not delayed: read your writes holds without it.
      expect(await timed(() => w.keyward.issueDeveloperKey('dev-strict-roll'))).toBeLessThan(BOUND_MS)

      const proxy = await proxyToPrimary()
      const stalled = await open({ feedThrough: proxy, confirmTimeoutMs: 500 })
      const { record } = await stalled.keyward.issueDeveloperKey('dev-strict-unconfirmed')
      proxy.stall()
      const startedAt = performance.now()
      const failure = await stalled.keyward.deactivateKey(record.id).catch((error: unknown) => error)
      expect(performance.now() - startedAt).toBeGreaterThanOrEqual(BOUND_MS + 500)
      expect(failure).toMatchObject({
        type: ErrorType.revocationUnconfirmed,
        status: 503,
        outcome: 'unknown',
      })
      expect(failure).toBeInstanceOf(RevocationUnconfirmedError)
      // It was committed all the same: only its acknowledgement failed.
      expect(await w.store.findKeyById(record.id)).toMatchObject({ active: false })
      proxy.resume()
    })

    // Last: it stops the primary for good.
    it('the primary stopped: writes answer 503, unchanged keys verify from the standby, changed ones do not', async () => {
      const [a, b] = processes as [Process, Process]
      const unchanged = await a.keyward.issueDeveloperKey('dev-primary-down')
      await until(
        'the standby to replay the key',
        async () => (await onStandby(unchanged.record.hash)) === true,
      )
      await servedByStandby(b, unchanged.key)
      const proxy = await proxyToPrimary()
      const e = await open({ feedThrough: proxy })
      await servedByStandby(e, unchanged.key)
      // Revoked just before the primary stops: the standby has not replayed it.
      const revoked = await a.keyward.issueDeveloperKey('dev-primary-down')
      await until(
        'the standby to replay the key',
        async () => (await onStandby(revoked.record.hash)) === true,
      )
      const heardByB = heard(b.store.changes!, revoked.record.hash)
      // E's feed is stalled when the primary stops: E has not heard every change acknowledged
      // up to then, so it answers nothing from the standby while the primary is down.
      proxy.stall()
      await a.keyward.deactivateKey(revoked.record.id)
      await heardByB
      await until('E to see its feed late', () => e.events.some((event) => event.type === 'feed.stale'))

      // The primary fails at once, as in a crash: a graceful shutdown that holds its connections
      // longer than the bound leaves every feed late before the primary is seen down, and the
      // replicas then answer nothing (the safe side; see the Postgres guide's "Read replicas").
      await cluster.stopNode(cluster.primary, 'immediate')
      await until('the primary to be seen down', () =>
        [b, e].every((p) => p.events.some((event) => event.type === 'primary.down')),
      )

      expect(await verify(e.keyward, unchanged.key)).toBe(ErrorType.storeUnavailable)
      expect(await verify(b.keyward, unchanged.key)).toBe('accepted')
      expect(await verify(a.keyward, unchanged.key)).toBe('accepted')
      expect(await onStandby(revoked.record.hash)).toBe(true)
      expect(await verify(b.keyward, revoked.key)).toBe(ErrorType.storeUnavailable)
      expect(await verify(a.keyward, revoked.key)).toBe(ErrorType.storeUnavailable)
      expect(await verify(b.keyward, `ak_${'x'.repeat(32)}`)).toBe(ErrorType.storeUnavailable)
      await expect(b.keyward.issueDeveloperKey('dev-primary-down')).rejects.toMatchObject({
        type: ErrorType.storeUnavailable,
        status: 503,
      })
      await expect(b.keyward.deactivateKey(unchanged.record.id)).rejects.toMatchObject({
        type: ErrorType.storeUnavailable,
      })
    })
  },
)
