// One driver for the client libraries an application already runs (postgres.js, Drizzle,
// Kysely, a pg client inside the application's transaction): each library gives only how to
// run one statement and how to open a transaction; the bounds in time, the transaction that
// the application opened, and the values that cross the wire are handled here, the same for all.
import {
  checkTimeout,
  DEFAULT_QUERY_TIMEOUT_MS,
  QueryTimeoutError,
  type SqlDriver,
  type SqlQueryable,
  type SqlRow,
  withDeadline,
} from './driver.js'

/** @internal One statement under way, and how to cancel it on the server (when the library can). */
export interface Pending {
  readonly rows: Promise<SqlRow[]>
  cancel?(): void
}

/** @internal What a client library gives {@link clientDriver}; `H` is its handle (a pool, a transaction). */
export interface ClientCalls<H> {
  /** Runs one statement on `on`, `$1`-style parameters; `name` when it may be prepared. */
  query(on: H, text: string, params: unknown[], name: string | undefined): Pending
  /** Opens a transaction on the top-level handle; `undefined` when `handle` is a transaction already. */
  transaction: (<T>(fn: (tx: H) => Promise<T>) => Promise<T>) | undefined
}

/** Options of the drivers over an application's client (postgres.js, Drizzle, Kysely). */
export interface ClientDriverOptions {
  /**
   * Bound on one store operation (a statement, or a whole transaction of Keyward's own), in
   * milliseconds. Default 3000. Past it the operation rejects with a `QueryTimeoutError`
   * (Keyward answers 503 `store_unavailable`). A transaction Keyward opens sets `SET LOCAL
   * statement_timeout` to the same value, so the server gives up too; inside your transaction
   * Keyward changes none of your settings, bounds only its wait, and your transaction must roll
   * back on the error (see the application database guide's "Timeouts").
   */
  readonly queryTimeoutMs?: number
}

/**
 * @internal A {@link SqlDriver} over a client library. On a top-level handle, `transaction`
 * opens one (bounded on the server by `SET LOCAL statement_timeout`); on a transaction handle
 * (the application's), every operation joins that transaction, and `transaction(fn)` runs `fn`
 * in it: what Keyward writes commits or rolls back with the application's rows.
 */
export function clientDriver<H>(
  who: string,
  handle: H,
  calls: ClientCalls<H>,
  options: ClientDriverOptions = {},
): SqlDriver {
  const timeoutMs = checkTimeout(who, options.queryTimeoutMs, DEFAULT_QUERY_TIMEOUT_MS)
  const statement = (on: H, text: string, params: readonly unknown[] = [], name?: string) =>
    calls.query(on, text, params.map(toWire), name)
  // A statement alone: in the application's transaction its effect goes with that transaction
  // (which the error makes roll back); on its own it commits by itself, so it may have happened.
  const joined = calls.transaction === undefined
  const single = (text: string, params?: readonly unknown[], name?: string) =>
    bounded(statement(handle, text, params, name), timeoutMs, joined ? 'none' : 'unknown')
  const queryable = (on: H, state: { over: boolean }): SqlQueryable => ({
    query: <R extends SqlRow>(
      text: string,
      params?: readonly unknown[],
      queryOptions?: { name?: string },
    ) => {
      if (state.over) return Promise.reject(new QueryTimeoutError(timeoutMs))
      return statement(on, text, params, queryOptions?.name).rows as Promise<R[]>
    },
  })
  const query = <R extends SqlRow>(
    text: string,
    params?: readonly unknown[],
    queryOptions?: { name?: string },
  ) => single(text, params, queryOptions?.name) as Promise<R[]>
  const open = calls.transaction
  return {
    query,
    transaction: open
      ? <T>(fn: (tx: SqlQueryable) => Promise<T>) =>
          ownTransaction<H, T>(open, timeoutMs, async (tx, state) => {
            await statement(tx, `SET LOCAL statement_timeout = ${timeoutMs}`).rows
            return fn(queryable(tx, state))
          })
      : // The application's transaction: Keyward's statements join it, one after the other.
        <T>(fn: (tx: SqlQueryable) => Promise<T>) => fn({ query }),
  }
}

