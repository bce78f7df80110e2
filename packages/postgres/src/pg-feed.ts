import { checkTelemetryOptions, KeyChangeHub, type KeywardTelemetry } from '@keyward/core'
import pg from 'pg'
import { DEFAULT_SCHEMA } from './base.js'
import { changeOf } from './feed-payload.js'
import { feedOutages } from './feed-spans.js'
import { ChangeFeedLateError, FeedFences } from './fences.js'
import { BEACON_CHANNEL, BEACON_FENCE, BeaconSession, type SerialQuery, serially } from './pg-beacon.js'
import { type PgChangeFeedRedis, relayFeed } from './relay-feed.js'
import { CHANGE_CHANNEL } from './schema.js'
import { checkSchema } from './statements.js'

/**
 * Options of {@link pgChangeFeed}.
 *
 * @example
 * ```ts
 * const changes = pgChangeFeed({ connectionString: process.env.DIRECT_URL!, schema: 'keyward', reconnectMaxMs: 5000 })
 * ```
 */
export interface PgChangeFeedOptions {
  /**
   * Where to listen: a direct connection to the primary. LISTEN needs a session of its own,
   * so behind a transaction pooler (PgBouncer in transaction mode) give the server's own URL
   * here, not the pooler's.
   */
  readonly connectionString: string
  /** The schema of Keyward's tables, whose changes to report. Default `keyward`. */
  readonly schema?: string
  /** More settings of the listening connection (TLS, ...). */
  readonly clientConfig?: Omit<pg.ClientConfig, 'connectionString'>
  /** First wait before reconnecting, in milliseconds; it doubles on each failure. Default 50. */
  readonly reconnectMinMs?: number
  /** Longest wait between reconnection attempts, in milliseconds. Default 2000. */
  readonly reconnectMaxMs?: number
  /**
   * How often the connection is checked with a query, in milliseconds (a connection that
   * died silently, on a broken network, sends no error). Default 5000.
   */
  readonly heartbeatMs?: number
  /**
   * Strict revocation's bound B, in milliseconds (see `strictRevocation` of `createPgKeyStore`,
   * which sets it). With it, the feed counts as not connected whenever it has no evidence that
   * every change committed more than B ago has reached it (see `freshnessSource`): it reports
   * `disconnected` (with a `ChangeFeedLateError`), and `connected` when evidence is back.
   * Default: none.
   */
  readonly freshnessBoundMs?: number
  /**
   * Where the evidence of freshness comes from, with `freshnessBoundMs`:
   *
   * - `'beacon'`: one beacon for the whole database. The feed whose connection
   *   holds an advisory lock notifies the channel `keyward_beacon` every B/3 with the primary's
   *   WAL position; every feed reads that position once per beacon, shortly before the next
   *   one (a query on its own connection), and is fresh from its latest read that a beacon
   *   naming a later position has followed.
   *   Fences (a notification) are sent only to acknowledge a revocation and on connecting.
   *   The primary's notifications per second do not grow with the number of processes.
   * - `'fences'` (the default in this release; the beacon is opt-in until it is measured at
   *   fleet size on a quiet machine): each feed sends itself a fence every B/4 and is fresh from the latest one
   *   that came back. PostgreSQL wakes every listener of the database for each notification,
   *   so the primary's work grows with the square of the processes: a few dozen at most.
   * - `'redis'`: the feed has no PostgreSQL connection of its own. One process at a time (the
   *   holder of a lease in Redis) listens on the primary and relays the changes on a Redis
   *   channel, with a heartbeat every B/4 whose epoch (a Redis counter) proves how far it has
   *   relayed; every feed subscribes to that channel and reads the epoch every B/4. Needs
   *   `redis` and `freshnessBoundMs`. See the Postgres guide, "The Redis relay".
   */
  readonly freshnessSource?: 'beacon' | 'fences' | 'redis'
  /** The Redis of `freshnessSource: 'redis'`: `{ url }` or `{ client }` (an ioredis client). */
  readonly redis?: PgChangeFeedRedis
  /**
   * Traces of the feed's outages: a span `keyward.feed.reconnect` from a lost connection until
   * the feed listens again, through the host's OpenTelemetry
   * (`{ tracerProvider: trace.getTracerProvider() }`). Off when absent.
   */
  readonly telemetry?: KeywardTelemetry
}

