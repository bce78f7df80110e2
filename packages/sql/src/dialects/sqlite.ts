import type { SqlDialect } from '../dialect.js'

const code = (error: unknown): string => String((error as { code?: unknown } | null)?.code ?? '')

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
  isUniqueViolation: (error) => /^SQLITE_CONSTRAINT_(UNIQUE|PRIMARYKEY)$/.test(code(error)),
  isAlreadyThere: (error) =>
    code(error) === 'SQLITE_ERROR' && /already exists|duplicate column name/.test(String(error)),
}
