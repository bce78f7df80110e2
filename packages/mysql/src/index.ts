import { migrateSql, mysqlDialect, SqlKeyStore } from '@keyward/sql'
import mysql, { type Pool } from 'mysql2/promise'
import { type MysqlDatabaseOptions, mysqlDatabase } from './database.js'
import { type MysqlChangeFeed, type MysqlChangeFeedOptions, mysqlChangeFeed } from './feed.js'

export { mysqlDialect } from '@keyward/sql'
export { type MysqlDatabaseOptions, mysqlDatabase } from './database.js'
export {
  type MysqlChangeFeed,
  type MysqlChangeFeedOptions,
  type MysqlChangeFeedSource,
  mysqlChangeFeed,
} from './feed.js'

/** Options of {@link createMysqlKeyStore}. */
export interface MysqlKeyStoreOptions extends Omit<MysqlDatabaseOptions, 'ownsPool'> {
  /** What Keyward's table names start with. Default `keyward_`. */
  readonly tablePrefix?: string
  /** Whether to create or bring up Keyward's tables when opening. Default `true`. */
  readonly migrate?: boolean
  /** Connections of a pool made from `connectionString`. Default 10. */
  readonly connectionLimit?: number
  /**
   * A change feed for a verification cache across processes: `true`, or the options of
   * {@link mysqlChangeFeed} (its `tablePrefix` is the store's). The feed polls the change log on a
   * connection of its own (from `{ pool }`, one of the pool's, held until `close()`); the store
   * builds, starts and closes it. Default: none (a verification cache over the store is off).
   */
  readonly changeFeed?: boolean | Omit<MysqlChangeFeedOptions, 'tablePrefix'>
  /**
   * Whether each write appends what it published to the change log, for the change feeds of
   * other processes. Default `true`: keep it on in every process that writes to a database whose
   * readers have a change feed.
   */
  readonly changeLog?: boolean
  /**
   * Strict revocation: a write that may take a right away returns B after its commit, and no
   * process accepts the key from its cache after that. `true` takes B from the change feed's
   * `freshnessBoundMs`; `{ boundMs }` sets it (a process without a feed, or a larger one). See the
   * MySQL guide, "The guarantee". Default: off.
   */
  readonly strictRevocation?: boolean | { readonly boundMs?: number }
}

const SCHEME = /^(mysql|mariadb):\/\//

/**
 * A Keyward key store on MySQL 8 or MariaDB 10.11, through a mysql2 pool: yours (`{ pool }`,
 * left open by `close()`), or one made from `{ connectionString }` (ended by `close()`). Its
 * tables are created unless `migrate: false`. With `changeFeed`, it has a change feed that polls
 * the change log, and a verification cache over it works across processes (see
 * {@link mysqlChangeFeed}); without, a verification cache over it is off.
 *
 * @example
 * ```ts
 * import { createKeyward } from '@keyward/core'
 * import { createMysqlKeyStore } from '@keyward/mysql'
 *
 * const store = await createMysqlKeyStore({ connectionString: 'mysql://root@127.0.0.1:3306/test' })
 * const keyward = createKeyward({ store })
 * ```
 */
export async function createMysqlKeyStore(
  source: { readonly pool: Pool } | { readonly connectionString: string },
  options: MysqlKeyStoreOptions = {},
): Promise<SqlKeyStore> {
  const given = (source as { pool?: Pool }).pool
  const url = (source as { connectionString?: string }).connectionString
  if (!given && typeof url !== 'string') {
    throw new TypeError('createMysqlKeyStore: pass `{ pool }` or `{ connectionString }`.')
  }
  if (!given && !SCHEME.test(url as string)) {
    throw new TypeError(
      'createMysqlKeyStore: option `connectionString` must start with mysql:// or mariadb://: ' +
        'give one such as mysql://user:password@localhost:3306/keys.',
    )
  }
  const pool =
    given ??
    mysql.createPool({
      uri: (url as string).replace(/^mariadb:/, 'mysql:'),
      connectionLimit: options.connectionLimit ?? 10,
      // No stack captured at each statement's call, about a fifth of the client's work of a
      // key's lookup: a failed statement still throws the driver's error, its message and code.
      trace: false,
    })
  const db = mysqlDatabase(pool, { ...options, ownsPool: !given })
  const tablePrefix = options.tablePrefix === undefined ? {} : { tablePrefix: options.tablePrefix }
  let changes: MysqlChangeFeed | undefined
  try {
    if (options.migrate !== false) await migrateSql(db, mysqlDialect, tablePrefix)
    if (options.changeFeed) {
      const feedOptions = options.changeFeed === true ? {} : options.changeFeed
      changes = mysqlChangeFeed(given ? { pool } : { connectionString: url as string }, {
        ...feedOptions,
        ...tablePrefix,
      })
      await changes.start()
    }
    return new SqlKeyStore(db, mysqlDialect, {
      ...tablePrefix,
      ...(changes ? { changes } : {}),
      ...(options.changeLog === undefined ? {} : { changeLog: options.changeLog }),
      ...(options.strictRevocation === undefined ? {} : { strictRevocation: options.strictRevocation }),
    })
  } catch (error) {
    await changes?.close()
    await db.close?.()
    throw error
  }
}
