/**
 * Keyward on SQLite with Kysely (`SqliteDialect` on better-sqlite3): the store on the
 * application's `Kysely` instance, or inside one of its transactions.
 *
 * @packageDocumentation
 */

import { kyselyClientDatabase, type SqlDatabase } from '@keyward/sql'
import { CompiledQuery, type Kysely, type Transaction } from 'kysely'

const raw = (text: string, params: readonly unknown[] = []) => CompiledQuery.raw(text, [...params])

/**
 * A `SqlDatabase` (of `@keyward/sql`) over Kysely with `SqliteDialect`. Given the application's
 * `db`, the store opens transactions of its own under `BEGIN IMMEDIATE`, on the connection Kysely
 * hands it alone (`db.connection()`); given a transaction (`trx` of `db.transaction()`),
 * everything the store does joins it: the key commits with the application's rows, or neither
 * does. Kysely holds SQLite's one connection for a transaction until it ends, so nothing else of
 * the application's runs inside it.
 *
 * @example
 * ```ts
 * import { createKeyward } from '@keyward/core'
 * import { SqlKeyStore, sqliteDialect } from '@keyward/sql'
 * import { kyselyDatabase } from '@keyward/sqlite/kysely'
 *
 * const { key } = await db.transaction().execute(async (trx) => {
 *   await trx.insertInto('projects').values({ id, name }).execute()
 *   const store = new SqlKeyStore(kyselyDatabase(trx), sqliteDialect)
 *   return createKeyward({ store }).issueProjectKey(id, { name: 'default' })
 * })
 * ```
 */
// Keyward's statements name no table of the application's database type.
// biome-ignore lint/suspicious/noExplicitAny: any database type of the application
export function kyselyDatabase(db: Kysely<any> | Transaction<unknown>): SqlDatabase {
  return kyselyClientDatabase('kyselyDatabase', db as Kysely<unknown>, raw, (top, fn) =>
    top.connection().execute(async (connection) => {
      await connection.executeQuery(raw('BEGIN IMMEDIATE'))
      try {
        const result = await fn(connection)
        await connection.executeQuery(raw('COMMIT'))
        return result
      } catch (error) {
        await connection.executeQuery(raw('ROLLBACK')).catch(() => undefined)
        throw error
      }
    }),
  )
}
