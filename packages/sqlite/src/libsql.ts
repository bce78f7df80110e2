/**
 * Keyward on libSQL (`@libsql/client`: a local file, or a Turso database): the SQLite store of
 * `@keyward/sql` over the client, with no copy of its SQL.
 *
 * @packageDocumentation
 */

import {
  clientDatabase,
  migrateSql,
  type SqlDatabase,
  SqlKeyStore,
  SqlOutcomeUnknownError,
  type SqlRow,
  sqliteDialect,
} from '@keyward/sql'
import { queueOf } from './queue.js'

/** A parameter as the store binds it (flags as 0 or 1, times as milliseconds). */
export type LibsqlValue = null | string | number | bigint | Uint8Array

/** What the store needs of a libSQL client or of one of its transactions. */
export interface LibsqlExecutor {
  execute(statement: { sql: string; args: LibsqlValue[] }): Promise<{
    readonly rows: ArrayLike<unknown>
    readonly rowsAffected: number
  }>
}

/** A transaction of a libSQL client (`client.transaction('write')`). */
export interface LibsqlTransaction extends LibsqlExecutor {
  commit(): Promise<void>
  rollback(): Promise<void>
  close(): void
}

/** What the store needs of a libSQL client (`createClient` of `@libsql/client`). */
export interface LibsqlClient extends LibsqlExecutor {
  transaction(mode: 'write'): Promise<LibsqlTransaction>
  close(): void
  /** `file` for a local file; `http`, `ws`... for a remote database. */
  readonly protocol?: string
}

// An error SQLite itself gave (a constraint, a busy database, a syntax error) says what happened;
// any other (the connection to a remote database failed or timed out) leaves a write's fate open.
const fromSqlite = (error: unknown) =>
  /^SQLITE_/.test(String((error as { code?: unknown } | null)?.code ?? ''))

/** A write whose connection failed: it may have committed, so it is never reported as failed. */
async function settled<T>(write: () => Promise<T>): Promise<T> {
  try {
    return await write()
  } catch (error) {
    throw fromSqlite(error) ? error : new SqlOutcomeUnknownError({ cause: error })
  }
}

/**
 * A `SqlDatabase` (of `@keyward/sql`) on a libSQL client: transactions under `BEGIN IMMEDIATE`
 * (`transaction('write')`), one at a time, and every other statement of Keyward's on the client
 * queued behind an open one, as `sqliteDatabase` queues them on better-sqlite3. A `COMMIT`, or a
 * write outside a transaction, that fails with anything but an error of SQLite's own (a remote
 * database's connection lost or timed out) throws `SqlOutcomeUnknownError`.
 *
 * @example
 * ```ts
 * import { createClient } from '@libsql/client'
 * import { SqlKeyStore, sqliteDialect } from '@keyward/sql'
 * import { libsqlDatabase } from '@keyward/sqlite/libsql'
 *
 * const store = new SqlKeyStore(libsqlDatabase(createClient({ url: 'file:keyward.db' })), sqliteDialect)
 * ```
 */
export function libsqlDatabase(client: LibsqlClient): SqlDatabase {
  if (typeof client?.execute !== 'function' || typeof client.transaction !== 'function') {
    throw new TypeError('libsqlDatabase: expected a client of @libsql/client (createClient).')
  }
  const queue = queueOf(client)
  const execute = (on: LibsqlExecutor, text: string, params: unknown[]) =>
    on.execute({ sql: text, args: params as LibsqlValue[] })
  // On the client, behind an open transaction of Keyward's; in the transaction, at once.
  const when = <T>(on: LibsqlExecutor, fn: () => Promise<T>) => (on === client ? queue.now(fn) : fn())
  const database = clientDatabase<LibsqlExecutor>(client, {
    query: (on, text, params) => when(on, async () => (await execute(on, text, params)).rows as SqlRow[]),
    run: (on, text, params) =>
      when(on, () =>
        on === client
          ? settled(async () => (await execute(on, text, params)).rowsAffected)
          : execute(on, text, params).then((result) => result.rowsAffected),
      ),
    transaction: (fn) =>
      queue.serial(async () => {
        const tx = await client.transaction('write')
        try {
          let result: Awaited<ReturnType<typeof fn>>
          try {
            result = await fn(tx)
          } catch (error) {
            await tx.rollback().catch(() => undefined)
            throw error
          }
          await settled(() => tx.commit())
          return result
        } finally {
          tx.close()
        }
      }),
  })
  return {
    ...database,
    close: async () => {
      await queue.serial(async () => client.close())
    },
  }
}

/** Options of {@link createLibsqlKeyStore}. */
export interface LibsqlKeyStoreOptions {
  /** The client (`createClient({ url })` of `@libsql/client`); `close()` of the store closes it. */
  readonly client: LibsqlClient
  /** What Keyward's table names start with. Default `keyward_`. */
  readonly tablePrefix?: string
  /** Whether to create or bring up Keyward's tables when opening. Default `true`. */
  readonly migrate?: boolean
}

/**
 * A Keyward key store on libSQL: a local file (`file:`) or a Turso database (`libsql:`,
 * `https:`), its tables created. Several processes may write to one libSQL database, so the
 * store has no change feed: `createKeyward` refuses a verification cache on it (a cache that did
 * not hear another process's revocation would accept the key). For one process on one file with
 * a cache, use `createSqliteKeyStore`.
 *
 * @example
 * ```ts
 * import { createClient } from '@libsql/client'
 * import { createKeyward } from '@keyward/core'
 * import { createLibsqlKeyStore } from '@keyward/sqlite/libsql'
 *
 * const store = await createLibsqlKeyStore({ client: createClient({ url: 'file:keyward.db' }) })
 * const keyward = createKeyward({ store })
 * ```
 */
export async function createLibsqlKeyStore(options: LibsqlKeyStoreOptions): Promise<SqlKeyStore> {
  const db = libsqlDatabase(options?.client)
  const tablePrefix = options.tablePrefix === undefined ? {} : { tablePrefix: options.tablePrefix }
  try {
    // A local file in WAL mode: reads go on while a write is under way (the mode stays with the file).
    if (options.client.protocol === 'file') await db.query('PRAGMA journal_mode = WAL')
    if (options.migrate !== false) await migrateSql(db, sqliteDialect, tablePrefix)
  } catch (error) {
    await db.close?.()
    throw error
  }
  return new SqlKeyStore(db, sqliteDialect, tablePrefix)
}
