// Strict revocation through the Redis relay (`freshnessSource: 'redis'`), on a PostgreSQL server of
// this file's own and a real Redis (keys and channel under a prefix of each test's own). Fleets of
// feeds with no PostgreSQL connection of their own, one leader: a child process (to be stopped with
// SIGSTOP, or killed with SIGKILL) or a feed of this process. After every acknowledged revocation,
// each feed that counts as fresh has heard it or has reset since its commit (its cache forgot
// everything), and a reader's verification cache refuses the key, while the fleet runs steadily,
// while the leader is stalled and when it is killed, when Redis drops every connection of the
// fleet, and across a restart of PostgreSQL. Timing is never asserted: waits are polls with
// generous deadlines.
import { type ChildProcess, spawn } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { createKeyward, ErrorType, type Keyward } from '@keyward/core'
import { Redis } from 'ioredis'
import pg from 'pg'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { ReplicaCluster, replicaClusterUnavailable } from '../../../scripts/replica-cluster.mjs'
import type { PostgresKeyStore } from './base.js'
import { createPgKeyStore, type PgChangeFeed, pgChangeFeed } from './pg.js'
import { relayNames } from './redis-relay.js'
import { uniqueSchema } from './test/harness.js'
import { commits, holds, type Watched, watch } from './test/relay-checks.js'
import { revokeUntilFresh, sleep, until } from './test/until.js'

const REDIS_URL = process.env.KEYWARD_REDIS_URL
const FLEET = 100
const BOUND_MS = 250
const MEMBER = fileURLToPath(new URL('./test/relay-member.mjs', import.meta.url))
const missing = replicaClusterUnavailable() ?? (REDIS_URL ? undefined : 'KEYWARD_REDIS_URL is not set')

interface Fleet {
  readonly prefix: string
  /** The name of every Redis connection of the fleet (to kill them). */
  readonly name: string
  readonly members: { readonly feed: PgChangeFeed; readonly watched: Watched }[]
  readonly writerStore: PostgresKeyStore
  readonly writer: Keyward
  readonly committed: Map<string, number>
  /** Feeds of this process, the writer's included. */
  readonly feeds: () => PgChangeFeed[]
}

