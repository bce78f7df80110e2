// A SqlDatabase on a mysql2 pool. Each transaction takes a connection of its own, at READ
// COMMITTED (a count made after a locking read sees what the lock's last holder committed), and
// runs again after a deadlock. A statement is prepared once per connection (`execute`).
import { boundParams, type SqlDatabase, type SqlExecutor, SqlOutcomeUnknownError } from '@keyward/sql'
import type { Connection as CoreConnection, Pool as CorePool } from 'mysql2'
import type { Pool, ResultSetHeader } from 'mysql2/promise'
import { isConnectionLost, retriedOnDeadlock } from './mysql-errors.js'

/** Options of {@link mysqlDatabase}. */
export interface MysqlDatabaseOptions {
  /** How long a statement may run before the client gives up on it. Default 10,000 ms. */
  readonly queryTimeoutMs?: number
  /** How many times a transaction runs again after a deadlock. Default 5. */
  readonly deadlockRetries?: number
  /** Whether `close()` ends the pool. Default `false` (the pool is yours). */
  readonly ownsPool?: boolean
}

type Sent = (text: string, params: readonly unknown[]) => Promise<unknown>

/**
 * `text` sent in mysql2's string form, its timeout kept by a timer of this package's own: mysql2
 * takes one only in the object form of `execute`, which costs more client CPU per statement than
 * a local lookup's round trip (bench/stores). As mysql2's own: at the timeout the caller hears
 * `PROTOCOL_SEQUENCE_TIMEOUT`, and the statement goes on until the server answers.
 */
function sendOn(
  connection: CoreConnection,
  text: string,
  params: readonly unknown[],
  timeout: number,
  settle: (error: unknown, result?: unknown) => void,
): { once(event: 'end', fn: () => void): unknown } {
  let timedOut = false
  const timer = setTimeout(() => {
    timedOut = true
    settle(
      Object.assign(new Error('Query inactivity timeout'), {
        code: 'PROTOCOL_SEQUENCE_TIMEOUT',
        errorno: 'PROTOCOL_SEQUENCE_TIMEOUT',
        syscall: 'query',
      }),
    )
  }, timeout)
  return connection.execute(text, boundParams(params) as never[], (failure, result) => {
    clearTimeout(timer)
    if (!timedOut) settle(failure, result)
  })
}

/** A promise settled by a node-style callback. */
function settled<T>(start: (settle: (error: unknown, result?: unknown) => void) => void): Promise<T> {
  return new Promise<T>((resolve, reject) =>
    start((error, result) => (error ? reject(error) : resolve(result as T))),
  )
}

/** Statements on one connection (a transaction's). */
const sentOn =
  (connection: CoreConnection, timeout: number): Sent =>
  (text, params) =>
    settled((settle) => sendOn(connection, text, params, timeout, settle))

/** A statement on a connection of the pool, given back when the statement ends, as `pool.execute` does. */
const sentOnPool =
  (core: CorePool, timeout: number): Sent =>
  (text, params) =>
    settled((settle) =>
      core.getConnection((error, connection) => {
        if (error) return settle(error)
        try {
          sendOn(connection, text, params, timeout, settle).once('end', () => connection.release())
        } catch (failure) {
          connection.release()
          settle(failure)
        }
      }),
    )

function executor(send: Sent): SqlExecutor {
  return {
    query: ((text: string, params: readonly unknown[] = []) => send(text, params)) as SqlExecutor['query'],
    run: (text, params = []) =>
      send(text, params).then((result) => ({ changes: (result as ResultSetHeader).affectedRows })),
  }
}

/**
 * A `SqlDatabase` (of `@keyward/sql`) on a mysql2 pool (`mysql2/promise`): works through any pool, and through
 * hosted MySQL that refuses foreign keys (the schema has none).
 *
 * A write outside a transaction whose connection was lost, or whose commit was under way when it
 * was lost, throws `SqlOutcomeUnknownError`: never reported as failed while it may have committed.
 * A statement of an open transaction that fails ends it with a rollback (nothing committed).
 *
 * @example
 * ```ts
 * import mysql from 'mysql2/promise'
 * const store = new SqlKeyStore(mysqlDatabase(mysql.createPool(process.env.DATABASE_URL!)), mysqlDialect)
 * ```
 */
export function mysqlDatabase(pool: Pool, options: MysqlDatabaseOptions = {}): SqlDatabase {
  if (typeof pool?.getConnection !== 'function' || typeof pool.execute !== 'function') {
    throw new TypeError('mysqlDatabase: expected a mysql2/promise Pool.')
  }
  const timeout = positive('queryTimeoutMs', options.queryTimeoutMs ?? 10_000)
  const retries = options.deadlockRetries ?? 5
  if (!Number.isSafeInteger(retries) || retries < 0) {
    throw new TypeError(
      `mysqlDatabase: option \`deadlockRetries\` must be a non-negative integer, got ${String(retries)}.`,
    )
  }
  const direct = executor(sentOnPool(pool.pool, timeout))
  const once = async <T>(fn: (tx: SqlExecutor) => Promise<T>): Promise<T> => {
    const connection = await pool.getConnection()
    let broken = false
    try {
      await connection.query('SET TRANSACTION ISOLATION LEVEL READ COMMITTED')
      await connection.query('START TRANSACTION')
      let result: T
      try {
        result = await fn(executor(sentOn(connection.connection as unknown as CoreConnection, timeout)))
      } catch (error) {
        broken = isConnectionLost(error)
        // A lost connection rolls back on the server; else roll back here.
        if (!broken) await connection.query('ROLLBACK').catch(() => (broken = true))
        throw error
      }
      try {
        await connection.query({ sql: 'COMMIT', timeout })
      } catch (error) {
        broken = true
        throw isConnectionLost(error) ? new SqlOutcomeUnknownError({ cause: error }) : error
      }
      return result
    } finally {
      if (broken) connection.destroy()
      else connection.release()
    }
  }
  return {
    query: direct.query,
    run: async (text, params) => {
      try {
        return await direct.run(text, params)
      } catch (error) {
        // An autocommitted write: lost with its connection, it may have committed.
        throw isConnectionLost(error) ? new SqlOutcomeUnknownError({ cause: error }) : error
      }
    },
    transaction: retriedOnDeadlock(once, retries),
    close: async () => {
      if (options.ownsPool) await pool.end()
    },
  }
}

function positive(name: string, value: number): number {
  if (!Number.isSafeInteger(value) || value <= 0) {
    throw new TypeError(`mysqlDatabase: option \`${name}\` must be a positive integer, got ${String(value)}.`)
  }
  return value
}
