import type { SqlDialect } from '../dialect.js'

// SQLite's extended result code: a driver's `code` (better-sqlite3), or its `extendedCode` where it
// gives the primary code as `code` (libSQL's client).
const code = (error: unknown): string => {
  const { code, extendedCode } = (error ?? {}) as { code?: unknown; extendedCode?: unknown }
  return String(extendedCode ?? code ?? '')
}

/**
 * SQLite's words for the shared store: no locking read (a transaction under `BEGIN IMMEDIATE`
 * holds the database's one write lock), `INSERT OR IGNORE`, `ON CONFLICT ... DO UPDATE`.
 *
 * @example
 * ```ts
 * const store = new SqlKeyStore(sqliteDatabase(db), sqliteDialect)
 * ```
 */
export const sqliteDialect: SqlDialect = {
  name: 'sqlite',
  forUpdate: '',
  insertIgnore: 'INSERT OR IGNORE',
  upsertAdd: (conflict, column) =>
    `ON CONFLICT (${conflict.join(', ')}) DO UPDATE SET ${column} = ${column} + excluded.${column}`,
  jsonText: (column, path) => `json_extract(${column}, '${path}')`,
  types: {
    uuid: 'TEXT',
    hash: 'TEXT',
    key: 'TEXT',
    word: 'TEXT',
    text: 'TEXT',
    bigint: 'INTEGER',
    flag: 'INTEGER',
  },
  tableOptions: '',
  columnsQuery:
    'SELECT name, LOWER(type) AS type, "notnull" AS not_null, CASE WHEN pk > 0 THEN 1 ELSE 0 END AS pk ' +
    'FROM pragma_table_info(?) ORDER BY cid',
  // Indexes of CREATE INDEX (origin `c`), not those SQLite makes for a key.
  indexesQuery:
    'SELECT l.name AS name, l."unique" AS is_unique, ' +
    "(SELECT group_concat(i.name, ',') FROM (SELECT name FROM pragma_index_info(l.name) ORDER BY seqno) AS i) AS columns " +
    "FROM pragma_index_list(?) AS l WHERE l.origin = 'c'",
  isUniqueViolation: (error) => /^SQLITE_CONSTRAINT_(UNIQUE|PRIMARYKEY)$/.test(code(error)),
  isAlreadyThere: (error) =>
    code(error) === 'SQLITE_ERROR' && /already exists|duplicate column name/.test(String(error)),
}
