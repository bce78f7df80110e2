import type { SqlDialect } from '../dialect.js'

const errno = (error: unknown): number => Number((error as { errno?: unknown } | null)?.errno ?? 0)

/**
 * MySQL's words for the shared store, in the syntax MySQL 8 and MariaDB 10.11 both run: locking
 * reads `FOR UPDATE`, `INSERT IGNORE`, `ON DUPLICATE KEY UPDATE c = c + VALUES(c)` (MySQL 8.0.20
 * deprecates `VALUES()` for a row alias that MariaDB does not know; both still run it), InnoDB
 * tables with a binary collation (ids and hashes compare byte for byte, as on PostgreSQL).
 *
 * @example
 * ```ts
 * const store = new SqlKeyStore(mysqlDatabase(pool), mysqlDialect)
 * ```
 */
export const mysqlDialect: SqlDialect = {
  name: 'mysql',
  forUpdate: ' FOR UPDATE',
  insertIgnore: 'INSERT IGNORE',
  upsertAdd: (_conflict, column) => `ON DUPLICATE KEY UPDATE ${column} = ${column} + VALUES(${column})`,
  jsonText: (column, path) => `JSON_UNQUOTE(JSON_EXTRACT(${column}, '${path}'))`,
  types: {
    uuid: 'CHAR(36)',
    hash: 'CHAR(64)',
    key: 'VARCHAR(255)',
    word: 'VARCHAR(32)',
    text: 'MEDIUMTEXT',
    bigint: 'BIGINT',
    flag: 'TINYINT',
  },
  tableOptions: ' ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin',
  columnsQuery:
    "SELECT column_name AS name, LOWER(column_type) AS type, IF(is_nullable = 'NO', 1, 0) AS not_null, " +
    "IF(column_key = 'PRI', 1, 0) AS pk FROM information_schema.columns " +
    'WHERE table_schema = DATABASE() AND table_name = ? ORDER BY ordinal_position',
  indexesQuery:
    'SELECT index_name AS name, IF(MIN(non_unique) = 0, 1, 0) AS is_unique, ' +
    "GROUP_CONCAT(column_name ORDER BY seq_in_index SEPARATOR ',') AS columns " +
    'FROM information_schema.statistics ' +
    "WHERE table_schema = DATABASE() AND table_name = ? AND index_name <> 'PRIMARY' GROUP BY index_name",
  storage: {
    engine: 'InnoDB',
    collation: 'utf8mb4_bin',
    tableQuery:
      'SELECT engine AS engine, table_collation AS collation FROM information_schema.tables ' +
      'WHERE table_schema = DATABASE() AND table_name = ?',
    columnsQuery:
      'SELECT column_name AS name, collation_name AS collation FROM information_schema.columns ' +
      'WHERE table_schema = DATABASE() AND table_name = ? AND collation_name IS NOT NULL ORDER BY ordinal_position',
  },
  // ER_DUP_ENTRY
  isUniqueViolation: (error) => errno(error) === 1062,
  // ER_TABLE_EXISTS_ERROR, ER_DUP_FIELDNAME, ER_DUP_KEYNAME: a migration cut short and run again.
  isAlreadyThere: (error) => [1050, 1060, 1061].includes(errno(error)),
}
