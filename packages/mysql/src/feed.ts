// The change feed of a MySQL key store: MySQL has no LISTEN/NOTIFY, so each process polls the
// change log that every write appends to in its own transaction (`@keyward/sql`, schema version
// 4), one indexed range read per poll on a connection of its own. See the MySQL guide, "The
// change feed".
import { KeyChangeHub } from '@keyward/core'
import { DEFAULT_TABLE_PREFIX, sqlTables } from '@keyward/sql'
import mysql, { type Connection, type Pool, type PoolConnection, type RowDataPacket } from 'mysql2/promise'

/**
 * Options of {@link mysqlChangeFeed}.
 *
 * @example
 * ```ts
 * const changes = mysqlChangeFeed({ connectionString: process.env.DATABASE_URL! }, { pollIntervalMs: 50 })
 * ```
 */
export interface MysqlChangeFeedOptions {
  /** What Keyward's table names start with. Default `keyward_`. */
  readonly tablePrefix?: string
  /** How often the change log is read, in milliseconds. Default 100. */
  readonly pollIntervalMs?: number
  /**
   * The bound B, in milliseconds (default 500): the feed counts as connected only while its
   * latest complete poll started less than 99 % of B ago, so a verification cache over it is
   * bypassed whenever it may have missed a change committed more than B ago. With strict
   * revocation (`strictRevocation` of `createMysqlKeyStore`), a write that may take a right away
   * returns B after its commit. Must exceed `pollIntervalMs` by the time a poll takes.
   */
  readonly freshnessBoundMs?: number
  /** How long a poll may run before it counts as failed, in milliseconds. Default 2000. */
  readonly queryTimeoutMs?: number
  /** How long rows stay in the change log before a feed deletes them, in milliseconds. Default 600,000. */
  readonly retentionMs?: number
  /** How often (on average) this feed deletes old rows of the change log, in milliseconds. Default 60,000. */
  readonly pruneIntervalMs?: number
}

/**
 * The feed of {@link mysqlChangeFeed}: a `KeyChangeFeed` that you start and close.
 *
 * @example
 * ```ts
 * const changes: MysqlChangeFeed = mysqlChangeFeed({ connectionString: url })
 * await changes.start()
 * await changes.close()
 * ```
 */
export interface MysqlChangeFeed extends KeyChangeHub {
  /** Connects and reads the log's position; resolves after the first attempt, connected or not (it keeps trying). */
  start(): Promise<void>
  /** Stops polling and closes (or gives back to its pool) the feed's connection. */
  close(): Promise<void>
  /** The freshness bound B, in milliseconds. */
  readonly boundMs: number
  /** @internal The server's id of the feed's connection (`CONNECTION_ID()`), while it has one. */
  readonly threadId: number | undefined
}

/** Rows per read: a poll that gets this many reads on at once. */
const PAGE = 500
/** A feed counts as fresh for 99 % of the bound (clocks of two machines run at slightly different rates). */
const FRESH_SHARE = 0.99

/** Where a {@link mysqlChangeFeed} reads: a connection string, or a mysql2 pool of yours. */
export type MysqlChangeFeedSource = { readonly connectionString: string } | { readonly pool: Pool }

/**
 * The change feed of a MySQL or MariaDB key store, for a verification cache across processes:
 * every `pollIntervalMs` one indexed range read of the change log past the last id it read, on
 * a connection of its own; each row becomes a `changed` event (hash and id, never a key). Its
 * cost per poll is one primary-key range read of the rows written since the last poll, whatever
 * the number of processes.
 *
 * It reports `connected` after its first read, and `disconnected` when a read fails (then it
 * reconnects with backoff, and reports `connected` again: a cache starts empty). It counts as
 * connected only while its latest complete poll started within the bound B
 * (`freshnessBoundMs`). From time to time it deletes rows older than `retentionMs`.
 * `createMysqlKeyStore(source, { changeFeed: true })` builds, starts and closes one for you.
 *
 * @example
 * ```ts
 * const changes = mysqlChangeFeed({ connectionString: process.env.DATABASE_URL! })
 * await changes.start()
 * const store = new SqlKeyStore(mysqlDatabase(pool), mysqlDialect, { changes })
 * ```
 */