/**
 * The change feed of {@link pgChangeFeed}: a `KeyChangeFeed` that you start and close.
 *
 * @example
 * ```ts
 * const changes: PgChangeFeed = pgChangeFeed({ connectionString: process.env.DIRECT_URL! })
 * await changes.start()
 * // ...
 * await changes.close()
 * ```
 */
export interface PgChangeFeed extends KeyChangeHub {
  /** Connects and listens; resolves after the first attempt, connected or not (it keeps trying). */
  start(): Promise<void>
  /** Stops listening and closes the connection. */
  close(): Promise<void>
  /** @internal The fences of strict revocation, with `freshnessBoundMs`. */
  readonly fences?: FeedFences
  /**
   * Whether this feed sends the beacon (`freshnessSource: 'beacon'`: its connection holds the
   * beacon's lock) or relays the change feed (`'redis'`: it holds the relay's lease).
   */
  readonly leading: boolean
}

// A fence commits a notification and nothing else: it need not wait for the WAL flush (nor
// for a synchronous standby), as nothing of it must survive a crash.
const FENCE = "SELECT pg_notify($1, $2), set_config('synchronous_commit', 'off', true)"

/** The feed's `connected` is also false while its fences are late. */
class FencedHub extends KeyChangeHub {
  fences: FeedFences | undefined
  /** What was last published: `connected` or `disconnected`. */
  get announced(): boolean {
    return super.connected
  }
  override get connected(): boolean {
    return super.connected && (this.fences === undefined || this.fences.fresh)
  }
}

const positive = (who: string, name: string, value: number | undefined, fallback: number) => {
  if (value === undefined) return fallback
  if (!(Number.isInteger(value) && value > 0)) {
    throw new TypeError(`${who}: option \`${name}\` must be a positive integer, got ${String(value)}.`)
  }
  return value
}

/**
 * The change feed of a PostgreSQL key store: one session connection of its own that LISTENs
 * to the notifications the schema's trigger sends in every writing transaction, and reports
 * them as `changed` events (hash, id and WAL position, never a key).
 *
 * When the connection fails (killed, dropped, the server restarts) it reports `disconnected`
 * at once and reconnects with backoff; after reconnecting it reports `connected`, and a
 * verification cache starts empty. `createPgKeyStore({ ... }, { changeFeed: true })` builds,
 * starts and closes one for you.
 *
 * @example
 * ```ts
 * import { PostgresKeyStore } from '@keyward/postgres'
 * import { pgChangeFeed, pgDriver } from '@keyward/postgres/pg'
 *
 * // The pool goes through PgBouncer; the feed listens on the server directly.
 * const changes = pgChangeFeed({ connectionString: process.env.DIRECT_DATABASE_URL! })
 * await changes.start()
 * const store = new PostgresKeyStore(pgDriver(pool), { changes })
 * const keyward = createKeyward({ store, cache: {} })
 * ```
 */
