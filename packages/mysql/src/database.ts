// A SqlDatabase on a mysql2 pool. Each transaction takes a connection of its own, at READ
// COMMITTED (a count made after a locking read sees what the lock's last holder committed), and
// runs again after a deadlock. A statement is prepared once per connection (`execute`).
import {
  boundParams,
  type SqlDatabase,
  type SqlExecutor,
  SqlOutcomeUnknownError,
  type SqlRow,
} from '@keyward/sql'
import type { Pool, PoolConnection, ResultSetHeader } from 'mysql2/promise'
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

type Runner = Pick<Pool, 'execute'> | Pick<PoolConnection, 'execute'>

function executor(runner: Runner, timeout: number): SqlExecutor {
  return {
    query: async <R extends SqlRow>(text: string, params: readonly unknown[] = []) => {
      const [rows] = await runner.execute({ sql: text, timeout }, boundParams(params) as never[])
      return rows as R[]
    },
    run: async (text, params = []) => {
      const [result] = await runner.execute({ sql: text, timeout }, boundParams(params) as never[])
      return { changes: (result as ResultSetHeader).affectedRows }
    },
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
  const direct = executor(pool, timeout)
  const once = async <T>(fn: (tx: SqlExecutor) => Promise<T>): Promise<T> => {
    const connection = await pool.getConnection()
    let broken = false
    try {
      await connection.query('SET TRANSACTION ISOLATION LEVEL READ COMMITTED')
      await connection.query('START TRANSACTION')
      let result: T
      try {
        result = await fn(executor(connection, timeout))
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
