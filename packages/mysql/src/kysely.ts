/**
 * Keyward on MySQL with Kysely (`MysqlDialect` on a mysql2 pool): the store on the application's
 * `Kysely` instance, or inside one of its transactions.
 *
 * @packageDocumentation
 */

import { kyselyClientDatabase, type SqlDatabase } from '@keyward/sql'
import { CompiledQuery, type Kysely, type Transaction } from 'kysely'
import { retriedOnDeadlock } from './mysql-errors.js'

/**
 * A `SqlDatabase` (of `@keyward/sql`) over Kysely with `MysqlDialect`. Given the application's
 * `db`, the store opens transactions of its own (`db.transaction()`, at READ COMMITTED, run
 * again after a deadlock); given a transaction (`trx`), everything the store does joins it: the
 * key commits with the application's rows, or neither does. Open that transaction at READ COMMITTED too
 * (`setIsolationLevel('read committed')`), as the store does its own: the active-key limit
 * counts keys after a locking read, and must see what the lock's last holder committed.
 *
 * @example
 * ```ts
 * import { createKeyward } from '@keyward/core'
 * import { mysqlDialect, SqlKeyStore } from '@keyward/sql'
 * import { kyselyDatabase } from '@keyward/mysql/kysely'
 *
 * const { key } = await db
 *   .transaction()
 *   .setIsolationLevel('read committed')
 *   .execute(async (trx) => {
 *     await trx.insertInto('projects').values({ id, name }).execute()
 *     const store = new SqlKeyStore(kyselyDatabase(trx), mysqlDialect)
 *     return createKeyward({ store }).issueProjectKey(id, { name: 'default' })
 *   })
 * ```
 */
// Keyward's statements name no table of the application's database type.
// biome-ignore lint/suspicious/noExplicitAny: any database type of the application
export function kyselyDatabase(db: Kysely<any> | Transaction<unknown>): SqlDatabase {
  return kyselyClientDatabase(
    'kyselyDatabase',
    db as Kysely<unknown>,
    (text, params) => CompiledQuery.raw(text, params),
    (top, fn) =>
      retriedOnDeadlock<Kysely<unknown>>((body) =>
        top.transaction().setIsolationLevel('read committed').execute(body),
      )(fn),
  )
}
