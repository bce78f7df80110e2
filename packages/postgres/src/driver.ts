/** A result row, by column name. */
export type SqlRow = Record<string, unknown>

/** Options of one query. */
export interface SqlQueryOptions {
  /**
   * A name for a prepared statement: drivers that support them prepare the text once per
   * connection under this name and reuse it. One name always goes with one text.
   */
  readonly name?: string
}

/**
 * What runs SQL: a connection, a pool, or an open transaction. Parameters are `$1`, `$2`, ...
 *
 * @example
 * ```ts
 * const rows = await db.query('SELECT id FROM developers WHERE email = $1', [email])
 * ```
 */
export interface SqlQueryable {
  /** Runs one statement and returns its rows (empty for statements without `RETURNING`). */
  query<R extends SqlRow = SqlRow>(
    text: string,
    params?: readonly unknown[],
    options?: SqlQueryOptions,
  ): Promise<R[]>
}

/**
 * The small interface {@link PostgresKeyStore} runs on. Keyward ships one for node-postgres
 * (`@keyward/postgres/pg`) and one for PGlite (`@keyward/postgres/pglite`); another
 * Postgres client needs only these methods.
 *
 * A driver bounds every query with a timeout and rejects when the database is unreachable;
 * the key service turns those rejections into 503 `store_unavailable`.
 *
 * @example
 * ```ts
 * // Another client (here postgres.js) behind the same store. Bound its queries in time too:
 * // SET LOCAL statement_timeout in each transaction (a startup parameter would not pass a
 * // pooler), and a timer around each call.
 * const driver: SqlDriver = {
 *   query: (text, params = []) => sql.unsafe(text, [...params]),
 *   transaction: (fn) => sql.begin((tx) => fn({ query: (text, params = []) => tx.unsafe(text, [...params]) })),
 * }
 * const store = new PostgresKeyStore(driver)
 * ```
 */
export interface SqlDriver extends SqlQueryable {
  /**
   * Runs `fn` in one transaction, on one connection, isolation READ COMMITTED: commits when
   * it resolves, rolls back when it rejects.
   */
  transaction<T>(fn: (tx: SqlQueryable) => Promise<T>): Promise<T>
  /** Releases what the driver opened itself (a pool it created); leaves the rest alone. */
  close?(): Promise<void>
  /** The connections of its pool, for metrics, when it has one. */
  poolStats?(): PoolStats
}

/** The connections of a driver's pool: open (`total`), of which `idle`, and requests `waiting` for one. */
export interface PoolStats {
  readonly total: number
  readonly idle: number
  readonly waiting: number
}

/**
 * The error of a store operation that took longer than the driver's `queryTimeoutMs`. The
 * key service reports it through `onEvent` (`store.error`) and answers 503 `store_unavailable`.
 *
 * `outcome` says what became of the operation. `'none'`: it had no effect (it never started,
 * was cancelled, or its transaction was rolled back), so a retry cannot make a duplicate.
 * `'unknown'`: the database stopped answering after a write that commits by itself (a `COMMIT`,
 * or a single statement outside a transaction) was sent, so it may have taken effect; only a
 * database or network that stops answering altogether leads there.
 *
 * @example
 * ```ts
 * const keyward = createKeyward({
 *   store,
 *   onEvent: (event) => {
 *     if (event.type === 'store.error' && event.error instanceof QueryTimeoutError) metrics.increment('db.timeout')
 *   },
 * })
 * ```
 */
export class QueryTimeoutError extends Error {
  /** Whether the operation had no effect (`'none'`) or may have taken effect (`'unknown'`). */
  readonly outcome: 'none' | 'unknown'

  constructor(timeoutMs: number, outcome: 'none' | 'unknown' = 'none') {
    super(
      outcome === 'none'
        ? `The database did not answer within ${timeoutMs} ms.`
        : `The database did not answer within ${timeoutMs} ms, nor in time to a write already sent: it may have taken effect.`,
    )
    this.name = 'QueryTimeoutError'
    this.outcome = outcome
  }
}

/** @internal Checks the `queryTimeoutMs` option once, when a driver is built. */
export function checkTimeout(who: string, value: number | undefined, fallback: number): number {
  if (value === undefined) return fallback
  if (!(Number.isInteger(value) && value > 0)) {
    throw new TypeError(`${who}: option \`queryTimeoutMs\` must be a positive integer, got ${String(value)}.`)
  }
  return value
}

/**
 * The default bound on one store operation, in milliseconds: long enough for a busy pool,
 * short enough that a request does not hang on a database that does not answer.
 *
 * @example
 * ```ts
 * pgDriver(pool, { queryTimeoutMs: DEFAULT_QUERY_TIMEOUT_MS * 2 })
 * ```
 */
export const DEFAULT_QUERY_TIMEOUT_MS = 3000

/**
 * @internal What `work` settles with, or, past `timeoutMs`, the error `expire()` returns (what
 * it does to the work, such as cancelling it, is `expire`'s). A late outcome is ignored.
 */
export function withDeadline<T>(work: Promise<T>, timeoutMs: number, expire: () => Error): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => reject(expire()), timeoutMs)
    work.then(
      (value) => {
        clearTimeout(timer)
        resolve(value)
      },
      (error: unknown) => {
        clearTimeout(timer)
        reject(error)
      },
    )
  })
}
