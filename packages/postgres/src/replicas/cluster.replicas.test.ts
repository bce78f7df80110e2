// Read replicas against a real primary and a real streaming standby that replays every commit
// APPLY_DELAY_MS late (recovery_min_apply_delay). Each "process" is a store of its own: its own
// pools, its own change feed connection, its own lag guard.
import { createKeyward, ErrorType, type KeyChangeFeed, type Keyward } from '@keyward/core'
import pg from 'pg'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { ReplicaCluster, replicaClusterUnavailable } from '../../../../scripts/replica-cluster.mjs'
import type { PostgresKeyStore } from '../base.js'
import { RevocationUnconfirmedError } from '../fences.js'
import { createPgKeyStore, type PgChangeFeed } from '../pg.js'
import { uniqueSchema } from '../test/harness.js'
import { TcpProxy } from '../test/tcp-proxy.js'
import { until } from '../test/until.js'
import type { ReplicaEvent } from './reads.js'

const APPLY_DELAY_MS = 1000
// Strict revocation's bound (the default).
const BOUND_MS = 250
const unavailable = replicaClusterUnavailable()
// CI must run these, not skip them.
if (unavailable && process.env.KEYWARD_REQUIRE_REPLICAS) {
  throw new Error(`KEYWARD_REQUIRE_REPLICAS is set, but replica clusters cannot be built: ${unavailable}.`)
}