export function pgChangeFeed(options: PgChangeFeedOptions): PgChangeFeed {
  const who = 'pgChangeFeed'
  if (typeof options?.connectionString !== 'string' || options.connectionString === '') {
    throw new TypeError(`${who}: option \`connectionString\` is required (a direct URL to the primary).`)
  }
  const schema = checkSchema(who, options.schema ?? DEFAULT_SCHEMA)
  const minMs = positive(who, 'reconnectMinMs', options.reconnectMinMs, 50)
  const maxMs = positive(who, 'reconnectMaxMs', options.reconnectMaxMs, 2000)
  const heartbeatMs = positive(who, 'heartbeatMs', options.heartbeatMs, 5000)
  const boundMs =
    options.freshnessBoundMs === undefined
      ? undefined
      : positive(who, 'freshnessBoundMs', options.freshnessBoundMs, 0)
  checkTelemetryOptions(who, options.telemetry)
  const outages = feedOutages(options.telemetry)
  const source = options.freshnessSource ?? 'fences'
  if (source !== 'beacon' && source !== 'fences' && source !== 'redis') {
    throw new TypeError(
      `${who}: option \`freshnessSource\` must be 'beacon', 'fences' or 'redis', got ${String(source)}.`,
    )
  }
  if (source === 'redis') {
    if (boundMs === undefined) {
      throw new TypeError(
        `${who}: \`freshnessSource: 'redis'\` needs option \`freshnessBoundMs\` (strict revocation).`,
      )
    }
    return relayFeed({
      who,
      connectionString: options.connectionString,
      clientConfig: options.clientConfig,
      schema,
      boundMs,
      heartbeatMs,
      redis: options.redis,
      outages,
    }) as PgChangeFeed
  }
  const beacon = boundMs !== undefined && source === 'beacon'

  const hub = new FencedHub()
  const feed = hub as FencedHub & PgChangeFeed
  // With `freshnessSource: 'fences'`, fences go on a channel of this feed's own, so no other
  // process receives them (PostgreSQL keeps one queue of notifications for every channel, in
  // commit order); with the beacon, on the beacon's channel, tagged with this token.
  const token = Array.from(crypto.getRandomValues(new Uint8Array(8)), (b) =>
    b.toString(16).padStart(2, '0'),
  ).join('')
  const fenceChannel = `keyward_fence_${token}`
  let client: pg.Client | undefined
  /** Each connection's queries, one after another. */
  const asks = new WeakMap<pg.Client, SerialQuery>()
  /** The connection whose LISTEN succeeded. */
  let listening: pg.Client | undefined
  /** The connection a fence is in flight on, and whether another was asked for meanwhile. */
  let fenceOn: pg.Client | undefined
  let fenceAgain = false
  let ticker: ReturnType<typeof setInterval> | undefined
  let closed = false
  let failures = 0
  let reported = false
  let retry: ReturnType<typeof setTimeout> | undefined
  let heartbeat: ReturnType<typeof setInterval> | undefined
  /** The beacon's side of the listening connection. */
  let session: BeaconSession | undefined

  const sendFence = () => {
    const on = listening
    if (!hub.fences || !on || on !== client) return
    if (fenceOn === on) {
      fenceAgain = true
      return
    }
    fenceOn = on
    fenceAgain = false
    const n = hub.fences.sent()
    const ask = asks.get(on)!
    const sent = beacon
      ? ask(BEACON_FENCE, [`${token}:${n}`])
      : ask(FENCE, [fenceChannel, `fence:${token}:${n}`])
    sent.then(
      () => {
        if (fenceOn !== on) return
        fenceOn = undefined
        if (fenceAgain) sendFence()
      },
      (error: unknown) => lost(on, error),
    )
  }

  // Every B/4: a fence (or, while the beacon is missing, a probe), and the report of a late feed.
  const tick = () => {
    if (hub.fences && !hub.fences.fresh && hub.announced) {
      reported = true
      feed.publish({ type: 'disconnected', error: new ChangeFeedLateError(hub.fences.boundMs) })
    }
    if (!beacon) sendFence()
    else if (session?.missing && listening === client) session.probe()
  }

  const fenceHeard = (payload: string | undefined) => {
    const n = Number(payload?.slice(`fence:${token}:`.length))
    if (!hub.fences || !payload?.startsWith(`fence:${token}:`) || !Number.isInteger(n)) return
    evidence(hub.fences.received(n))
  }

  const evidence = (wasLate: boolean) => {
    if (!hub.fences) return
    // A gap no timer saw (a busy event loop) is reported all the same, before the recovery.
    if (wasLate && hub.announced) {
      feed.publish({ type: 'disconnected', error: new ChangeFeedLateError(hub.fences.boundMs) })
    }
    if (!hub.announced && hub.fences.fresh) {
      feed.publish({ type: 'connected' })
    }
  }

  const lost = (from: pg.Client, error?: unknown) => {
    if (from !== client) return
    client = undefined
    listening = undefined
    fenceOn = undefined
    session?.close()
    session = undefined
    hub.fences?.lost()
    clearInterval(heartbeat)
    from.end().catch(() => {})
    outages?.failed(error)
    // Reported once per outage (and once when the first attempt fails), not on every retry.
    if (hub.announced || !reported) {
      reported = true
      feed.publish({ type: 'disconnected', ...(error === undefined ? {} : { error }) })
    }
    if (closed) return
    const wait = Math.min(maxMs, minMs * 2 ** failures++)
    retry = setTimeout(connect, wait)
  }

  async function connect(): Promise<void> {
    retry = undefined
    const next = new pg.Client({
      keepAlive: true,
      ...options.clientConfig,
      connectionString: options.connectionString,
    })
    client = next
    const ask = serially(next)
    asks.set(next, ask)
    next.on('error', (error) => lost(next, error))
    next.on('end', () => lost(next, new Error('The change feed connection ended.')))
    next.on('notification', (message) => {
      if (next !== client) return
      if (message.channel === BEACON_CHANNEL) return session?.heard(message.payload)
      if (message.channel === fenceChannel) return fenceHeard(message.payload)
      const change = message.channel === CHANGE_CHANNEL ? changeOf(message.payload, schema) : null
      if (change) feed.publish(change)
    })
    try {
      await next.connect()
      if (beacon && hub.fences) {
        session = new BeaconSession(ask, hub.fences, token, Math.max(1, Math.floor(hub.fences.boundMs / 3)), {
          lost: (error) => lost(next, error),
          evidence,
        })
      }
      const own = !hub.fences ? '' : `; LISTEN ${beacon ? BEACON_CHANNEL : fenceChannel}`
      await ask(`LISTEN ${CHANGE_CHANNEL}${own}`)
    } catch (error) {
      lost(next, error)
      return
    }
    if (next !== client) return
    if (closed) {
      client = undefined
      await next.end().catch(() => {})
      return
    }
    failures = 0
    reported = false
    let waiting = false
    heartbeat = setInterval(() => {
      // The previous check has not answered in a whole period: the connection is gone.
      if (waiting) return lost(next, new Error('The change feed connection stopped answering.'))
      waiting = true
      ask('SELECT 1').then(
        () => {
          waiting = false
        },
        (error: unknown) => lost(next, error),
      )
    }, heartbeatMs)
    heartbeat.unref?.()
    listening = next
    outages?.connected()
    if (!hub.fences) {
      feed.publish({ type: 'connected' })
      return
    }
    // Connected once the first fence is back: it proves every earlier commit was delivered.
    const first = hub.fences.confirm(performance.now(), heartbeatMs)
    sendFence()
    session?.probe()
    await first
  }

  if (boundMs !== undefined) {
    hub.fences = new FeedFences(boundMs, sendFence)
    Object.defineProperty(feed, 'fences', { value: hub.fences, enumerable: true })
  }
  feed.start = () => {
    if (hub.fences && !ticker) {
      ticker = setInterval(tick, Math.max(1, Math.floor(hub.fences.boundMs / 4)))
      ticker.unref?.()
    }
    return closed || client || retry ? Promise.resolve() : connect()
  }
  Object.defineProperty(feed, 'leading', { get: () => session?.leading === true, enumerable: true })
  feed.close = async () => {
    closed = true
    outages?.closed()
    session?.close()
    clearTimeout(retry)
    clearInterval(heartbeat)
    clearInterval(ticker)
    const current = client
    client = undefined
    listening = undefined
    if (current) {
      await current.end().catch(() => {})
      feed.publish({ type: 'disconnected' })
    }
  }
  return feed
}
