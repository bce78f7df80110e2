import { KeyChangeHub } from '@keyward/core'
import pg from 'pg'
import { DEFAULT_SCHEMA } from './base.js'
import { changeOf } from './feed-payload.js'
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

  const feed = new KeyChangeHub() as PgChangeFeed
  let client: pg.Client | undefined
  let closed = false
  let failures = 0
  let reported = false
  let retry: ReturnType<typeof setTimeout> | undefined
  let heartbeat: ReturnType<typeof setInterval> | undefined

  const lost = (from: pg.Client, error?: unknown) => {
    if (from !== client) return
    client = undefined
    clearInterval(heartbeat)
    from.end().catch(() => {})
    // Reported once per outage (and once when the first attempt fails), not on every retry.
    if (feed.connected || !reported) {
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
    next.on('error', (error) => lost(next, error))
    next.on('end', () => lost(next, new Error('The change feed connection ended.')))
    next.on('notification', (message) => {
      const change = message.channel === CHANGE_CHANNEL ? changeOf(message.payload, schema) : null
      if (change && next === client) feed.publish(change)
    })
    try {
      await next.connect()
      await next.query(`LISTEN ${CHANGE_CHANNEL}`)
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
      next.query('SELECT 1').then(
        () => {
          waiting = false
        },
        (error: unknown) => lost(next, error),
      )
    }, heartbeatMs)
    heartbeat.unref?.()
    feed.publish({ type: 'connected' })
  }

  feed.start = () => (closed || client || retry ? Promise.resolve() : connect())
  feed.close = async () => {
    closed = true
    clearTimeout(retry)
    clearInterval(heartbeat)
    const current = client
    client = undefined
    if (current) {
      await current.end().catch(() => {})
      feed.publish({ type: 'disconnected' })
    }
  }
  return feed
}
