import { DEFAULT_SCHEMA, PostgresKeyStore, type PostgresKeyStoreOptions } from './base.js'
import type { SqlDriver } from './driver.js'
import { MIGRATIONS, type Migration, statementsOf } from './schema.js'
import { checkSchema } from './statements.js'

/** Options of {@link migrate}. */
export interface MigrateOptions {
  /** The SQL schema of Keyward's tables. Default `keyward`. */
  readonly schema?: string
}

/** What {@link migrate} did. */
export interface MigrateResult {
  /** The schema version after the call. */
  readonly version: number
  /** The versions this call applied, oldest first; empty when the schema was up to date. */
  readonly applied: readonly number[]
}

// Two first-time migrations racing on CREATE ... IF NOT EXISTS: one of them fails on the
// catalog's unique index (or finds the object it was about to create); run it again.
const RACE_CODES = new Set(['23505', '42P06', '42P07', '40001', '40P01'])
const ATTEMPTS = 3

/**
 * Brings Keyward's tables to the current schema version, in one transaction: applies the
 * versions not yet recorded in `keyward_migrations`, and nothing when all are. Safe to call
 * on every start and from several processes at once (they take turns on a table lock).
 *
 * @example
 * ```ts
 * import { migrate } from '@keyward/postgres'
 * import { pgDriver } from '@keyward/postgres/pg'
 * const { version, applied } = await migrate(pgDriver(pool))
 * ```
 */
export async function migrate(driver: SqlDriver, options: MigrateOptions = {}): Promise<MigrateResult> {
  const schema = checkSchema('migrate', options.schema ?? DEFAULT_SCHEMA)
  for (let attempt = 1; ; attempt++) {
    try {
      return await applyMigrations(driver, schema, MIGRATIONS)
    } catch (error) {
      const code = (error as { code?: unknown } | null)?.code
      if (attempt >= ATTEMPTS || !RACE_CODES.has(code as string)) throw error
    }
  }
}

/** @internal Applies the `migrations` (oldest first) that `schema` has not recorded yet. */
export async function applyMigrations(
  driver: SqlDriver,
  schema: string,
  migrations: readonly Migration[],
): Promise<MigrateResult> {
  const table = `"${schema}".keyward_migrations`
  return driver.transaction(async (tx) => {
    const [found] = await tx.query<{ exists: boolean }>('SELECT to_regclass($1) IS NOT NULL AS exists', [
      table,
    ])
    let version = 0
    if (found?.exists) {
      await tx.query(`LOCK TABLE ${table} IN SHARE ROW EXCLUSIVE MODE`)
      const [row] = await tx.query<{ version: number | null }>(`SELECT max(version) AS version FROM ${table}`)
      version = row?.version ?? 0
    }
    const applied: number[] = []
    for (const migration of migrations) {
      if (migration.version <= version) continue
      for (const statement of statementsOf(migration.sql, schema)) await tx.query(statement)
      await tx.query(
        `INSERT INTO ${table} (version, name) VALUES ($1, $2) ON CONFLICT (version) DO NOTHING`,
        [migration.version, migration.name],
      )
      applied.push(migration.version)
      version = migration.version
    }
    return { version, applied }
  })
}

/** @internal Migrates (unless told not to) and builds the store; closes what it opened on failure. */
export async function openStore(
  driver: SqlDriver,
  options: PostgresKeyStoreOptions & { readonly migrate?: boolean },
): Promise<PostgresKeyStore> {
  let store: PostgresKeyStore | undefined
  try {
    if (options.migrate !== false) await migrate(driver, { schema: options.schema })
    store = new PostgresKeyStore(driver, options)
    await (options.changes as { start?: () => Promise<void> } | undefined)?.start?.()
    return store
  } catch (error) {
    if (store) await store.close()
    else await Promise.all([driver.close?.(), ...(options.readReplicas ?? []).map((r) => r.driver.close?.())])
    throw error
  }
}
