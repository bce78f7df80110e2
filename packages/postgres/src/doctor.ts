// What the database holds of Keyward's schema against what its migrations create. The expected
// schema is never written down by hand: the migrations build it in a scratch schema, inside a
// transaction that is rolled back, on the same server, and both are read from the catalog.
import { DEFAULT_SCHEMA } from './base.js'
import type { SqlDriver, SqlQueryable } from './driver.js'
import { MIGRATIONS, statementsOf } from './schema.js'
import { checkSchema } from './statements.js'

/** What kind of object a catalog entry is. */
export type SchemaObjectKind = 'table' | 'column' | 'constraint' | 'index' | 'trigger' | 'function'

/** @internal One object of a schema as the catalog describes it. */
export interface CatalogEntry {
  readonly kind: SchemaObjectKind
  /** Its name, qualified by its table where it belongs to one: `api_keys.hash`. */
  readonly name: string
  /** The table it belongs to, if any. */
  readonly table?: string
  /** Its definition as PostgreSQL prints it, with the schema's name as in `schema`. */
  readonly definition: string
}

/** One difference between the live schema and what Keyward's migrations create. */
export interface SchemaDrift {
  /** `missing`: the migrations create it, the database lacks it. `extra`: the reverse. `different`: both, defined otherwise. `version`: the recorded schema version. */
  readonly type: 'missing' | 'extra' | 'different' | 'version'
  readonly kind: SchemaObjectKind | 'schema'
  /** The object, schema-qualified: `keyward.api_keys.hash`. */
  readonly object: string
  /** The drift in one sentence. */
  readonly message: string
  /** What the migrations create, and what the database holds. */
  readonly expected?: string
  readonly found?: string
}

/** What {@link checkSchemaDrift} found. */
export interface SchemaDriftReport {
  readonly schema: string
  /** The version `keyward_migrations` records; `null` when the table is missing. */
  readonly version: number | null
  /** The version of this `@keyward/postgres`. */
  readonly expectedVersion: number
  /** Every difference; empty when the live schema is what the migrations create. */
  readonly drift: readonly SchemaDrift[]
}

/** Options of {@link checkSchemaDrift}. */
export interface CheckSchemaDriftOptions {
  /** The SQL schema of Keyward's tables. Default `keyward`. */
  readonly schema?: string
}

// The catalog of one schema: tables, columns (type, NOT NULL, default), constraints, indexes,
// triggers and functions, each with PostgreSQL's own text of its definition; an index that a
// failed CREATE INDEX CONCURRENTLY left invalid (never used, and found by IF NOT EXISTS) says so.
const CATALOG = `
SELECT 'table' AS kind, c.relname AS name, c.relname AS "table", '' AS definition
  FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
 WHERE n.nspname = $1 AND c.relkind IN ('r', 'p')
UNION ALL
SELECT 'column', c.relname || '.' || a.attname, c.relname,
       format_type(a.atttypid, a.atttypmod)
       || CASE WHEN a.attnotnull THEN ' NOT NULL' ELSE '' END
       || COALESCE(' DEFAULT ' || pg_get_expr(d.adbin, d.adrelid), '')
  FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid JOIN pg_namespace n ON n.oid = c.relnamespace
  LEFT JOIN pg_attrdef d ON d.adrelid = a.attrelid AND d.adnum = a.attnum
 WHERE n.nspname = $1 AND c.relkind IN ('r', 'p') AND a.attnum > 0 AND NOT a.attisdropped
UNION ALL
SELECT 'constraint', c.relname || '.' || k.conname, c.relname, pg_get_constraintdef(k.oid)
  FROM pg_constraint k JOIN pg_class c ON c.oid = k.conrelid JOIN pg_namespace n ON n.oid = c.relnamespace
 WHERE n.nspname = $1
UNION ALL
SELECT 'index', i.relname, t.relname,
       pg_get_indexdef(i.oid) || CASE WHEN x.indisvalid THEN '' ELSE ' (INVALID: drop it and build it again)' END
  FROM pg_index x JOIN pg_class i ON i.oid = x.indexrelid JOIN pg_class t ON t.oid = x.indrelid
  JOIN pg_namespace n ON n.oid = t.relnamespace
 WHERE n.nspname = $1
UNION ALL
SELECT 'trigger', c.relname || '.' || g.tgname, c.relname, pg_get_triggerdef(g.oid)
  FROM pg_trigger g JOIN pg_class c ON c.oid = g.tgrelid JOIN pg_namespace n ON n.oid = c.relnamespace
 WHERE n.nspname = $1 AND NOT g.tgisinternal
UNION ALL
SELECT 'function', p.proname || '(' || pg_get_function_identity_arguments(p.oid) || ')', NULL,
       pg_get_function_result(p.oid) || ' ' || p.prosrc
  FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
 WHERE n.nspname = $1
ORDER BY 1, 2`

