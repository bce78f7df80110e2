/**
 * Keyward on MySQL with Drizzle (`drizzle-orm/mysql2`): the store on the application's Drizzle
 * database, or inside one of its transactions.
 *
 * @packageDocumentation
 */

import { clientDatabase, type SqlDatabase, type SqlRow, statementParts } from '@keyward/sql'
import { type SQL, type SQLChunk, sql } from 'drizzle-orm'
import { retriedOnDeadlock } from './mysql-errors.js'

/** What the store needs of a Drizzle MySQL database or transaction (`MySql2Database`, `MySqlTransaction`). */
export interface DrizzleMysqlDatabase {
  execute(query: SQL): PromiseLike<unknown>
  transaction?: unknown
  rollback?: unknown
}

// The statement as Drizzle's SQL, which writes each parameter as `?` again.
const drizzleSql = (text: string, params: readonly unknown[]): SQL =>
  sql.join(statementParts<SQLChunk>(text, params, sql.raw, sql.param))

// What `execute` gives on mysql2: its result (rows, or a header for a write) and its fields.
const resultOf = async (pending: PromiseLike<unknown>) => ((await pending) as [unknown, unknown])[0]

/**
 * A `SqlDatabase` (of `@keyward/sql`) over Drizzle on mysql2. Given the database, the store opens
 * transactions of its own (`db.transaction`, at READ COMMITTED, run again after a deadlock);
 * given a transaction (`tx` of `db.transaction`), everything the store does joins it: the key
 * commits with the application's rows, or neither does. Open that transaction at READ COMMITTED too, as the store does its own:
 * the active-key limit counts keys after a locking read, and must see what the lock's last holder
 * committed.
 *
 * @example
 * ```ts
 * import { createKeyward } from '@keyward/core'
 * import { mysqlDialect, SqlKeyStore } from '@keyward/sql'
 * import { drizzleDatabase } from '@keyward/mysql/drizzle'
 *
 * const { key } = await db.transaction(
 *   async (tx) => {
 *     await tx.insert(projects).values({ id, name })
 *     const store = new SqlKeyStore(drizzleDatabase(tx), mysqlDialect)
 *     return createKeyward({ store }).issueProjectKey(id, { name: 'default' })
 *   },
 *   { isolationLevel: 'read committed' },
 * )
 * ```
 */
export function drizzleDatabase(db: DrizzleMysqlDatabase): SqlDatabase {
  if (
    typeof db?.execute !== 'function' ||
    (typeof db.transaction !== 'function' && typeof db.rollback !== 'function')
  ) {
    throw new TypeError('drizzleDatabase: expected a Drizzle MySQL database or transaction.')
  }
  type Transactional = {
    transaction<T>(fn: (tx: DrizzleMysqlDatabase) => Promise<T>, config?: object): Promise<T>
  }
  // A transaction has `rollback`; the database has none.
  const joined = typeof db.rollback === 'function'
  return clientDatabase<DrizzleMysqlDatabase>(db, {
    query: async (on, text, params) => (await resultOf(on.execute(drizzleSql(text, params)))) as SqlRow[],
    run: async (on, text, params) =>
      ((await resultOf(on.execute(drizzleSql(text, params)))) as { affectedRows: number }).affectedRows,
    transaction: joined
      ? undefined
      : retriedOnDeadlock((fn) =>
          (db as unknown as Transactional).transaction(fn, { isolationLevel: 'read committed' }),
        ),
  })
}
