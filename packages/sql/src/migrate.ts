import type { SqlDatabase, SqlDialect } from './dialect.js'
import {
  DEFAULT_TABLE_PREFIX,
  migrationsTableSql,
  type SqlMigration,
  sqlMigrations,
  sqlTables,
} from './schema.js'

/** Options of {@link migrateSql}. */
export interface MigrateSqlOptions {
  /** What Keyward's table names start with. Default `keyward_`. */
  readonly tablePrefix?: string
}

/** The schema version {@link migrateSql} brings a database to. */
export const SQL_SCHEMA_VERSION = 6

/**
 * Creates Keyward's tables, or brings them to the current version: each migration not yet
 * recorded in the `migrations` table runs, statement by statement, then is recorded. A
 * statement whose table, index or column is already there (a migration cut short) is passed over.
 * Returns the versions it applied.
 *
 * @example
 * ```ts
 * await migrateSql(db, sqliteDialect) // [1, 2, 3, 4] on a new database, [] after
 * ```
 */
export async function migrateSql(
  db: SqlDatabase,
  dialect: SqlDialect,
  options: MigrateSqlOptions = {},
): Promise<number[]> {
  const tables = sqlTables(options.tablePrefix ?? DEFAULT_TABLE_PREFIX, 'migrateSql')
  await db.run(migrationsTableSql(dialect, tables))
  const rows = await db.query<{ version: number | string }>(`SELECT version FROM ${tables.migrations}`)
  const applied = new Set(rows.map((row) => Number(row.version)))
  const done: number[] = []
  for (const migration of sqlMigrations(dialect, tables)) {
    if (applied.has(migration.version)) continue
    await apply(db, dialect, migration)
    await db.run(`${dialect.insertIgnore} INTO ${tables.migrations} (version, applied_at) VALUES (?, ?)`, [
      migration.version,
      Date.now(),
    ])
    done.push(migration.version)
  }
  return done
}

async function apply(db: SqlDatabase, dialect: SqlDialect, migration: SqlMigration): Promise<void> {
  for (const statement of migration.statements) {
    try {
      await db.run(statement)
    } catch (error) {
      if (!dialect.isAlreadyThere(error)) throw error
    }
  }
}