/** A statement that rejects with a `QueryTimeoutError` past `timeoutMs`, cancelled on the server when it can be. */
function bounded(pending: Pending, timeoutMs: number, outcome: 'none' | 'unknown'): Promise<SqlRow[]> {
  return withDeadline(pending.rows, timeoutMs, () => {
    pending.cancel?.()
    return new QueryTimeoutError(timeoutMs, outcome)
  })
}

/**
 * A transaction of Keyward's own, bounded as a whole. Past the deadline while `fn` runs, the
 * caller is answered at once (`outcome: 'none'`): `fn`'s next statement is refused and the
 * transaction is made to roll back, so it never commits. Past it once `fn` returned, the COMMIT
 * is on its way: it may have taken effect (`'unknown'`).
 */
function ownTransaction<H, T>(
  open: <U>(fn: (tx: H) => Promise<U>) => Promise<U>,
  timeoutMs: number,
  fn: (tx: H, state: { over: boolean }) => Promise<T>,
): Promise<T> {
  const state = { over: false }
  let committing = false
  const running = open(async (tx) => {
    const result = await fn(tx, state)
    // Refused here, the library rolls back instead of sending COMMIT.
    if (state.over) throw new QueryTimeoutError(timeoutMs)
    committing = true
    return result
  })
  return withDeadline(running, timeoutMs, () => {
    state.over = true
    return new QueryTimeoutError(timeoutMs, committing ? 'unknown' : 'none')
  })
}

/**
 * A parameter as it goes to the server, the same whatever serializers the application
 * configured on its client (Drizzle replaces those of postgres.js for dates, arrays of dates and
 * JSON): a `Date` as ISO 8601 text, an array as PostgreSQL's array text (`{"a","b"}`), which the
 * statements' casts (`$2::timestamptz[]`) read.
 */
function toWire(value: unknown): unknown {
  if (value instanceof Date) return value.toISOString()
  if (Array.isArray(value)) return `{${value.map(arrayElement).join(',')}}`
  return value
}

function arrayElement(value: unknown): string {
  if (value === null || value === undefined) return 'NULL'
  const text = value instanceof Date ? value.toISOString() : String(value)
  return `"${text.replace(/[\\"]/g, (c) => `\\${c}`)}"`
}

/** @internal The type ids of `timestamptz` and `timestamp` columns. */
const TIMESTAMP_TYPES = new Set([1184, 1114])

/**
 * @internal Rows whose `timestamptz` columns came back as text (Drizzle makes node-postgres
 * and postgres.js return dates as text) with those columns as `Date`s, as the store reads them.
 * `columns` are each column's name and type id.
 */
export function withDates(
  rows: SqlRow[],
  columns: readonly { readonly name: string; readonly type: number }[] | undefined,
): SqlRow[] {
  const dates = (columns ?? []).filter((column) => TIMESTAMP_TYPES.has(column.type)).map((c) => c.name)
  if (dates.length === 0) return rows
  for (const row of rows) {
    for (const name of dates) {
      const value = row[name]
      if (typeof value === 'string') row[name] = parseTimestamp(value)
    }
  }
  return rows
}

/** PostgreSQL's text of a timestamp (`2026-01-02 03:04:05.678+00`) as a `Date`. */
function parseTimestamp(text: string): Date | string {
  const match =
    /^(\d{4,}-\d\d-\d\d)[ T](\d\d:\d\d:\d\d(?:\.\d+)?)(?:([+-]\d\d)(?::?(\d\d))?(?::?(\d\d))?|Z)?$/.exec(text)
  if (!match) return text
  const [, day, time, hours, minutes = '00', seconds] = match
  // Offsets with seconds (historic zones) are rare; JavaScript dates cannot carry them.
  const zone = hours === undefined ? 'Z' : `${hours}:${minutes}`
  const date = new Date(`${day}T${time}${zone}`)
  if (seconds) date.setUTCSeconds(date.getUTCSeconds() - Math.sign(Number(hours)) * Number(seconds))
  return Number.isNaN(date.getTime()) ? text : date
}