export function mysqlChangeFeed(
  source: MysqlChangeFeedSource,
  options: MysqlChangeFeedOptions = {},
): MysqlChangeFeed {
  const pool = (source as { pool?: Pool }).pool
  const url = (source as { connectionString?: string }).connectionString
  if (!pool && typeof url !== 'string') {
    throw new TypeError('mysqlChangeFeed: pass `{ pool }` or `{ connectionString }`.')
  }
  const tables = sqlTables(options.tablePrefix ?? DEFAULT_TABLE_PREFIX, 'mysqlChangeFeed')
  const settings = {
    pollMs: positive('pollIntervalMs', options.pollIntervalMs, 100),
    boundMs: positive('freshnessBoundMs', options.freshnessBoundMs, 500),
    timeoutMs: positive('queryTimeoutMs', options.queryTimeoutMs, 2000),
    retentionMs: positive('retentionMs', options.retentionMs, 600_000),
    pruneMs: positive('pruneIntervalMs', options.pruneIntervalMs, 60_000),
  }
  if (settings.boundMs <= settings.pollMs) {
    throw new TypeError(
      `mysqlChangeFeed: option \`freshnessBoundMs\` (${settings.boundMs}) must exceed \`pollIntervalMs\` (${settings.pollMs}).`,
    )
  }
  const open = pool
    ? () => pool.getConnection()
    : () => mysql.createConnection({ uri: (url as string).replace(/^mariadb:/, 'mysql:') })
  return new PollingFeed(open, pool !== undefined, tables, settings)
}

interface Settings {
  readonly pollMs: number
  readonly boundMs: number
  readonly timeoutMs: number
  readonly retentionMs: number
  readonly pruneMs: number
}

class PollingFeed extends KeyChangeHub implements MysqlChangeFeed {
  readonly boundMs: number
  readonly #open: () => Promise<Connection | PoolConnection>
  readonly #pooled: boolean
  readonly #s: Settings
  readonly #read: string
  readonly #counter: string
  readonly #prune: string
  #connection: Connection | PoolConnection | undefined
  // Every id up to the cursor was read; ids above it read already (a transaction whose ids
  // lie below them was not visible yet: the cursor waits for it).
  #cursor = 0
  readonly #above = new Set<number>()
  #gapSince: number | undefined
  #restart = true
  // When the latest complete poll started (performance.now()); -Infinity before the first.
  #freshSince = Number.NEGATIVE_INFINITY
  #failures = 0
  #started = false
  #closed = false
  #timer: ReturnType<typeof setTimeout> | undefined
  #running: Promise<void> = Promise.resolve()
  // Positions of the cursor, for pruning: rows at or below one older than the retention go.
  #marks: { at: number; cursor: number }[] = []
  #pruneAt: number

  constructor(
    open: () => Promise<Connection | PoolConnection>,
    pooled: boolean,
    tables: ReturnType<typeof sqlTables>,
    s: Settings,
  ) {
    super()
    this.boundMs = s.boundMs
    this.#open = open
    this.#pooled = pooled
    this.#s = s
    this.#read = `SELECT id, hash, key_id FROM ${tables.changeLog} WHERE id > ? ORDER BY id LIMIT ${PAGE}`
    this.#counter = `SELECT seq FROM ${tables.changeCounter} WHERE id = 1`
    this.#prune = `DELETE FROM ${tables.changeLog} WHERE id <= ? ORDER BY id LIMIT 1000`
    this.#pruneAt = performance.now() + s.pruneMs * (0.5 + Math.random())
  }

  /** Connected, and its latest complete poll started within the bound. */
  override get connected(): boolean {
    return super.connected && performance.now() - this.#freshSince <= this.boundMs * FRESH_SHARE
  }

  get threadId(): number | undefined {
    return this.#connection?.threadId ?? undefined
  }

