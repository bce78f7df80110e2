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

/**
 * The database holds a newer version of Keyward's schema than this version of
 * `@keyward/postgres` knows: a newer release migrated it. {@link migrate} refuses to touch
 * it (and so does the store it opens); upgrade `@keyward/postgres` in this application.
 *
 * @example
 * ```ts
 * try {
 *   await migrate(driver)
 * } catch (error) {
 *   if (error instanceof SchemaTooNewError) console.error(`upgrade: database at v${error.found}`)
 * }
 * ```
 */
export class SchemaTooNewError extends Error {
  /** The version the database holds. */
  readonly found: number
  /** The newest version this library knows. */
  readonly known: number

  constructor(schema: string, found: number, known: number) {
    super(
      `The Keyward schema "${schema}" is at version ${found}, newer than this @keyward/postgres knows (version ${known}). ` +
        'A newer release migrated it; upgrade @keyward/postgres here instead of running an older one against it.',
    )
    this.name = 'SchemaTooNewError'
    this.found = found
    this.known = known
  }
}

// Two first-time migrations racing on CREATE ... IF NOT EXISTS: one of them fails on the
// catalog's unique index (or finds the object it was about to create); a migration that
// waited longer than LOCK_TIMEOUT for a table lock (55P03). Run it again.
const RETRY_CODES = new Set(['23505', '42P06', '42P07', '40001', '40P01', '55P03'])
const ATTEMPTS = 5
// How long a statement may wait for a table lock. An ALTER TABLE queued behind a long
// transaction would make every verification queue behind it: give up and try again instead.
const LOCK_TIMEOUT = '5s'

/**
 * Brings Keyward's tables to the current schema version, in one transaction: applies the
 * versions not yet recorded in `keyward_migrations`, and nothing when all are. Safe to call
 * on every start and from several processes at once: they take turns on a transaction-level
 * advisory lock of the schema. Online: versions 2 and 4 only add nullable columns (no table
 * rewrite), and a lock wait is bounded, then retried. Refuses a database that a newer
 * release migrated ({@link SchemaTooNewError}).
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
      if (attempt >= ATTEMPTS || !RETRY_CODES.has(code as string)) throw error
      await new Promise((resolve) => setTimeout(resolve, 100 * attempt))
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
  const known = migrations.at(-1)?.version ?? 0
  return driver.transaction(async (tx) => {
    // One migration of this schema at a time, across connections and processes; released
    // when the transaction ends (so it works through a transaction pooler too).
    await tx.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`keyward.migrate:${schema}`])
    await tx.query(`SET LOCAL lock_timeout = '${LOCK_TIMEOUT}'`)
    const [found] = await tx.query<{ exists: boolean }>('SELECT to_regclass($1) IS NOT NULL AS exists', [
      table,
    ])
    let version = 0
    if (found?.exists) {
      const [row] = await tx.query<{ version: number | null }>(`SELECT max(version) AS version FROM ${table}`)
      version = row?.version ?? 0
    }
    if (version > known) throw new SchemaTooNewError(schema, version, known)
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

/** One version of the schema as SQL for a given schema name: what {@link migrate} runs for it. */
export interface MigrationSql {
  readonly version: number
  readonly name: string
  /** Its statements, each ending with a semicolon, for `psql -f` or a migration tool of yours. */
  readonly sql: string
}

/**
 * Every version of the schema as SQL for the schema `schema` (default `keyward`), oldest first:
 * the statements {@link migrate} runs, version by version, each of them idempotent and ending by
 * recording its version in `keyward_migrations` (so `migrate` later finds it applied). What
 * `keyward schema sql` prints.
 *
 * @example
 * ```ts
 * for (const { version, name, sql } of migrationSql('billing_keys')) {
 *   await writeFile(`migrations/${String(version).padStart(3, '0')}_keyward_${name}.sql`, sql)
 * }
 * ```
 */
export function migrationSql(schema = 'keyward'): MigrationSql[] {
  checkSchema('migrationSql', schema)
  return MIGRATIONS.map(({ version, name, sql }) => ({
    version,
    name,
    sql: statementsOf(sql, schema)
      .map((statement) => `${statement};\n`)
      .join('\n'),
  }))
}
