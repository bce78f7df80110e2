/**
 * Keyward on SQLite with Drizzle (`drizzle-orm/better-sqlite3`): the store on the application's
 * Drizzle database, and a transaction of the application's that the store's writes join.
 *
 * @packageDocumentation
 */

import { clientDatabase, type SqlDatabase, type SqlRow, statementParts } from '@keyward/sql'
import { type SQL, type SQLChunk, sql } from 'drizzle-orm'
import { immediateTransaction, queueOf } from './queue.js'

/** What the store needs of a Drizzle database on better-sqlite3 (`BetterSQLite3Database`). */
export interface DrizzleSqliteDatabase {
  all(query: SQL): unknown
  run(query: SQL): unknown
  /** The better-sqlite3 `Database` underneath. */
  readonly $client: {
    prepare(text: string): { run(): unknown }
    readonly inTransaction: boolean
  }
}

// Marks the handles of an open transaction (`drizzleTransaction`'s, or the store's own): the
// store's statements on one run at once, inside it, instead of queueing behind it.
const joinedHandles = new WeakSet<object>()

const drizzleSql = (text: string, params: readonly unknown[]): SQL =>
  sql.join(statementParts<SQLChunk>(text, params, sql.raw, sql.param))

/**
 * A `SqlDatabase` (of `@keyward/sql`) over Drizzle on better-sqlite3. Given the database, the
 * store opens transactions of its own under `BEGIN IMMEDIATE`, queued with every other statement
 * of Keyward's on the same connection (as `sqliteDatabase` queues them); given the `tx` of
 * {@link drizzleTransaction}, everything the store does joins that transaction.
 *
 * @example
 * ```ts
 * import { SqlKeyStore, sqliteDialect } from '@keyward/sql'
 * import { drizzleDatabase } from '@keyward/sqlite/drizzle'
 *
 * const store = new SqlKeyStore(drizzleDatabase(db), sqliteDialect)
 * ```
 */
export function drizzleDatabase(db: DrizzleSqliteDatabase): SqlDatabase {
  if (
    typeof db?.all !== 'function' ||
    typeof db.run !== 'function' ||
    typeof db.$client?.prepare !== 'function'
  ) {
    throw new TypeError('drizzleDatabase: expected a Drizzle database on better-sqlite3.')
  }
  const queue = queueOf(db.$client)
  // In a transaction (the application's, or the store's own), at once; else behind what Keyward
  // queued on the connection.
  const when = <T>(on: DrizzleSqliteDatabase, fn: () => Promise<T>) =>
    joinedHandles.has(on) ? fn() : queue.now(fn)
  return clientDatabase<DrizzleSqliteDatabase>(db, {
    query: (on, text, params) => when(on, async () => on.all(drizzleSql(text, params)) as SqlRow[]),
    run: (on, text, params) =>
      when(on, async () => (on.run(drizzleSql(text, params)) as { changes: number }).changes),
    transaction: joinedHandles.has(db)
      ? undefined
      : (fn) => immediateTransaction(db.$client, () => fn(joinedHandle(db))),
  })
}

/** The same database, marked: what runs on it runs on the one connection, inside the open transaction. */
function joinedHandle<D extends object>(db: D): D {
  const tx = Object.create(db) as D
  joinedHandles.add(tx)
  return tx
}

/**
 * Runs `fn` in a transaction under `BEGIN IMMEDIATE` on the connection of `db`: committed when
 * `fn` resolves, rolled back when it throws. Drizzle's own `db.transaction` on better-sqlite3 is
 * synchronous, and Keyward's writes are not (the audit chain hashes with Web Crypto): this one
 * awaits. A store on `tx` (`drizzleDatabase(tx)`) joins it: the key commits with the
 * application's rows, or neither does. It is queued with Keyward's statements on the connection;
 * SQLite has one connection here, so any other statement of yours that runs on `db` while `fn`
 * awaits runs inside this transaction too.
 *
 * @example
 * ```ts
 * import { createKeyward } from '@keyward/core'
 * import { SqlKeyStore, sqliteDialect } from '@keyward/sql'
 * import { drizzleDatabase, drizzleTransaction } from '@keyward/sqlite/drizzle'
 *
 * const { key } = await drizzleTransaction(db, async (tx) => {
 *   tx.insert(projects).values({ id, name }).run()
 *   const store = new SqlKeyStore(drizzleDatabase(tx), sqliteDialect)
 *   return createKeyward({ store }).issueProjectKey(id, { name: 'default' })
 * })
 * ```
 */
export function drizzleTransaction<D extends DrizzleSqliteDatabase, T>(
  db: D,
  fn: (tx: D) => Promise<T>,
): Promise<T> {
  if (typeof db?.$client?.prepare !== 'function') {
    return Promise.reject(new TypeError('drizzleTransaction: expected a Drizzle database on better-sqlite3.'))
  }
  return immediateTransaction(db.$client, () => fn(joinedHandle(db)))
}
