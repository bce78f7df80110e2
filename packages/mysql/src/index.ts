import { migrateSql, mysqlDialect, SqlKeyStore } from '@keyward/sql'
import mysql, { type Pool } from 'mysql2/promise'
import { type MysqlDatabaseOptions, mysqlDatabase } from './database.js'

export { mysqlDialect } from '@keyward/sql'
export { type MysqlDatabaseOptions, mysqlDatabase } from './database.js'

/** Options of {@link createMysqlKeyStore}. */
export interface MysqlKeyStoreOptions extends Omit<MysqlDatabaseOptions, 'ownsPool'> {
  /** What Keyward's table names start with. Default `keyward_`. */
  readonly tablePrefix?: string
  /** Whether to create or bring up Keyward's tables when opening. Default `true`. */
  readonly migrate?: boolean
  /** Connections of a pool made from `connectionString`. Default 10. */
  readonly connectionLimit?: number
}

const SCHEME = /^(mysql|mariadb):\/\//

/**
 * A Keyward key store on MySQL 8 or MariaDB 10.11, through a mysql2 pool: yours (`{ pool }`,
 * left open by `close()`), or one made from `{ connectionString }` (ended by `close()`). Its
 * tables are created unless `migrate: false`. The store has no change feed yet: a
 * verification cache over it is off, and every verification reads the database.
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
    })
  const db = mysqlDatabase(pool, { ...options, ownsPool: !given })
  const tablePrefix = options.tablePrefix === undefined ? {} : { tablePrefix: options.tablePrefix }
  try {
    if (options.migrate !== false) await migrateSql(db, mysqlDialect, tablePrefix)
  } catch (error) {
    await db.close?.()
    throw error
  }
  return new SqlKeyStore(db, mysqlDialect, tablePrefix)
}
