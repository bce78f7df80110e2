// What the database holds of Keyward's tables against what the migrations create: each table's
// columns (type, NOT NULL, primary key) and indexes, read with the dialect's own catalog query,
// and the version the migrations table records.
import type { SqlDialect, SqlExecutor } from './dialect.js'
import { SQL_SCHEMA_VERSION } from './migrate.js'
import { DEFAULT_TABLE_PREFIX, sqlTables } from './schema.js'
import { type SqlTableModel, sqlSchemaModel } from './schema-model.js'

/** One difference between the live tables and what Keyward's migrations create. */
export interface SqlSchemaDrift {
  /** `missing`: the migrations create it, the database lacks it. `different`: both, defined otherwise. `version`: the recorded schema version. */
  readonly type: 'missing' | 'different' | 'version'
  readonly kind: 'table' | 'column' | 'index' | 'schema'
  /** The object: `keyward_api_keys`, `keyward_api_keys.hash`, an index's name. */
  readonly object: string
  /** The drift in one sentence. */
  readonly message: string
  /** What the migrations create, and what the database holds. */
  readonly expected?: string
  readonly found?: string
}

/** What {@link checkSqlSchema} found. */
export interface SqlSchemaReport {
  readonly tablePrefix: string
  /** The newest version the migrations table records; `null` when the table is missing. */
  readonly version: number | null
  /** The version of this `@keyward/sql`. */
  readonly expectedVersion: number
  /** Every difference; empty when the tables are what the migrations create. */
  readonly drift: readonly SqlSchemaDrift[]
}

// A type as the catalog prints it, without MariaDB's display widths (`bigint(20)`).
const typeOf = (type: string) => type.toLowerCase().replace(/^(bigint|tinyint|smallint|int)\(\d+\)/, '$1')

const definition = (type: string, notNull: boolean, pk: boolean) =>
  `${type}${notNull ? ' NOT NULL' : ''}${pk ? ' PRIMARY KEY' : ''}`

/**
 * Compares Keyward's tables under `tablePrefix` (default `keyward_`) with what this version's
 * migrations create: every table, each column's type, NOT NULL and place in the primary key,
 * every index (its columns and whether it is unique), and the version recorded. It only reads.
 *
 * @example
 * ```ts
 * const report = await checkSqlSchema(mysqlDatabase(pool), mysqlDialect)
 * for (const drift of report.drift) console.log(drift.message)
 * ```
 */
export async function checkSqlSchema(
  db: SqlExecutor,
  dialect: SqlDialect,
  options: { readonly tablePrefix?: string } = {},
): Promise<SqlSchemaReport> {
  const tablePrefix = options.tablePrefix ?? DEFAULT_TABLE_PREFIX
  const tables = sqlTables(tablePrefix, 'checkSqlSchema')
  const drift: SqlSchemaDrift[] = []
  let tableFound = false
  for (const table of sqlSchemaModel(tablePrefix)) {
    const found = await compareTable(db, dialect, table, drift)
    if (table.name === tables.migrations) tableFound = found
  }
  let version: number | null = null
  if (tableFound) {
    const [row] = await db.query<{ version: number | string | null }>(
      `SELECT MAX(version) AS version FROM ${tables.migrations}`,
    )
    version = row?.version === null || row?.version === undefined ? 0 : Number(row.version)
  }
  if (version !== SQL_SCHEMA_VERSION) {
    drift.push({
      type: 'version',
      kind: 'schema',
      object: tables.migrations,
      message:
        version === null
          ? `${tables.migrations} is missing: Keyward's migrations were never run here.`
          : `${tables.migrations} records version ${version}, expected ${SQL_SCHEMA_VERSION}.`,
      expected: String(SQL_SCHEMA_VERSION),
      ...(version === null ? {} : { found: String(version) }),
    })
  }
  return { tablePrefix, version, expectedVersion: SQL_SCHEMA_VERSION, drift }
}

// Pushes the drift of one table; whether the table is there.
async function compareTable(
  db: SqlExecutor,
  dialect: SqlDialect,
  table: SqlTableModel,
  drift: SqlSchemaDrift[],
): Promise<boolean> {
  const columns = await db.query<{ name: string; type: string; not_null: unknown; pk: unknown }>(
    dialect.columnsQuery,
    [table.name],
  )
  if (columns.length === 0) {
    drift.push({
      type: 'missing',
      kind: 'table',
      object: table.name,
      message: `Table ${table.name} is missing.`,
    })
    return false
  }
  const live = new Map(columns.map((column) => [column.name, column]))
  for (const column of table.columns) {
    const object = `${table.name}.${column.name}`
    const expected = definition(
      typeOf(dialect.types[column.kind]),
      column.notNull,
      table.primaryKey.includes(column.name),
    )
    const there = live.get(column.name)
    if (!there) {
      drift.push({
        type: 'missing',
        kind: 'column',
        object,
        message: `Column ${object} is missing.`,
        expected,
      })
      continue
    }
    const found = definition(typeOf(there.type), Number(there.not_null) === 1, Number(there.pk) === 1)
    if (found !== expected) {
      drift.push({
        type: 'different',
        kind: 'column',
        object,
        message: `Column ${object} is ${found}, expected ${expected}.`,
        expected,
        found,
      })
    }
  }
  if (dialect.storage) await compareStorage(db, dialect.storage, table.name, drift)
  const indexes = await db.query<{ name: string; is_unique: unknown; columns: string }>(
    dialect.indexesQuery,
    [table.name],
  )
  const liveIndexes = new Map(indexes.map((index) => [index.name, index]))
  for (const index of table.indexes) {
    const expected = `${index.unique ? 'UNIQUE ' : ''}(${index.columns.join(', ')})`
    const there = liveIndexes.get(index.name)
    if (!there) {
      drift.push({
        type: 'missing',
        kind: 'index',
        object: index.name,
        message: `Index ${index.name} on ${table.name} ${expected} is missing.`,
        expected,
      })
      continue
    }
    const found = `${Number(there.is_unique) === 1 ? 'UNIQUE ' : ''}(${String(there.columns).split(',').join(', ')})`
    if (found !== expected) {
      drift.push({
        type: 'different',
        kind: 'index',
        object: index.name,
        message: `Index ${index.name} on ${table.name} is ${found}, expected ${expected}.`,
        expected,
        found,
      })
    }
  }
  return true
}

// Pushes the drift of a table's engine and collation, and of its text columns' collations.
async function compareStorage(
  db: SqlExecutor,
  storage: NonNullable<SqlDialect['storage']>,
  table: string,
  drift: SqlSchemaDrift[],
): Promise<void> {
  const [options] = await db.query<{ engine: string | null; collation: string | null }>(storage.tableQuery, [
    table,
  ])
  const expected = `ENGINE=${storage.engine} COLLATE=${storage.collation}`
  const found = `ENGINE=${options?.engine ?? 'none'} COLLATE=${options?.collation ?? 'none'}`
  if (found !== expected) {
    drift.push({
      type: 'different',
      kind: 'table',
      object: table,
      message: `Table ${table} is ${found}, expected ${expected}.`,
      expected,
      found,
    })
  }
  for (const column of await db.query<{ name: string; collation: string }>(storage.columnsQuery, [table])) {
    if (column.collation === storage.collation) continue
    const object = `${table}.${column.name}`
    drift.push({
      type: 'different',
      kind: 'column',
      object,
      message: `Column ${object} collates ${column.collation}, expected ${storage.collation}.`,
      expected: `COLLATE ${storage.collation}`,
      found: `COLLATE ${column.collation}`,
    })
  }
}