// How many times the last test crashes the primary, at most, for one crash that a process saw
// with its feed fresh (see there).
const CRASHES = 5
// How many times, at most, it revokes a key before a crash, for a last look before the crash at
// which A or B answers from the standby.
const LOOKS = 5

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
  /** When its change feed connected or disconnected (`performance.now()`). */
  readonly feedEvents: { readonly type: 'connected' | 'disconnected'; readonly at: number }[]
  /**
   * Each time it saw the primary fail: whether its feed was fresh then, read just after the store
   * decided, by the same rule, whether replicas may answer while the primary is down.
   */
  readonly primaryDown: { readonly fresh: boolean; readonly feedAgeMs: number }[]
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
      const primaryDown: Process['primaryDown'][number][] = []
      let feed: PgChangeFeed | undefined
      const store = await createPgKeyStore(
        { connectionString: cluster.primary.url },
        {
          schema,
          replicas: [cluster.standby.url],
          replicaReads: { probeIntervalMs: 100, maxLagMs: options.maxLagMs ?? 30_000 },
          onEvent: (event) => {
            events.push(event)
            if (event.type === 'primary.down') {
              const fences = feed?.fences
              primaryDown.push({
                fresh: fences?.fresh ?? false,
                feedAgeMs: fences?.ageMs ?? Number.POSITIVE_INFINITY,
              })
            }
          },
          ...(options.feedThrough
            ? { changeFeed: { connectionString: options.feedThrough.through(cluster.primary.url) } }
            : {}),
          ...(options.confirmTimeoutMs
            ? { strictRevocation: { confirmTimeoutMs: options.confirmTimeoutMs } }
            : {}),
        },
      )
      feed = store.changes as PgChangeFeed
      const feedEvents: Process['feedEvents'][number][] = []
      feed.subscribe((event) => {
        if (event.type !== 'changed') feedEvents.push({ type: event.type, at: performance.now() })
      })
      const process = {
        store,
        keyward: createKeyward({ store, ...(options.cache ? { cache: {} } : {}) }),
        events,
        feedEvents,
        primaryDown,
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
    /**
     * Holds the standby's replay where it is, so that it goes on showing what it shows now
     * whatever the time the assertions that say so take on a loaded machine.
     */
    const pauseReplay = () => standby.query('SELECT pg_wal_replay_pause()')
    const resumeReplay = () => standby.query('SELECT pg_wal_replay_resume()')
    const verify = (keyward: Keyward, key: string) =>
      keyward.authenticate({ developerKey: key }, { scope: 'developer' }).then(
        () => 'accepted',
        (error: { type?: string }) => error.type ?? String(error),
      )
    /**
     * Waits until `process` answers `key` from the standby (the standby has replayed it, the guard
     * trusts it). Each time its feed is late (often, on a loaded machine) it waits for the standby
     * to replay past a new barrier: a minute at most.
     */
    const servedByStandby = (process: Process, key: string) =>
      until(
        'a lookup answered by the standby',
        async () => {
          const before = process.store.replicaStats!.replica
          expect(await verify(process.keyward, key)).toBe('accepted')
          return process.store.replicaStats!.replica > before
        },
        60_000,
      )

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

    // A test that failed may have left the standby's replay paused.
    afterEach(() => resumeReplay().catch(() => {}))

    afterAll(async () => {
      for (const proxy of proxies) proxy.resume()
      for (const process of processes.splice(0)) await process.store.close()
      for (const proxy of proxies.splice(0)) await proxy.stop()
      await standby?.end()
      await cluster?.destroy()
    })

    it('a new key works at once in every process, before the standby has it (read your writes)', async () => {
      const [a, b, c] = [processes[0]!, await open(), await open()]
      await pauseReplay()
      const { key, record } = await a.keyward.issueDeveloperKey('dev-new')
      expect(await verify(b.keyward, key)).toBe('accepted')
      expect(await verify(c.keyward, key)).toBe('accepted')
      expect(await verify(a.keyward, key)).toBe('accepted')
      // Accepted from the primary: the standby does not have the key yet.
      expect(await onStandby(record.hash)).toBeUndefined()
    })

    it('lookups by many hashes (leaked-key revocation) read the primary, never the standby', async () => {
      const [a, b] = processes as [Process, Process]
      await pauseReplay()
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
      const outcomes: { startedAt: number; endedAt: number; outcome: string }[] = []
      let hammering = true
      const stopAt = Date.now() + 20_000
      let revokedAt = Number.POSITIVE_INFINITY
      let bHeard = Number.POSITIVE_INFINITY
      await pauseReplay()
      const hammer = (async () => {
        while (hammering && Date.now() < stopAt) {
          const startedAt = performance.now()
          const outcome = await verify(b.keyward, key)
          outcomes.push({ startedAt, endedAt: performance.now(), outcome })
        }
      })()
      try {
        await until('B to verify the key', () => outcomes.length > 0)
        const heardByB = heard(b.store.changes!, record.hash)
        const heardByC = heard(c.store.changes!, record.hash)
        const heardByD = heard(d.store.changes!, record.hash)

        revokedAt = performance.now()
        await a.keyward.deactivateKey(record.id)
        // The revoking process refuses as soon as the call returns.
        expect(await verify(a.keyward, key)).toBe(ErrorType.keyInvalid)
        bHeard = await heardByB
        await heardByC
        expect(await verify(c.keyward, key)).toBe(ErrorType.keyInvalid)
        await heardByD
        expect(await verify(d.keyward, key)).toBe(ErrorType.keyInvalid)
        expect(await verify(d.keyward, key)).toBe(ErrorType.keyInvalid)
        await until('B to verify after it heard the revocation', () =>
          outcomes.some((o) => o.startedAt >= bHeard),
        )
      } finally {
        hammering = false
        await hammer
      }

      // The standby still shows the key active (its replay is paused): every refusal came from
      // the lag guard.
      expect(await onStandby(record.hash)).toBe(true)
      // Done before the revocation began: accepted. Started once B had heard of it: refused. In
      // between, either (B had not heard yet, or it asked the primary): never anything else.
      const before = outcomes.filter((o) => o.endedAt < revokedAt)
      const after = outcomes.filter((o) => o.startedAt >= bHeard)
      expect(before.length).toBeGreaterThan(0)
      expect(before.map((o) => o.outcome)).toEqual(before.map(() => 'accepted'))
      expect(after.length).toBeGreaterThan(0)
      expect(after.map((o) => o.outcome)).toEqual(after.map(() => ErrorType.keyInvalid))
      for (const o of outcomes) expect(['accepted', ErrorType.keyInvalid]).toContain(o.outcome)

      // Once the standby has replayed the revocation, the key is refused there too.
      await resumeReplay()
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
      await pauseReplay()
      try {
        await until('the standby to lag past the bound', () =>
          lagged.events.some((event) => event.type === 'replica.lagging'),
        )
        const before = lagged.store.replicaStats!
        expect(await verify(lagged.keyward, key)).toBe('accepted')
        expect(lagged.store.replicaStats).toEqual({ replica: before.replica, primary: before.primary + 1 })
      } finally {
        await resumeReplay()
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
      // Seen by that lookup, or by a probe (the lookup went straight to the primary if B's feed
      // was late just then).
      await until('B to see the standby down', () => b.events.some((event) => event.type === 'replica.down'))
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
      // In P's cache (read only while P's feed is fresh, which a loaded machine may interrupt).
      await until('P to answer from its cache', async () => {
        const hits = cached.cacheStats()!.hits
        expect(await verify(cached, key)).toBe('accepted')
        return cached.cacheStats()!.hits === hits + 1
      })

      // P's feed delivers nothing from now on, and P's fences never come back.
      await pauseReplay()
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
      await resumeReplay()
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
      // Issuing is not delayed: read your writes holds without it. The fastest of a few, as a
      // loaded machine may slow any one of them past the bound.
      const issuing: number[] = []
      for (let i = 0; i < 5; i++)
        issuing.push(await timed(() => w.keyward.issueDeveloperKey('dev-strict-issue')))
      expect(Math.min(...issuing)).toBeLessThan(BOUND_MS)

      const proxy = await proxyToPrimary()
      const stalled = await open({ feedThrough: proxy, confirmTimeoutMs: 500 })
      const { record } = await stalled.keyward.issueDeveloperKey('dev-strict-unconfirmed')
      proxy.stall()
      // Nor does an issue wait for the feed: it is done while the feed is stalled.
      await stalled.keyward.issueDeveloperKey('dev-strict-unconfirmed')
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

    /** The last `primary.down` or `primary.up` of `process`. */
    const lastPrimaryEvent = (process: Process) =>
      process.events.filter((event) => event.type === 'primary.down' || event.type === 'primary.up').at(-1)
        ?.type

    /**
     * Crashes the primary just after a key was revoked that the standby (its replay paused) never
     * shows revoked, and checks every answer of A, B and E (a process whose feed is stalled).
     * Returns, for A and B, whether nothing it knew forbade it to answer from the standby: then
     * it must have accepted the unchanged key.
     */
    async function crashPrimary(a: Process, b: Process): Promise<{ fresh: boolean; saw: string }[]> {
      const unchanged = await a.keyward.issueDeveloperKey('dev-primary-down')
      // E's feed is stalled from before the revocation until after the crash: E has not heard
      // every change acknowledged up to then, so it answers nothing from the standby while the
      // primary is down.
      const proxy = await proxyToPrimary()
      const e = await open({ feedThrough: proxy })
      await until(
        'the standby to replay the key',
        async () => (await onStandby(unchanged.record.hash)) === true,
      )
      await servedByStandby(e, unchanged.key)
      proxy.stall()
      await until('E to see its feed late', () => e.events.some((event) => event.type === 'feed.stale'))

      // Revoked just before the crash, with the standby's replay paused: the standby never has
      // it. A feed late meanwhile (on a loaded machine) leaves its process behind a new barrier
      // that the paused standby never passes, so that it reads the primary: when both A and B
      // do at the last look, the replay goes on and another key is revoked, LOOKS times at most.
      let revoked: Awaited<ReturnType<Keyward['issueDeveloperKey']>>
      let lookedAt: number
      let fromStandby: boolean[]
      for (let look = 1; ; look++) {
        revoked = await a.keyward.issueDeveloperKey('dev-primary-down')
        const { hash } = revoked.record
        await until('the standby to replay the key', async () => (await onStandby(hash)) === true)
        await servedByStandby(a, unchanged.key)
        await servedByStandby(b, unchanged.key)
        await pauseReplay()
        const heardByB = heard(b.store.changes!, hash)
        await a.keyward.deactivateKey(revoked.record.id)
        await heardByB

        // The last look: whether A and B answer from the standby just before the crash.
        lookedAt = performance.now()
        fromStandby = []
        for (const p of [a, b]) {
          const before = p.store.replicaStats!.replica
          expect(await verify(p.keyward, unchanged.key)).toBe('accepted')
          fromStandby.push(p.store.replicaStats!.replica > before)
        }
        if (fromStandby.some(Boolean) || look === LOOKS) break
        console.info(`look ${look}: A and B read the primary (a feed was late); another revocation`)
        await resumeReplay()
      }
      const marks = [a, b].map((p) => p.events.length)

      // The primary fails at once, as in a crash: a graceful shutdown that holds its connections
      // longer than the bound leaves every feed late before the primary is seen down, and the
      // replicas then answer nothing (the safe side; see the Postgres guide's "Read replicas").
      const crashedAt = performance.now()
      await cluster.stopNode(cluster.primary, 'immediate')
      await until('the primary to be seen down', () =>
        [a, b, e].every((p) => lastPrimaryEvent(p) === 'primary.down'),
      )

      expect(await verify(e.keyward, unchanged.key)).toBe(ErrorType.storeUnavailable)
      const answers = [await verify(a.keyward, unchanged.key), await verify(b.keyward, unchanged.key)]
      const seen = [a, b].map((p, i) => {
        const down = p.primaryDown.at(-1)!
        // A feed that reconnected, or was late and fresh again, since the last look has a new
        // barrier that the paused standby is behind; one that disconnected before the crash may
        // have missed changes.
        const feedChanged = p.feedEvents.some(
          (event) => event.at >= lookedAt && (event.at < crashedAt || event.type === 'connected'),
        )
        const standbyDown = p.events.slice(marks[i]).some((event) => event.type === 'replica.down')
        const fresh = fromStandby[i]! && down.fresh && !feedChanged && !standbyDown
        // The key is active and unchanged: accepted, or the safe 503 when the process could not
        // rule out a change it had not heard of.
        expect(fresh ? ['accepted'] : ['accepted', ErrorType.storeUnavailable]).toContain(answers[i])
        const saw =
          `${i === 0 ? 'A' : 'B'}: feed ${Math.round(down.feedAgeMs)} ms old at the crash` +
          `${fromStandby[i] ? '' : ', primary at the last look'}${feedChanged ? ', feed reconnected' : ''}` +
          `${standbyDown ? ', standby down' : ''}, ${answers[i]}`
        return { fresh, saw }
      })

      // Never from the standby: a key this process heard changed, or one the standby lacks.
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
      return seen
    }

    // Last: it leaves the primary stopped.
    it(
      'the primary stopped: writes answer 503, unchanged keys verify from the standby, changed ones do not',
      async () => {
        const [a, b] = processes as [Process, Process]
        // A process answers from the standby while the primary is down only if its feed was fresh
        // when it first saw the primary fail: a race with the crash, which a loaded machine can
        // make it lose (it then answers the safe 503 for every key). Each crash checks every answer
        // against what each process knew; the primary is restarted and crashed again until A or B
        // saw a crash with nothing that forbade answering from the standby, CRASHES times at most.
        const missed: string[] = []
        for (let crash = 1; ; crash++) {
          const seen = await crashPrimary(a, b)
          if (seen.some((s) => s.fresh)) return
          missed.push(seen.map((s) => s.saw).join('; '))
          if (crash === CRASHES) {
            throw new Error(
              `In ${CRASHES} crashes, neither A nor B answered from the standby: ${missed.join(' | ')}`,
            )
          }
          console.info(`crash ${crash}, seen late: ${missed.at(-1)}; again`)
          await resumeReplay()
          await cluster.startNode(cluster.primary)
          await until('A and B to see the primary up', () =>
            [a, b].every((p) => lastPrimaryEvent(p) === 'primary.up'),
          )
        }
      },
      CRASHES * 60_000,
    )
  },
)
