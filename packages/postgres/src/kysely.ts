/**
 * The Kysely driver of the Keyward Postgres store: on the application's `Kysely` instance, or
 * inside one of its transactions.
 *
 * @packageDocumentation
 */

import { CompiledQuery, type Kysely, type Transaction } from 'kysely'
import { type ClientDriverOptions, clientDriver } from './client-driver.js'
import type { SqlDriver, SqlRow } from './driver.js'

export type { ClientDriverOptions } from './client-driver.js'

// Keyward's statements name no table of the application's database type.
// biome-ignore lint/suspicious/noExplicitAny: any database type of the application
type AnyKysely = Kysely<any>

/**
 * A {@link SqlDriver} over Kysely with a PostgreSQL dialect (`PostgresDialect` on node-postgres,
 * or a postgres.js dialect). Given the application's `db`, it opens transactions of its own
 * (`db.transaction()`), bounded on the server by `SET LOCAL statement_timeout`; given a
 * transaction (`trx`), everything the store does joins it: the key commits with the
 * application's rows, or neither does. Kysely cannot cancel a statement: a statement alone that
 * outlives `queryTimeoutMs` is abandoned (`QueryTimeoutError`) and runs on until it ends.
 * Timestamps must come back as `Date`s, as they do with the dialects' default parsers.
 *
 * @example
 * ```ts
 * import { createKeyward } from '@keyward/core'
 * import { PostgresKeyStore } from '@keyward/postgres'
 * import { kyselyDriver } from '@keyward/postgres/kysely'
 *
 * const { key } = await db.transaction().execute(async (trx) => {
 *   await trx.insertInto('projects').values({ id, name }).execute()
 *   const store = new PostgresKeyStore(kyselyDriver(trx))
 *   return createKeyward({ store }).issueProjectKey(id, { name: 'default' })
 * })
 * ```
 */
export function kyselyDriver(
  db: AnyKysely | Transaction<unknown>,
  options: ClientDriverOptions = {},
): SqlDriver {
  const who = 'kyselyDriver'
  if (typeof db?.executeQuery !== 'function' || typeof db.isTransaction !== 'boolean') {
    throw new TypeError(`${who}: expected a Kysely instance or a transaction of db.transaction().`)
  }
  return clientDriver<AnyKysely>(
    who,
    db as AnyKysely,
    {
      query: (on, text, params) => ({
        rows: on.executeQuery<SqlRow>(CompiledQuery.raw(text, params)).then((result) => result.rows),
      }),
      transaction: db.isTransaction
        ? undefined
        : <T>(fn: (tx: AnyKysely) => Promise<T>) =>
            (db as AnyKysely).transaction().setIsolationLevel('read committed').execute(fn),
    },
    options,
  )
}
