import schemaV1Sql from './schema.sql?raw'
import schemaV2Sql from './schema-v2.sql?raw'

/**
 * The SQL of Keyward's tables at the current schema version (2, in the schema `keyward`):
 * version 1 as shipped in `dist/schema.sql` of the package, then version 2 as shipped in
 * `dist/schema-v2.sql`. Readable, idempotent, ready for `psql -f` or your own migration
 * tool. {@link migrate} applies the same statements.
 *
 * @example
 * ```ts
 * import { SCHEMA_SQL } from '@keyward/postgres'
 * await writeFile('migrations/001_keyward.sql', SCHEMA_SQL)
 * ```
 */
export const SCHEMA_SQL: string = `${schemaV1Sql}\n${schemaV2Sql}`

/** One versioned step of the schema. */
export interface Migration {
  readonly version: number
  readonly name: string
  /** Statements that write the schema `keyward`; {@link migrate} renames it. */
  readonly sql: string
}

/**
 * Every version of the schema, oldest first. A later version adds a file and an entry here;
 * a shipped entry never changes.
 *
 * @example
 * ```ts
 * MIGRATIONS.at(-1)?.version // 2
 * ```
 */
export const MIGRATIONS: readonly Migration[] = [
  { version: 1, name: 'initial', sql: schemaV1Sql },
  { version: 2, name: 'lifecycle', sql: schemaV2Sql },
]

/**
 * @internal The statements of a migration for `schema`: comments dropped, one statement per
 * entry, the schema `keyward` renamed.
 */
export function statementsOf(sql: string, schema: string): string[] {
  return sql
    .split('\n')
    .filter((line) => !line.trimStart().startsWith('--'))
    .join('\n')
    .split(/;[ \t]*(?:\n|$)/)
    .map((statement) => statement.trim().replace(/\bkeyward(?=[.;]|$)/g, `"${schema}"`))
    .filter((statement) => statement !== '')
}