  async start(): Promise<void> {
    if (this.#started) return this.#running
    this.#started = true
    await this.#step()
  }

  async close(): Promise<void> {
    this.#closed = true
    clearTimeout(this.#timer)
    await this.#running
    const connection = this.#connection
    this.#connection = undefined
    if (connection) await release(connection, this.#pooled, false)
    if (super.connected) this.publish({ type: 'disconnected' })
  }

  #step(): Promise<void> {
    this.#running = this.#tick().finally(() => {
      if (this.#closed) return
      const delay =
        this.#failures === 0 ? this.#s.pollMs : Math.min(2000, this.#s.pollMs * 2 ** this.#failures)
      this.#timer = setTimeout(() => void this.#step(), delay)
      this.#timer.unref?.()
    })
    return this.#running
  }

  async #tick(): Promise<void> {
    if (this.#closed) return
    try {
      this.#connection ??= await this.#open()
      // After a failure, or a poll too long ago for the rows it missed to be kept.
      const late = performance.now() - this.#freshSince > this.#s.retentionMs / 2
      if (this.#restart || late) await this.#begin()
      else await this.#poll()
      if (performance.now() >= this.#pruneAt) await this.#pruneOld()
      this.#failures = 0
    } catch (error) {
      this.#lost(error)
    }
  }

  // From the counter's value: every change committed before the read has an id at or below it.
  async #begin(): Promise<void> {
    if (super.connected) this.publish({ type: 'disconnected' })
    const at = performance.now()
    const [row] = await this.#query<{ seq: number | string }>(this.#counter, [])
    if (!row) throw new Error('The change log has no counter row: run the migrations (schema version 4).')
    this.#cursor = Number(row.seq)
    this.#above.clear()
    this.#gapSince = undefined
    this.#marks = []
    this.#freshSince = at
    this.#restart = false
    this.publish({ type: 'connected' })
  }

  // One range read past the cursor (more while a read comes back full). Every change visible when
  // the first read started has an id at or below the cursor (heard before) or is returned now.
  async #poll(): Promise<void> {
    const at = performance.now()
    let after = this.#cursor
    for (;;) {
      const rows = await this.#query<{ id: number | string; hash: string; key_id: string | null }>(
        this.#read,
        [after],
      )
      for (const row of rows) {
        const id = Number(row.id)
        if (this.#above.has(id)) continue
        this.#above.add(id)
        this.publish(
          row.key_id
            ? { type: 'changed', hash: row.hash, id: row.key_id }
            : { type: 'changed', hash: row.hash },
        )
      }
      while (this.#above.delete(this.#cursor + 1)) this.#cursor++
      if (rows.length < PAGE) break
      after = Number(rows[rows.length - 1]?.id)
    }
    this.#freshSince = at
    // A gap lasts only until a committed transaction becomes visible; one that stays was deleted.
    if (this.#above.size === 0) this.#gapSince = undefined
    else {
      this.#gapSince ??= at
      if (this.#gapSince < at - Math.max(2000, this.boundMs * 4)) this.#restart = true
    }
  }

  async #pruneOld(): Promise<void> {
    const now = performance.now()
    this.#pruneAt = now + this.#s.pruneMs * (0.5 + Math.random())
    this.#marks.push({ at: now, cursor: this.#cursor })
    const old = this.#marks.filter((mark) => mark.at <= now - this.#s.retentionMs)
    const mark = old[old.length - 1]
    if (!mark) return
    this.#marks = this.#marks.filter((m) => m.at > mark.at)
    await this.#run(this.#prune, [mark.cursor])
  }

  #lost(error: unknown): void {
    const connection = this.#connection
    this.#connection = undefined
    if (connection) void release(connection, this.#pooled, true)
    this.#restart = true
    this.#failures++
    if (super.connected) this.publish({ type: 'disconnected', error })
  }

  async #query<R>(sql: string, params: unknown[]): Promise<R[]> {
    const connection = this.#connection as Connection
    const [rows] = await connection.execute<RowDataPacket[]>(
      { sql, timeout: this.#s.timeoutMs },
      params as never[],
    )
    return rows as R[]
  }

  async #run(sql: string, params: unknown[]): Promise<void> {
    const connection = this.#connection as Connection
    await connection.execute({ sql, timeout: this.#s.timeoutMs }, params as never[])
  }
}

// A pool's connection goes back to its pool (destroyed after a failure); one of its own is closed.
// (A connection of its own has a `release` too, which fails: whose it is decides, not its methods.)
async function release(
  connection: Connection | PoolConnection,
  pooled: boolean,
  broken: boolean,
): Promise<void> {
  try {
    if (broken) connection.destroy()
    else if (pooled) (connection as PoolConnection).release()
    else await connection.end()
  } catch {
    // Closing a connection that is gone already.
  }
}

function positive(name: string, value: number | undefined, fallback: number): number {
  if (value === undefined) return fallback
  if (!(Number.isSafeInteger(value) && value > 0)) {
    throw new TypeError(
      `mysqlChangeFeed: option \`${name}\` must be a positive integer, got ${String(value)}.`,
    )
  }
  return value
}
