// The Redis relay of `freshnessSource: 'redis'`, on a real Redis and a real PostgreSQL. The first
// tests play the leader by hand (the lease is held by a token no feed has, so no feed leads) to
// check what a feed counts as evidence; the others run real leaders. Timing is never asserted:
// waits are polls with generous deadlines.
import { createKeyward, errorResponse } from '@keyward/core'
import { Redis } from 'ioredis'
import pg from 'pg'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import type { PostgresKeyStore } from './base.js'
import { ChangeFeedLateError, RevocationUnconfirmedError } from './fences.js'
import { createPgKeyStore, type PgChangeFeed, pgChangeFeed } from './pg.js'
import { RELAY_APPLICATION, relayNames } from './redis-relay.js'
import { PG_URL, uniqueSchema } from './test/harness.js'
import { commits, holds, watch } from './test/relay-checks.js'
import { TcpProxy } from './test/tcp-proxy.js'

const REDIS_URL = process.env.KEYWARD_REDIS_URL
const BOUND_MS = 250
// The hand-led feed's bound: long enough that a poll starved on a loaded machine still sees the
// feed fresh before it goes late with no heartbeat to follow.
const HAND_LED_BOUND_MS = 2_000
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))
const until = async (what: string, check: () => boolean | Promise<boolean>, timeoutMs = 20_000) => {
  const deadline = Date.now() + timeoutMs
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`Timed out waiting for ${what}.`)
    await sleep(10)
  }
}
let prefixes = 0
const uniquePrefix = () => `kw_test_relay:${process.pid}:${Date.now().toString(36)}:${prefixes++}`
const change = (schema: string, hash: string) => JSON.stringify({ schema, hash, id: 'key_1' })

describe('the Redis relay: options', () => {
  it('refuses, naming the option, a relay without a bound, without Redis or with a URL of another scheme', () => {
    const base = { connectionString: 'postgres://u@db/keys', freshnessSource: 'redis' } as const
    expect(() => pgChangeFeed({ ...base, redis: { url: 'redis://cache:6379' } })).toThrow(
      new TypeError(
        "pgChangeFeed: `freshnessSource: 'redis'` needs option `freshnessBoundMs` (strict revocation).",
      ),
    )
    expect(() => pgChangeFeed({ ...base, freshnessBoundMs: 250 })).toThrow(
      new TypeError("pgChangeFeed: `freshnessSource: 'redis'` needs option `redis` ({ url } or { client })."),
    )
    expect(() =>
      pgChangeFeed({ ...base, freshnessBoundMs: 250, redis: { url: 'http://cache:6379' } }),
    ).toThrow(new TypeError('pgChangeFeed: option `redis.url` must be a redis:// or rediss:// URL.'))
    expect(() => pgChangeFeed({ ...base, freshnessBoundMs: 250, redis: { client: {} as never } })).toThrow(
      new TypeError('pgChangeFeed: option `redis.client` must be an ioredis client.'),
    )
    expect(() =>
      pgChangeFeed({ ...base, freshnessBoundMs: 250, redis: { url: 'redis://cache:6379', prefix: '' } }),
    ).toThrow(new TypeError('pgChangeFeed: option `redis.prefix` must be a non-empty string.'))
    expect(() => pgChangeFeed({ ...base, freshnessSource: 'gossip' as never })).toThrow(
      "pgChangeFeed: option `freshnessSource` must be 'beacon', 'fences' or 'redis', got gossip.",
    )
  })
})

// Named with both markers, so that CI's summary counts it for each service.
const SUITE = 'the Redis relay (set KEYWARD_PG_URL to run) (set KEYWARD_REDIS_URL to run)'

