import { KeyChangeHub } from '@keyward/core'
import { migrateSql, SqlKeyStore, sqliteDialect } from '@keyward/sql'
import { sqliteDatabase } from './database.js'
import { type OpenSqliteOptions, openSqlite } from './open.js'

export { sqliteDialect } from '@keyward/sql'
export { sqliteDatabase } from './database.js'
export { DatabaseInUseError, type OpenSqliteOptions } from './open.js'

/** Options of {@link createSqliteKeyStore}. */
export interface SqliteKeyStoreOptions extends OpenSqliteOptions {
  /** The database file (made when missing), or `:memory:`. */
  readonly path: string
  /** What Keyward's table names start with. Default `keyward_`. */
  readonly tablePrefix?: string
  /** Whether to create or bring up Keyward's tables when opening. Default `true`. */
  readonly migrate?: boolean
}

/**
 * A Keyward key store in a SQLite file: opened in WAL mode with full sync (an acknowledged write
 * survives `kill -9` and a power cut), locked for this process (a second one is refused with
 * {@link DatabaseInUseError}), its tables created, and a change feed of its own writes for the
 * verification cache (one process holds the file, so it hears every write). `close()` closes the
 * file and lets the lock go.
 *
 * @example
 * ```ts
 * import { createKeyward } from '@keyward/core'
 * import { createSqliteKeyStore } from '@keyward/sqlite'
 *
 * const store = await createSqliteKeyStore({ path: './keyward.db' })
 * const keyward = createKeyward({ store })
 * ```
 */
export async function createSqliteKeyStore(options: SqliteKeyStoreOptions): Promise<SqlKeyStore> {
  if (typeof options?.path !== 'string' || options.path === '') {
    throw new TypeError('createSqliteKeyStore: option `path` must be a file path or `:memory:`.')
  }
  const tablePrefix = options.tablePrefix === undefined ? {} : { tablePrefix: options.tablePrefix }
  const db = sqliteDatabase(openSqlite(options.path, options))
  try {
    if (options.migrate !== false) await migrateSql(db, sqliteDialect, tablePrefix)
  } catch (error) {
    await db.close?.()
    throw error
  }
  return new SqlKeyStore(db, sqliteDialect, {
    ...tablePrefix,
    changes: new KeyChangeHub({ connected: true }),
  })
}