describe.skipIf(missing)(`a fleet on the Redis relay${missing ? ` (skipped: ${missing})` : ''}`, () => {
  let cluster: ReplicaCluster
  let admin: pg.Pool
  let redis: Redis
  const schema = uniqueSchema()
  const prefixes: string[] = []
  const children: ChildProcess[] = []
  const cleanups: (() => Promise<unknown>)[] = []
  let made = 0

  beforeAll(async () => {
    // Feeds of the relay need no connection of their own: a small server is enough for 100 of them.
    cluster = await ReplicaCluster.start({ standby: false, settings: ['max_connections = 30'] })
    admin = new pg.Pool({ connectionString: cluster.primary.url, max: 1 })
    admin.on('error', () => {})
    redis = new Redis(REDIS_URL!)
  })
  afterEach(async () => {
    for (const child of children.splice(0)) {
      child.kill('SIGCONT')
      child.kill('SIGKILL')
    }
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup().catch(() => {})
  })
  afterAll(async () => {
    for (const prefix of prefixes) {
      const names = relayNames(prefix)
      await redis?.del(names.leader, names.epoch)
    }
    await redis?.quit()
    await admin?.end()
    await cluster?.destroy()
  })

  /** A child process whose feed is on the relay; resolves once it leads. */
  const leaderChild = async (prefix: string, name: string) => {
    const child = spawn(
      process.execPath,
      [
        MEMBER,
        JSON.stringify({
          url: cluster.primary.url,
          schema,
          redisUrl: REDIS_URL,
          prefix,
          boundMs: BOUND_MS,
          name,
        }),
      ],
      { stdio: ['ignore', 'pipe', 'inherit'] },
    )
    children.push(child)
    let leading = false
    child.stdout!.on('data', (data: Buffer) => {
      for (const line of data.toString().split('\n').filter(Boolean)) leading = JSON.parse(line).leading
    })
    await until('the child to lead', () => leading)
    return { child, leading: () => leading }
  }

  /** A fleet of `size` feeds of this process and a writer, on a relay of its own. */
  const fleetOf = async (size: number, child = true) => {
    const prefix = `kw_test_relay_faults:${process.pid}:${Date.now().toString(36)}:${made++}`
    const name = `kwrelayfaults${process.pid}x${made}`
    prefixes.push(prefix)
    const leader = child ? await leaderChild(prefix, name) : undefined
    const redisOption = { url: REDIS_URL!, prefix, options: { connectionName: name } }
    const writerStore = await createPgKeyStore(
      { connectionString: cluster.primary.url, poolConfig: { max: 2 } },
      {
        schema,
        strictRevocation: { boundMs: BOUND_MS },
        changeFeed: { freshnessSource: 'redis', redis: redisOption },
        queryTimeoutMs: 10_000,
      },
    )
    cleanups.push(() => writerStore.close())
    const members: Fleet['members'][number][] = []
    for (let i = 0; i < size; i++) {
      const feed = pgChangeFeed({
        connectionString: cluster.primary.url,
        schema,
        freshnessBoundMs: BOUND_MS,
        freshnessSource: 'redis',
        redis: redisOption,
      })
      members.push({ feed, watched: watch(feed) })
      cleanups.push(() => feed.close())
      void feed.start()
      if (i % 20 === 19) await sleep(50)
    }
    const fleet: Fleet = {
      prefix,
      name,
      members,
      writerStore,
      writer: createKeyward({ store: writerStore }),
      committed: commits(writerStore.changes as PgChangeFeed),
      feeds: () => [...members.map((m) => m.feed), writerStore.changes as PgChangeFeed],
    }
    await until('every feed to be fresh', () => freshShare(fleet) === 1, 60_000).catch((error) => {
      const stale = members.filter((m) => !m.feed.connected)
      throw new Error(
        `${error.message} ${stale.length} stale, ages ${stale.slice(0, 5).map((m) => m.feed.fences!.ageMs)}`,
      )
    })
    return { fleet, leader }
  }
  const freshShare = (fleet: Fleet) =>
    fleet.members.filter((m) => m.feed.connected).length / fleet.members.length

  /**
   * Revokes `count` keys one after another and checks, the moment each is acknowledged, that every
   * feed that counts as fresh holds it. Returns the share of fresh feeds at each acknowledgement.
   */
  const revokeAndCheck = async (fleet: Fleet, count: number, during?: () => void) => {
    const shares: number[] = []
    for (let i = 0; i < count; i++) {
      const { record } = await fleet.writer.issueProjectKey('fleet')
      if (i === 0) during?.()
      await fleet.writer.deactivateKey(record.id)
      // Synchronously, right after the acknowledgement: no event can arrive in between.
      const violators = fleet.members.filter((m) => !holds(m.feed, m.watched, record.hash, fleet.committed))
      expect(violators.length).toBe(0)
      shares.push(freshShare(fleet))
    }
    return shares
  }
  /** Client backends on the primary, this file's admin connection included. */
  const backends = async () =>
    (
      await admin.query<{ n: number }>(
        "SELECT count(*)::int AS n FROM pg_stat_activity WHERE backend_type = 'client backend'",
      )
    ).rows[0]!.n

  it(`runs ${FLEET} feeds on one PostgreSQL connection; every acknowledged revocation holds`, async () => {
    const { fleet } = await fleetOf(FLEET)
    expect(fleet.feeds().filter((feed) => feed.leading)).toHaveLength(0) // the child leads
    // The child's LISTEN connection, the writer's pool (2) and the admin connection.
    expect(await backends()).toBeLessThanOrEqual(4)
    await revokeUntilFresh((count) => revokeAndCheck(fleet, count), 10)
    // A feed that did not reset since before the first revocation heard every one of them.
    const first = Math.min(...fleet.committed.values())
    for (const m of fleet.members) {
      if (m.watched.lastConnected > first) continue
      for (const hash of fleet.committed.keys()) expect(m.watched.heard.has(hash)).toBe(true)
    }
  })

  it('a stalled leader (SIGSTOP): the fleet goes stale, another leads once the lease expires', async () => {
    const { fleet, leader } = await fleetOf(20)
    leader!.child.kill('SIGSTOP')
    await revokeAndCheck(fleet, 6)
    await until('a new leader', () => fleet.feeds().some((feed) => feed.leading))
    await until('the fleet to be fresh again', () => freshShare(fleet) > 0.95, 60_000)
    await revokeAndCheck(fleet, 4)
    leader!.child.kill('SIGCONT')
    // It finds its lease taken and stops leading; the fleet keeps one leader.
    await until('the child to step down', () => !leader!.leading())
    await revokeAndCheck(fleet, 4)
    expect(fleet.feeds().filter((feed) => feed.leading)).toHaveLength(1)
  })

  it('a killed leader (SIGKILL): another leads once the lease expires; revocations hold meanwhile', async () => {
    const { fleet, leader } = await fleetOf(20)
    // A reader with a verification cache on the relay, holding a key in its cache.
    const readerStore = await createPgKeyStore(
      { connectionString: cluster.primary.url, poolConfig: { max: 1 } },
      {
        schema,
        strictRevocation: { boundMs: BOUND_MS },
        changeFeed: { freshnessSource: 'redis', redis: { url: REDIS_URL!, prefix: fleet.prefix } },
        migrate: false,
        queryTimeoutMs: 10_000,
      },
    )
    cleanups.push(() => readerStore.close())
    const reader = createKeyward({ store: readerStore, cache: {} })
    const { key, record } = await fleet.writer.issueProjectKey('fleet')
    const verify = () =>
      reader.authenticate({ projectKey: key }, { scope: 'project', projectId: 'fleet' }).then(
        () => 'accepted',
        (error: { type?: string }) => error.type ?? String(error),
      )
    await until(
      'the reader to cache the key',
      async () => (await verify()) === 'accepted' && reader.cacheStats()!.entries > 0,
    )
    leader!.child.kill('SIGKILL')
    await fleet.writer.deactivateKey(record.id)
    expect(await verify()).toBe(ErrorType.keyInvalid)
    await revokeAndCheck(fleet, 6)
    // The reader's feed stands for the lease too: it may be the one that takes it.
    const candidates = () => [...fleet.feeds(), readerStore.changes as PgChangeFeed]
    await until('a new leader', () => candidates().some((feed) => feed.leading))
    await until('the fleet to be fresh again', () => freshShare(fleet) > 0.95, 60_000)
    await revokeUntilFresh((count) => revokeAndCheck(fleet, count), 4)
  })

  it('Redis drops every connection of the fleet: each resets, then is fresh again', async () => {
    const { fleet } = await fleetOf(20, false)
    const connected = fleet.members.map((m) => m.watched.lastConnected)
    const killed = await killConnections(fleet.name)
    expect(killed).toBeGreaterThan(40)
    await revokeAndCheck(fleet, 6)
    await until('the fleet to be fresh again', () => freshShare(fleet) > 0.95, 60_000)
    // Every feed lost its subscription, so each reset.
    expect(fleet.members.every((m, i) => m.watched.lastConnected > connected[i]!)).toBe(true)
    expect(fleet.feeds().filter((feed) => feed.leading)).toHaveLength(1)
    await revokeAndCheck(fleet, 4)
  })

  it('a restart of PostgreSQL: stale while it is down, then a new relay session and a fresh fleet', async () => {
    const { fleet } = await fleetOf(20, false)
    await cluster.stopNode(cluster.primary, 'immediate')
    await until('every feed to be stale', () => freshShare(fleet) === 0)
    await cluster.startNode(cluster.primary)
    await until('the writer to be fresh again', () => fleet.writerStore.changes?.connected === true, 60_000)
    await until('the fleet to be fresh again', () => freshShare(fleet) > 0.95, 90_000)
    await revokeUntilFresh((count) => revokeAndCheck(fleet, count), 6)
  })

  /** Kills every Redis connection named `name` (the fleet's, not other users'); returns how many. */
  async function killConnections(name: string): Promise<number> {
    const list = (await redis.client('LIST')) as string
    let killed = 0
    for (const line of list.split('\n')) {
      if (!line.includes(` name=${name} `)) continue
      killed += Number(await redis.client('KILL', 'ID', line.match(/^id=(\d+)/)![1]!))
    }
    return killed
  }
})
