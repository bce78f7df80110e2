/**
 * The postgres.js (`postgres`) driver of the Keyward Postgres store: on the application's
 * `sql`, or inside one of its transactions (`sql.begin`).
 *
 * @packageDocumentation
 */

import type { Row, RowList, Sql, TransactionSql } from 'postgres'
import { type ClientDriverOptions, clientDriver, withDates } from './client-driver.js'
import type { SqlDriver, SqlRow } from './driver.js'

export type { ClientDriverOptions } from './client-driver.js'

/** Options of {@link postgresJsDriver}. */
export interface PostgresJsDriverOptions extends ClientDriverOptions {
  /**
   * Whether Keyward's statements run prepared (parsed once per connection). Default `true`.
   * Set `false` behind a transaction pooler (PgBouncer in transaction mode before 1.21,
   * Supavisor, ...), as you would set `prepare: false` on the client.
   */
  readonly preparedStatements?: boolean
}

type Handle = Sql | TransactionSql

/**
 * A {@link SqlDriver} over postgres.js. Given the application's `sql`, it runs each store
 * operation on the pool and opens transactions of its own with `sql.begin`, bounded on the
 * server by `SET LOCAL statement_timeout`. Given a transaction of `sql.begin`, everything the
 * store does joins that transaction: the key commits with the application's rows, or neither
 * does. A statement that outlives `queryTimeoutMs` is cancelled on the server
 * (`QueryTimeoutError`); the store's change feed (LISTEN) is `pgChangeFeed`'s, on a URL.
 *
 * @example
 * ```ts
 * import postgres from 'postgres'
 * import { createKeyward } from '@keyward/core'
 * import { PostgresKeyStore } from '@keyward/postgres'
 * import { postgresJsDriver } from '@keyward/postgres/postgres-js'
 *
 * const sql = postgres(process.env.DATABASE_URL!)
 * const { key } = await sql.begin(async (tx) => {
 *   await tx`INSERT INTO app.projects (id, name) VALUES (${id}, ${name})`
 *   const store = new PostgresKeyStore(postgresJsDriver(tx))
 *   return createKeyward({ store }).issueProjectKey(id, { name: 'default' })
 * })
 * ```
 */
export function postgresJsDriver(
  sql: Sql | TransactionSql,
  options: PostgresJsDriverOptions = {},
): SqlDriver {
  const who = 'postgresJsDriver'
  if (typeof sql !== 'function' || typeof (sql as Partial<Sql>).unsafe !== 'function') {
    throw new TypeError(`${who}: expected the \`sql\` of postgres() or a transaction of sql.begin().`)
  }
  const top = typeof (sql as Partial<Sql>).begin === 'function'
  if (!top && typeof (sql as Partial<TransactionSql>).savepoint !== 'function') {
    throw new TypeError(
      `${who}: expected the \`sql\` of postgres() or a transaction of sql.begin(), not a reserved connection.`,
    )
  }
  const prepared = options.preparedStatements ?? true
  if (typeof prepared !== 'boolean') {
    throw new TypeError(
      `${who}: option \`preparedStatements\` must be true or false, got ${String(prepared)}.`,
    )
  }
  return clientDriver<Handle>(
    who,
    sql,
    {
      query: (on, text, params, name) => {
        const query = on.unsafe(text, params as never[], { prepare: prepared && name !== undefined })
        return {
          rows: query.then((result: RowList<Row[]>) => withDates([...result] as SqlRow[], result.columns)),
          cancel: () => query.cancel(),
        }
      },
      transaction: top
        ? <T>(fn: (tx: Handle) => Promise<T>) =>
            (sql as Sql).begin('isolation level read committed', fn) as Promise<T>
        : undefined,
    },
    options,
  )
}
