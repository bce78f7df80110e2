// Strict revocation for a fleet: 100 change feeds (each one a process's feed, with a connection of
// its own) and a writer on a PostgreSQL server of this file's own, with the beacon for freshness.
// After every acknowledged revocation, each feed has either heard it, or counts as stale (its cache
// is bypassed), or has reset since its commit (its cache forgot everything), while the fleet runs steadily, while feeds are stalled, while the leader is stalled
// and when it is killed, and across a restart of the server. Timing is never asserted: waits are
// polls with generous deadlines.
import { type ChildProcess, spawn } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { createKeyward, ErrorType, type Keyward } from '@keyward/core'
import pg from 'pg'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ReplicaCluster, replicaClusterUnavailable } from '../../../scripts/replica-cluster.mjs'
import type { PostgresKeyStore } from './base.js'
import { createPgKeyStore, type PgChangeFeed, pgChangeFeed } from './pg.js'

// Every process of this fleet takes its freshness from the shared beacon (fences are the default).
const BEACON = { freshnessSource: 'beacon' } as const

import { BEACON_CHANNEL, BEACON_LOCK_CLASS } from './pg-beacon.js'
import { uniqueSchema } from './test/harness.js'
import { commits, holds, type Watched, watch } from './test/relay-checks.js'
import { TcpProxy } from './test/tcp-proxy.js'
import { revokeUntilFresh, sleep, until } from './test/until.js'

const FLEET = 100
const BOUND_MS = 250
const MEMBER = fileURLToPath(new URL('./test/relay-member.mjs', import.meta.url))
const missing = replicaClusterUnavailable()

interface Member {
  readonly feed: PgChangeFeed
  readonly watched: Watched
}