/**
 * @internal The catalog entries of `schema`, definitions as PostgreSQL prints them, with the
 * schema's qualified name (`keyward.`) written `as` the schema given (a scratch schema then
 * reads like the live one).
 */
export async function catalogOf(db: SqlQueryable, schema: string, as = schema): Promise<CatalogEntry[]> {
  const [quoted] = await db.query<{ from: string; to: string }>(
    'SELECT quote_ident($1) AS "from", quote_ident($2) AS "to"',
    [schema, as],
  )
  const rows = await db.query<{
    kind: SchemaObjectKind
    name: string
    table: string | null
    definition: string
  }>(CATALOG, [schema])
  return rows.map((row) => ({
    kind: row.kind,
    name: row.name,
    ...(row.table === null ? {} : { table: row.table }),
    definition: row.definition.replaceAll(`${quoted!.from}.`, `${quoted!.to}.`),
  }))
}

/**
 * @internal Every difference between `expected` and `found`, the catalogs of one schema:
 * objects of a table that is missing (or extra) are not listed one by one.
 */
export function compareCatalogs(
  schema: string,
  expected: readonly CatalogEntry[],
  found: readonly CatalogEntry[],
): SchemaDrift[] {
  const byKey = (entries: readonly CatalogEntry[]) => new Map(entries.map((e) => [`${e.kind} ${e.name}`, e]))
  const want = byKey(expected)
  const have = byKey(found)
  const tables = (entries: Map<string, CatalogEntry>) =>
    new Set([...entries.values()].filter((e) => e.kind === 'table').map((e) => e.name))
  const wantTables = tables(want)
  const haveTables = tables(have)
  const drift: SchemaDrift[] = []
  const named = (entry: CatalogEntry) => `${schema}.${entry.name}`
  for (const [key, entry] of want) {
    const there = have.get(key)
    if (!there) {
      // A missing table is one drift, not one per column.
      if (entry.kind !== 'table' && entry.table !== undefined && !haveTables.has(entry.table)) continue
      drift.push({
        type: 'missing',
        kind: entry.kind,
        object: named(entry),
        message: `${entry.kind} ${named(entry)} is missing${entry.definition ? `: expected ${entry.definition}` : ''}`,
        expected: entry.definition,
      })
    } else if (there.definition !== entry.definition) {
      drift.push({
        type: 'different',
        kind: entry.kind,
        object: named(entry),
        message: `${entry.kind} ${named(entry)} differs: expected ${entry.definition}, found ${there.definition}`,
        expected: entry.definition,
        found: there.definition,
      })
    }
  }
  for (const [key, entry] of have) {
    if (want.has(key)) continue
    if (entry.kind !== 'table' && entry.table !== undefined && !wantTables.has(entry.table)) continue
    drift.push({
      type: 'extra',
      kind: entry.kind,
      object: named(entry),
      message: `${entry.kind} ${named(entry)} is not in Keyward's schema${entry.definition ? `: ${entry.definition}` : ''}`,
      found: entry.definition,
    })
  }
  return drift
}

