// The change feed of `freshnessSource: 'redis'`: no PostgreSQL connection of its own (but while it
// leads the relay), its changes and its freshness from the relay's channel in Redis.
import { KeyChangeHub } from '@keyward/core'
import type pg from 'pg'
import { changeOf } from './feed-payload.js'
import type { FeedOutages } from './feed-spans.js'
import { ChangeFeedLateError, FeedFences } from './fences.js'
import { RedisRelay, type RelayRedisClient, relayNames } from './redis-relay.js'

/**
 * Where the Redis relay of `freshnessSource: 'redis'` runs: a Redis URL (the feed loads `ioredis`,
 * an optional peer dependency), or an ioredis client of yours, which the feed duplicates for its
 * own connections (two, and one more while it leads) and never uses itself.
 *
 * @example
 * ```ts
 * const changes = pgChangeFeed({
 *   connectionString: process.env.DIRECT_URL!,
 *   freshnessBoundMs: 250,
 *   freshnessSource: 'redis',
 *   redis: { url: process.env.REDIS_URL! },
 * })
 * ```
 */
export type PgChangeFeedRedis = (
  | {
      /** A `redis://` or `rediss://` URL. */
      readonly url: string
      /** More ioredis options of the feed's connections (TLS, ...). */
      readonly options?: Record<string, unknown>
    }
  | {
      /** An ioredis client (`new Redis(...)`), duplicated for the feed's own connections. */
      readonly client: RelayRedisClient
    }
) & {
  /**
   * The prefix of the relay's keys and channel. Processes share a relay when they share the
   * Redis, the prefix and the bound. Default `keyward:<host>:<port>/<database>:<schema>:<bound>`
   * from `connectionString`; set one of your own when two databases are reached by the same host
   * name (each database must have a relay of its own).
   */
  readonly prefix?: string
}

/** The feed's `connected` is also false while its evidence is late. */
class RelayHub extends KeyChangeHub {
  readonly fences: FeedFences
  constructor(fences: FeedFences) {
    super()
    this.fences = fences
  }
  /** What was last published: `connected` or `disconnected`. */
  get announced(): boolean {
    return super.connected
  }
  override get connected(): boolean {
    return super.connected && this.fences.fresh
  }
}

/** The default prefix: the database of `connectionString`, the schema and the bound. */
function defaultPrefix(connectionString: string, schema: string, boundMs: number): string {
  let database = 'database'
  try {
    const url = new URL(connectionString)
    database = `${url.hostname}:${url.port || 5432}${url.pathname}`
  } catch {
    // A connection string that is not a URL (key=value pairs): one relay per schema and bound.
  }
  return `keyward:${database}:${schema}:${boundMs}`
}

/** @internal Connections made from the option `redis`. */
function connections(
  who: string,
  redis: PgChangeFeedRedis,
): (override: Record<string, unknown>) => Promise<RelayRedisClient> {
  const common = { lazyConnect: true }
  if ('client' in redis) {
    if (typeof redis.client?.duplicate !== 'function') {
      throw new TypeError(`${who}: option \`redis.client\` must be an ioredis client.`)
    }
    return async (override) => redis.client.duplicate({ ...common, ...override })
  }
  if (typeof redis.url !== 'string' || !/^rediss?:\/\//.test(redis.url)) {
    throw new TypeError(`${who}: option \`redis.url\` must be a redis:// or rediss:// URL.`)
  }
  type RedisClass = new (url: string, options: Record<string, unknown>) => RelayRedisClient
  let loaded: Promise<RedisClass> | undefined
  return async (override) => {
    loaded ??= import('ioredis').then(
      (module) => ((module as { Redis?: unknown }).Redis ?? module.default) as RedisClass,
      () => {
        throw new Error(
          `${who}: \`freshnessSource: 'redis'\` with \`redis: { url }\` needs the package ioredis (npm install ioredis).`,
        )
      },
    )
    const Redis = await loaded
    return new Redis(redis.url, { ...redis.options, ...common, ...override })
  }
}

/** What {@link relayFeed} needs of `pgChangeFeed`'s options, checked. */
export interface RelayFeedSettings {
  readonly who: string
  readonly connectionString: string
  readonly clientConfig: Omit<pg.ClientConfig, 'connectionString'> | undefined
  readonly schema: string
  readonly boundMs: number
  readonly heartbeatMs: number
  readonly redis: PgChangeFeedRedis | undefined
  /** The spans of the feed's outages (option `telemetry`). */
  readonly outages: FeedOutages | undefined
}

/** The shape `pgChangeFeed` returns (kept here to avoid an import cycle). */
export interface RelayFeed extends KeyChangeHub {
  start(): Promise<void>
  close(): Promise<void>
  readonly fences?: FeedFences
  readonly leading: boolean
}

/** @internal The change feed of `pgChangeFeed({ freshnessSource: 'redis' })`. */
export function relayFeed(settings: RelayFeedSettings): RelayFeed {
  const { who, schema, boundMs } = settings
  const redis = settings.redis
  if (typeof redis !== 'object' || redis === null) {
    throw new TypeError(
      `${who}: \`freshnessSource: 'redis'\` needs option \`redis\` ({ url } or { client }).`,
    )
  }
  if (redis.prefix !== undefined && (typeof redis.prefix !== 'string' || redis.prefix === '')) {
    throw new TypeError(`${who}: option \`redis.prefix\` must be a non-empty string.`)
  }
  const make = connections(who, redis)
  const everyMs = Math.max(1, Math.floor(boundMs / 4))
  let relay: RedisRelay | undefined
  const fences = new FeedFences(boundMs, () => relay?.request())
  const hub = new RelayHub(fences)
  const feed = hub as RelayHub & RelayFeed
  let started = false
  let closed = false
  let ticker: ReturnType<typeof setInterval> | undefined

  const late = () => {
    if (!fences.fresh && hub.announced) {
      feed.publish({ type: 'disconnected', error: new ChangeFeedLateError(boundMs) })
    }
  }
  relay = new RedisRelay({
    names: relayNames(redis.prefix ?? defaultPrefix(settings.connectionString, schema, boundMs)),
    schema,
    redis: make,
    pgConfig: { ...settings.clientConfig, connectionString: settings.connectionString },
    mine: (payload) => changeOf(payload, schema) !== null,
    fences,
    everyMs,
    hooks: {
      change: (payload) => {
        const change = changeOf(payload, schema)
        if (change) feed.publish(change)
      },
      reset: (error) => {
        settings.outages?.failed(error)
        if (hub.announced) feed.publish({ type: 'disconnected', ...(error === undefined ? {} : { error }) })
      },
      evidence: (wasLate) => {
        // A gap no timer saw (a busy event loop) is reported all the same, before the recovery.
        if (wasLate && hub.announced) {
          feed.publish({ type: 'disconnected', error: new ChangeFeedLateError(boundMs) })
        }
        if (!hub.announced && fences.fresh) {
          settings.outages?.connected()
          feed.publish({ type: 'connected' })
        }
      },
    },
  })

  feed.start = async () => {
    if (started || closed) return
    started = true
    ticker = setInterval(late, everyMs)
    ticker.unref?.()
    const first = fences.confirm(performance.now(), settings.heartbeatMs)
    await relay.start()
    await first
  }
  feed.close = async () => {
    if (closed) return
    closed = true
    settings.outages?.closed()
    clearInterval(ticker)
    await relay.close()
    if (started) feed.publish({ type: 'disconnected' })
  }
  Object.defineProperty(feed, 'fences', { value: fences, enumerable: true })
  Object.defineProperty(feed, 'leading', { get: () => relay.leading, enumerable: true })
  return feed
}