describe.skipIf(missing)(
  `a fleet of ${FLEET} feeds on one primary${missing ? ` (skipped: ${missing})` : ''}`,
  () => {
    let cluster: ReplicaCluster
    let admin: pg.Pool
    let writerStore: PostgresKeyStore
    let writer: Keyward
    /** When each revocation was committed, as the writer's store reports it. */
    let committed: Map<string, number>
    /**
     * The first process, a child of this one: it takes the lead, and is stalled (SIGSTOP). In a
     * process of its own, the 100 feeds of this one, busy on a loaded machine, do not keep its
     * beacon from the server for the second after which the server would end its session.
     */
    let first: ChildProcess
    let firstLeads = false
    const schema = uniqueSchema()
    const fleet: Member[] = []
    /** The proxy of five feeds of the fleet and of a reader with a cache, to be stalled. */
    let stalledFeeds: TcpProxy
    const proxies: TcpProxy[] = []
    const stores: PostgresKeyStore[] = []

    const join = async (through?: TcpProxy): Promise<Member> => {
      const url = through ? through.through(cluster.primary.url) : cluster.primary.url
      const feed = pgChangeFeed({
        connectionString: url,
        schema,
        freshnessBoundMs: BOUND_MS,
        freshnessSource: 'beacon',
        reconnectMaxMs: 500,
      })
      const member = { feed, watched: watch(feed) }
      fleet.push(member)
      void feed.start()
      return member
    }
    const proxy = async () => {
      const started = await TcpProxy.start('127.0.0.1', cluster.primary.port)
      proxies.push(started)
      return started
    }
    const freshShare = () => fleet.filter((m) => m.feed.connected).length / fleet.length
    /** The feeds of the fleet and of the stores. */
    const everyFeed = () => [
      ...fleet.map((m) => m.feed),
      ...stores.map((store) => store.changes as PgChangeFeed),
    ]
    /** How many lead: feeds of this process, and the first process. */
    const leading = () => everyFeed().filter((feed) => feed.leading).length + (firstLeads ? 1 : 0)

    /**
     * Revokes `count` keys one after another and checks, the moment each is acknowledged, that every
     * feed that counts as fresh has heard it or reset since its commit (a feed whose connection was
     * ended, the killed leader's, listens again from its reconnection on). Returns the share of
     * fresh feeds at each acknowledgement.
     */
    const revokeAndCheck = async (count: number, during?: () => void) => {
      const shares: number[] = []
      for (let i = 0; i < count; i++) {
        const { record } = await writer.issueProjectKey('fleet')
        if (i === 0) during?.()
        await writer.deactivateKey(record.id)
        // Synchronously, right after the acknowledgement: no event can arrive in between.
        const violators = fleet.filter((m) => !holds(m.feed, m.watched, record.hash, committed))
        expect(violators.length).toBe(0)
        shares.push(freshShare())
      }
      return shares
    }

    beforeAll(async () => {
      cluster = await ReplicaCluster.start({ standby: false, settings: ['max_connections = 300'] })
      admin = new pg.Pool({ connectionString: cluster.primary.url, max: 2 })
      admin.on('error', () => {})
      first = spawn(
        process.execPath,
        [MEMBER, JSON.stringify({ url: cluster.primary.url, schema, boundMs: BOUND_MS })],
        { stdio: ['ignore', 'pipe', 'inherit'] },
      )
      first.stdout!.on('data', (data: Buffer) => {
        for (const line of data.toString().split('\n').filter(Boolean)) firstLeads = JSON.parse(line).leading
      })
      await until('the first process to lead', () => firstLeads)
      writerStore = await createPgKeyStore(
        { connectionString: cluster.primary.url, poolConfig: { max: 2 } },
        { schema, strictRevocation: { boundMs: BOUND_MS }, changeFeed: BEACON, queryTimeoutMs: 10_000 },
      )
      stores.push(writerStore)
      writer = createKeyward({ store: writerStore })
      committed = commits(writerStore.changes as PgChangeFeed)
      await until('the writer to be fresh', () => writerStore.changes?.connected === true)
      stalledFeeds = await proxy()
    })

    afterAll(async () => {
      first?.kill('SIGCONT')
      first?.kill('SIGKILL')
      // A test that failed may have left a proxy stalled, and a close waiting on it.
      for (const started of proxies) started.resume()
      for (const member of fleet) await member.feed.close()
      for (const store of stores) await store.close()
      for (const started of proxies) await started.stop()
      await admin?.end()
      await cluster?.destroy()
    })

    it('runs on one beacon: one leader, notifications per second independent of the fleet, every feed fresh', async () => {
      // The fleet joins in waves.
      for (let i = 0; i < FLEET; i++) {
        await join(i < 5 ? stalledFeeds : undefined)
        if (i % 20 === 19) await sleep(100)
      }
      await until('every feed to be fresh', () => freshShare() === 1, 60_000)
      expect(leading()).toBe(1)
      expect(firstLeads).toBe(true)

      // Everything on the beacon channel over 2 s, as any listener hears it.
      const listener = new pg.Client({ connectionString: cluster.primary.url })
      await listener.connect()
      let beacons = 0
      listener.on('notification', () => beacons++)
      await listener.query(`LISTEN ${BEACON_CHANNEL}`)
      await sleep(2000)
      await listener.end()
      // One beacon every third of the bound: 24 in 2 s (fewer on a loaded machine), whatever the
      // size of the fleet; a fence of each feed's own every quarter of the bound would be 3200.
      expect(beacons).toBeGreaterThanOrEqual(8)
      expect(beacons).toBeLessThanOrEqual(48)

      await revokeUntilFresh(revokeAndCheck, 10)
    })

    it('stalled feeds: each is stale, never fresh without a revocation acknowledged meanwhile; fresh again after', async () => {
      const stalled = fleet.slice(0, 5)
      const cached = await createPgKeyStore(
        { connectionString: stalledFeeds.through(cluster.primary.url), poolConfig: { max: 1 } },
        {
          schema,
          strictRevocation: { boundMs: BOUND_MS },
          changeFeed: BEACON,
          migrate: false,
          queryTimeoutMs: 2000,
        },
      )
      stores.push(cached)
      const reader = createKeyward({ store: cached, cache: {} })
      const { key, record } = await writer.issueProjectKey('fleet')
      const verify = () =>
        reader.authenticate({ projectKey: key }, { scope: 'project', projectId: 'fleet' }).then(
          () => 'accepted',
          (error: { type?: string }) => error.type ?? String(error),
        )
      await until(
        'the reader to cache the key',
        async () => (await verify()) === 'accepted' && reader.cacheStats()!.entries > 0,
      )

      stalledFeeds.stall()
      await writer.deactivateKey(record.id)
      // The reader's lookups go through the stalled proxy too: it cannot answer, and must not accept.
      expect(await Promise.race([verify(), sleep(BOUND_MS * 4).then(() => 'no answer')])).not.toBe('accepted')
      expect(stalled.every((m) => !m.feed.connected)).toBe(true)
      await revokeAndCheck(5)
      expect(stalled.every((m) => !m.feed.connected)).toBe(true)

      stalledFeeds.resume()
      await until('the stalled feeds to be fresh again', () => stalled.every((m) => m.feed.connected), 60_000)
      expect(await verify()).toBe(ErrorType.keyInvalid)
      await revokeAndCheck(5)
    })

    it('a stalled leader: the fleet counts as stale until the server ends its session, then a new leader', async () => {
      expect(firstLeads).toBe(true)
      await until('the fleet to be fresh', () => freshShare() > 0.95, 60_000)

      first.kill('SIGSTOP')
      // No beacon: the feeds go stale (fail safe) rather than stay fresh on old evidence, and every
      // revocation acknowledged meanwhile holds.
      await revokeAndCheck(8)
      // The server ends the stalled leader's idle session; another feed takes the lead: one of the
      // fleet, the writer's or the reader's of the test above (every feed stands for the lock).
      await until('a new leader', () => everyFeed().some((feed) => feed.leading), 60_000)
      await until('the fleet to be fresh again', () => freshShare() > 0.95, 60_000)
      first.kill('SIGCONT')
      // It finds its session ended: it follows (or, should the lead be free, leads) like any other.
      await revokeAndCheck(5)
      await until('one leader', () => leading() === 1)
    })

    it('a killed leader: another takes the lead and every acknowledged revocation holds meanwhile', async () => {
      const before = await leaderPid()
      expect(before).toBeDefined()
      await revokeAndCheck(8, () => void terminateLeader())
      // A new session holds the lock (perhaps the same process's, reconnected) and sends the beacon.
      await until('a new leader', async () => ![undefined, before].includes(await leaderPid()), 60_000)
      await until('one leader', () => leading() === 1)
      await until('the fleet to be fresh again', () => freshShare() > 0.95, 60_000)
      await revokeUntilFresh(revokeAndCheck, 5)
    })

    it('a restart of the server: every feed stale while it is down, then one leader and a fresh fleet', async () => {
      await cluster.stopNode(cluster.primary, 'immediate')
      await until('every feed to be stale', () => freshShare() === 0)
      await cluster.startNode(cluster.primary)
      await until('the writer to be fresh again', () => writerStore.changes?.connected === true, 60_000)
      await until('the fleet to be fresh again', () => freshShare() > 0.95, 90_000)
      await until('one leader', () => leading() === 1)
      await revokeUntilFresh(revokeAndCheck, 8)
    })

    /** The server process of the session that holds the beacon's lock. */
    async function leaderPid(): Promise<number | undefined> {
      const { rows } = await admin.query<{ pid: number }>(
        `SELECT pid FROM pg_locks WHERE locktype = 'advisory' AND granted AND classid = $1::bigint::oid`,
        [BEACON_LOCK_CLASS],
      )
      return rows[0]?.pid
    }

    /** Ends the session that holds the beacon's lock, as a crash of its process would. */
    async function terminateLeader() {
      await admin.query(
        `SELECT pg_terminate_backend(pid) FROM pg_locks
        WHERE locktype = 'advisory' AND granted AND classid = $1::bigint::oid`,
        [BEACON_LOCK_CLASS],
      )
    }
  },
)