describe.skipIf(!PG_URL || !REDIS_URL)(SUITE, () => {
  let admin: Redis
  const cleanups: (() => Promise<unknown>)[] = []
  const prefixesMade: string[] = []

  beforeAll(() => {
    admin = new Redis(REDIS_URL!)
  })
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup().catch(() => {})
  })
  afterAll(async () => {
    for (const prefix of prefixesMade) {
      const names = relayNames(prefix)
      await admin.del(names.leader, names.epoch)
    }
    await admin.quit()
  })

  /**
   * A feed on a relay of its own whose lease is held by nobody's token, so the test plays the
   * leader. Counts the answers of the feed's epoch reads, and names its connections.
   */
  const handLed = async () => {
    const prefix = uniquePrefix()
    prefixesMade.push(prefix)
    const names = relayNames(prefix)
    await admin.set(names.leader, 'the-test', 'PX', 120_000)
    const schema = 'relay_test'
    const base = new Redis(REDIS_URL!, { lazyConnect: true })
    const name = `kwrelay${prefixes}${process.pid}`
    let reads = 0
    const client = {
      duplicate: (override?: Record<string, unknown>) => {
        const made = base.duplicate({ ...override, connectionName: name })
        const get = made.get.bind(made)
        made.get = ((key: string) =>
          get(key).then((value) => {
            reads++
            return value
          })) as typeof made.get
        return made
      },
    }
    const feed = pgChangeFeed({
      connectionString: PG_URL!,
      schema,
      freshnessBoundMs: HAND_LED_BOUND_MS,
      freshnessSource: 'redis',
      redis: { client: client as never, prefix },
      heartbeatMs: 200,
    })
    const events: string[] = []
    feed.subscribe((event) => {
      events.push(
        event.type === 'changed'
          ? `changed ${event.hash}`
          : event.type === 'disconnected' && event.error instanceof ChangeFeedLateError
            ? 'late'
            : event.type,
      )
    })
    cleanups.push(() => feed.close())
    await feed.start()
    await until(
      'the subscription',
      async () => ((await admin.pubsub('NUMSUB', names.channel)) as [string, number])[1] === 1,
    )
    /** Waits until the feed has read the epoch (again) after this call. */
    const readAfter = async () => {
      const before = reads
      await until('an epoch read', () => reads >= before + 2)
    }
    const publish = (message: string) => admin.publish(names.channel, message)
    const killSubscription = async () => {
      const list = (await admin.client('LIST')) as string
      for (const line of list.split('\n')) {
        if (line.includes(`name=${name} `) && / sub=1 /.test(line)) {
          await admin.client('KILL', 'ID', line.match(/^id=(\d+)/)![1]!)
        }
      }
    }
    return { feed, names, schema, events, readAfter, publish, killSubscription }
  }

  it('is fresh only from a heartbeat whose epoch is above a read made after its session was seen', async () => {
    const { feed, names, schema, events, readAfter, publish } = await handLed()
    await readAfter()
    // The first message of a session proves nothing: reads made before it are void.
    const epoch = await admin.incr(names.epoch)
    await publish(`h s1 ${epoch}`)
    await readAfter()
    expect(feed.connected).toBe(false)
    // A heartbeat whose epoch is not above the reads' (the INCR was before them) proves nothing.
    await publish(`h s1 ${epoch}`)
    await sleep(50)
    expect(feed.connected).toBe(false)
    expect(events).not.toContain('connected')

    // A change, then a heartbeat of a later epoch: the change is reported before the feed is fresh.
    const next = await admin.incr(names.epoch)
    await publish(`c s1 ${change(schema, 'h1')}`)
    await publish(`c s1 ${change('another_schema', 'h2')}`)
    await publish(`h s1 ${next}`)
    await until('the feed to be fresh', () => feed.connected)
    expect(events).toEqual(['changed h1', 'connected'])
    expect(feed.fences!.ageMs).toBeLessThan(HAND_LED_BOUND_MS)
  })

  it('a session it has not seen resets it at once; it is fresh again only from reads made after', async () => {
    const { feed, names, events, readAfter, publish } = await handLed()
    await publish('h s1 0')
    await readAfter()
    await publish(`h s1 ${await admin.incr(names.epoch)}`)
    await until('the feed to be fresh', () => feed.connected)

    // Another leader (or the same leader's new connection): the relay may have a gap before it.
    await publish('h s2 0')
    await until('the feed to be disconnected', () => events.at(-1) === 'disconnected')
    expect(feed.connected).toBe(false)
    // Its heartbeat after reads made before it was seen proves nothing...
    const stale = await admin.incr(names.epoch)
    await publish(`h s2 ${stale}`)
    await sleep(50)
    // ...unless a read was made after the session was seen and before that INCR.
    await readAfter()
    await publish(`h s2 ${await admin.incr(names.epoch)}`)
    await until('the feed to be fresh again', () => feed.connected)
    // Sessions seen since the last reset stay good: s1 again resets nothing.
    await publish(`h s1 ${await admin.incr(names.epoch)}`)
    await sleep(50)
    expect(events.filter((e) => e === 'disconnected')).toHaveLength(1)
  })

  it('goes stale when heartbeats stop, and disconnected at once when its subscription is killed', async () => {
    const { feed, names, events, readAfter, publish, killSubscription } = await handLed()
    await publish('h s1 0')
    await readAfter()
    await publish(`h s1 ${await admin.incr(names.epoch)}`)
    await until('the feed to be fresh', () => feed.connected)
    // No heartbeat: stale within the bound, reported as late.
    await until('the feed to be late', () => events.includes('late'))
    expect(feed.connected).toBe(false)

    await readAfter()
    await publish(`h s1 ${await admin.incr(names.epoch)}`)
    await until('the feed to be fresh again', () => feed.connected)
    const disconnects = events.filter((e) => e === 'disconnected').length
    await killSubscription()
    await until(
      'the feed to be disconnected',
      () => events.filter((e) => e === 'disconnected').length > disconnects,
    )
    expect(feed.connected).toBe(false)
    // Resubscribed, the same session is new to the new subscription: a heartbeat with a later
    // epoch than the reads of the lost subscription proves nothing until it has been seen once.
    await until(
      'the subscription again',
      async () => ((await admin.pubsub('NUMSUB', names.channel)) as [string, number])[1] === 1,
    )
    await publish(`h s1 ${await admin.incr(names.epoch)}`)
    await sleep(50)
    expect(feed.connected).toBe(false)
    await readAfter()
    await publish(`h s1 ${await admin.incr(names.epoch)}`)
    await until('the feed to be fresh again', () => feed.connected)
  })

  describe('with real leaders', () => {
    const schema = uniqueSchema()
    let adminPg: pg.Pool
    const stores: PostgresKeyStore[] = []

    beforeAll(async () => {
      adminPg = new pg.Pool({ connectionString: PG_URL, max: 1 })
    })
    afterAll(async () => {
      for (const store of stores) await store.close()
      await adminPg.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`)
      await adminPg.end()
    })

    const storeOn = async (prefix: string, redisUrl = REDIS_URL!) => {
      const store = await createPgKeyStore(
        { connectionString: PG_URL!, poolConfig: { max: 1 } },
        {
          schema,
          strictRevocation: { boundMs: BOUND_MS },
          changeFeed: { freshnessSource: 'redis', redis: { url: redisUrl, prefix } },
          queryTimeoutMs: 5000,
        },
      )
      stores.push(store)
      return store
    }
    const feedOn = async (prefix: string, redisUrl = REDIS_URL!) => {
      const feed = pgChangeFeed({
        connectionString: PG_URL!,
        schema,
        freshnessBoundMs: BOUND_MS,
        freshnessSource: 'redis',
        redis: { url: redisUrl, prefix },
      })
      const watched = watch(feed)
      cleanups.push(() => feed.close())
      await feed.start()
      return { feed, watched }
    }

    it('one leader relays every change; once a revocation is acknowledged every fresh feed has heard it', async () => {
      const prefix = uniquePrefix()
      prefixesMade.push(prefix)
      const writerStore = await storeOn(prefix)
      const writer = createKeyward({ store: writerStore })
      const members = [await feedOn(prefix), await feedOn(prefix), await feedOn(prefix)]
      const feeds = [...members.map((m) => m.feed), writerStore.changes as PgChangeFeed]
      await until('every feed to be fresh', () => feeds.every((feed) => feed.connected))
      expect(feeds.filter((feed) => feed.leading)).toHaveLength(1)
      // Only the leader listens on the primary.
      for (let i = 0; i < 5; i++) {
        const { record } = await writer.issueProjectKey('relay')
        await writer.deactivateKey(record.id)
        for (const member of members) {
          // No leader changed: a fresh feed heard it.
          if (member.feed.connected) expect(member.watched.heard.has(record.hash)).toBe(true)
        }
      }
      expect(members.filter((m) => m.feed.connected).length).toBeGreaterThan(0)
    })

    it("a leader's new connection (a new session) resets every feed, so a change committed in between cannot be missed", async () => {
      const prefix = uniquePrefix()
      prefixesMade.push(prefix)
      const writerStore = await storeOn(prefix)
      const writer = createKeyward({ store: writerStore })
      const committed = commits(writerStore.changes as PgChangeFeed)
      const members = [await feedOn(prefix), await feedOn(prefix)]
      const feeds = [...members.map((m) => m.feed), writerStore.changes as PgChangeFeed]
      await until('every feed to be fresh', () => feeds.every((feed) => feed.connected))
      for (let i = 0; i < 10; i++) {
        const { record } = await writer.issueProjectKey('relay')
        await until('the fleet to be fresh', () => members.every((m) => m.feed.connected))
        // The leader's LISTEN connection ends; it opens another within milliseconds, well inside the
        // bound, while the revocation commits: the old connection may never deliver it.
        const ended = adminPg.query(
          `SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = $1 AND datname = current_database()`,
          [RELAY_APPLICATION],
        )
        await writer.deactivateKey(record.id)
        await ended
        for (const member of members)
          expect(holds(member.feed, member.watched, record.hash, committed)).toBe(true)
      }
    })

    it('a stalled leader: the fleet goes stale, another takes the lease once it expires, revocations hold', async () => {
      const prefix = uniquePrefix()
      prefixesMade.push(prefix)
      const url = new URL(REDIS_URL!)
      const proxy = await TcpProxy.start(url.hostname, Number(url.port || 6379))
      cleanups.push(() => proxy.stop())
      // The first feed leads; its Redis connections go through the proxy.
      const first = await feedOn(prefix, proxy.through(REDIS_URL!))
      await until('the first feed to lead', () => first.feed.leading)
      const writerStore = await storeOn(prefix)
      const writer = createKeyward({ store: writerStore })
      const committed = commits(writerStore.changes as PgChangeFeed)
      const other = await feedOn(prefix)
      await until('the fleet to be fresh', () => other.feed.connected && writerStore.changes!.connected)

      proxy.stall()
      const { record } = await writer.issueProjectKey('relay')
      await writer.deactivateKey(record.id)
      // Only the stalled leader heard it: a new leader's session reset the others after it.
      expect(holds(other.feed, other.watched, record.hash, committed)).toBe(true)
      await until('a new leader', () => other.feed.leading || (writerStore.changes as PgChangeFeed).leading)
      await until('the fleet to be fresh again', () => other.feed.connected && writerStore.changes!.connected)
      for (let i = 0; i < 3; i++) {
        const { record: next } = await writer.issueProjectKey('relay')
        await writer.deactivateKey(next.id)
        expect(holds(other.feed, other.watched, next.hash, committed)).toBe(true)
      }
      expect(first.feed.connected).toBe(false)
      proxy.resume()
      // The old leader finds its lease taken and stops; it follows the new one.
      await until(
        'the old leader to step down and be fresh',
        () => !first.feed.leading && first.feed.connected,
      )
    })

    it('refuses to acknowledge a revocation while no heartbeat comes (Redis unreachable)', async () => {
      const prefix = uniquePrefix()
      prefixesMade.push(prefix)
      const url = new URL(REDIS_URL!)
      const proxy = await TcpProxy.start(url.hostname, Number(url.port || 6379))
      cleanups.push(() => proxy.stop())
      const store = await storeOn(prefix, proxy.through(REDIS_URL!))
      const writer = createKeyward({ store })
      await until('the store to be fresh', () => store.changes!.connected)
      const { record } = await writer.issueProjectKey('relay')
      const { record: second } = await writer.issueProjectKey('relay')
      proxy.stall()
      await expect(store.deactivateKeys([record.id])).rejects.toBeInstanceOf(RevocationUnconfirmedError)
      await until('the feed to be stale', () => !store.changes!.connected)
      // Through the key service: committed, and the answer says so (not a store outage).
      const failure = await writer.deactivateKey(second.id).catch((error: unknown) => error)
      expect(failure).toBeInstanceOf(RevocationUnconfirmedError)
      const { status, headers, body } = errorResponse(failure)
      expect(status).toBe(503)
      expect(headers['retry-after']).toMatch(/^\d+$/)
      expect(headers['cache-control']).toBe('no-store')
      expect(JSON.parse(body).detail).toEqual([
        {
          loc: [],
          msg: expect.stringMatching(/^The revocation was committed, but its confirmation timed out/),
          type: 'revocation_unconfirmed',
        },
      ])
      expect(await store.findKeyById(second.id)).toMatchObject({ active: false })
      proxy.resume()
    })
  })
})