/**
 * Compares Keyward's schema in the database with what its migrations create at this version of
 * `@keyward/postgres`: tables, columns (type, NOT NULL, default), constraints, indexes, the
 * change feed's triggers and functions (on `api_keys` and `identities`), and the version recorded in `keyward_migrations`. The
 * expected schema is built by the migrations themselves in a scratch schema, under a savepoint
 * that is rolled back, so the database keeps nothing of it (in your transaction too, with a
 * driver that joins it) (it needs the right to create a
 * schema). It writes nothing to Keyward's schema; `keyward doctor` prints the report.
 *
 * @example
 * ```ts
 * const { drift } = await checkSchemaDrift(pgDriver(pool))
 * for (const { message } of drift) console.error(message) // "index keyward.api_keys_hash_key is missing: ..."
 * ```
 */
export async function checkSchemaDrift(
  driver: SqlDriver,
  options: CheckSchemaDriftOptions = {},
): Promise<SchemaDriftReport> {
  const schema = checkSchema('checkSchemaDrift', options.schema ?? DEFAULT_SCHEMA)
  const scratch = `keyward_doctor_${crypto.randomUUID().replaceAll('-', '').slice(0, 16)}`
  const expectedVersion = MIGRATIONS.at(-1)?.version ?? 0
  return driver.transaction(async (tx) => {
    // A savepoint rather than the transaction's end: in a transaction of the application's
    // (a joined driver), the scratch schema must be gone before the application commits.
    await tx.query('SAVEPOINT keyward_doctor')
    try {
      const found = await catalogOf(tx, schema)
      for (const migration of MIGRATIONS) {
        for (const statement of statementsOf(migration.sql, scratch)) await tx.query(statement)
      }
      const expected = await catalogOf(tx, scratch, schema)
      const version = await recordedVersion(tx, schema, found)
      return {
        schema,
        version,
        expectedVersion,
        drift: driftOf(schema, expected, found, version, expectedVersion),
      }
    } finally {
      await tx.query('ROLLBACK TO SAVEPOINT keyward_doctor')
    }
  })
}

/** The drift of the catalogs, with the recorded version's first. */
function driftOf(
  schema: string,
  expected: readonly CatalogEntry[],
  found: readonly CatalogEntry[],
  version: number | null,
  expectedVersion: number,
): SchemaDrift[] {
  if (found.length === 0) {
    return [
      {
        type: 'missing',
        kind: 'schema',
        object: schema,
        message: `schema ${schema} holds none of Keyward's tables: run migrate() or apply \`keyward schema sql\``,
      },
    ]
  }
  const drift = compareCatalogs(schema, expected, found)
  if (version === expectedVersion) return drift
  return [
    {
      type: 'version',
      kind: 'schema',
      object: `${schema}.keyward_migrations`,
      message:
        version === null
          ? `${schema}.keyward_migrations is missing: the schema was not made by Keyward's migrations`
          : version < expectedVersion
            ? `schema ${schema} is at version ${version}; this @keyward/postgres expects ${expectedVersion}: run migrate() or apply \`keyward schema sql\``
            : `schema ${schema} is at version ${version}, newer than this @keyward/postgres knows (${expectedVersion}): upgrade @keyward/postgres`,
      expected: String(expectedVersion),
      found: version === null ? 'none' : String(version),
    },
    ...drift,
  ]
}

async function recordedVersion(tx: SqlQueryable, schema: string, found: readonly CatalogEntry[]) {
  if (!found.some((entry) => entry.kind === 'table' && entry.name === 'keyward_migrations')) return null
  const [row] = await tx.query<{ version: number | null }>(
    `SELECT max(version) AS version FROM "${schema}".keyward_migrations`,
  )
  return row?.version ?? null
}
