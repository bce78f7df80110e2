import type { SqlKeyStore } from '@keyward/sql'
import { APP_SCHEMA } from './schema.js'
import { type AppDialect, isSqlStore, type ServerStore } from './sql.js'

const code = (error: unknown): unknown => (error as { code?: unknown } | null)?.code
const errno = (error: unknown): number => Number((error as { errno?: unknown } | null)?.errno ?? 0)

/** The server's tables in PostgreSQL (or PGlite), in the schema `app`. */
function postgresDialect(keywardSchema: string): AppDialect {
  const table = (name: string) => `${APP_SCHEMA}.${name}`
  return {
    name: 'postgres',
    table,
    keysTable: `"${keywardSchema}".api_keys`,
    forUpdate: ' FOR UPDATE',
    keepExisting: ' ON CONFLICT (id) DO NOTHING',
    timeParam: (at) => at,
    toDate: (value) => value as Date,
    // The position to the microsecond, as PostgreSQL keeps it.
    positionColumn: `to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')`,
    positionText: (value) => value as string,
    param: { uuid: '?::uuid', json: '?::json', time: '?::timestamptz' },
    positionValue: (text) => text,
    idText: 'id::text',
    // foreign_key_violation
    isForeignKeyViolation: (error) => code(error) === '23503',
    tables: [
      `CREATE SCHEMA IF NOT EXISTS ${APP_SCHEMA}`,
      `CREATE TABLE IF NOT EXISTS ${table('developers')} (
        id         text        PRIMARY KEY,
        created_at timestamptz NOT NULL DEFAULT now()
      )`,
      `CREATE TABLE IF NOT EXISTS ${table('projects')} (
        id           uuid        PRIMARY KEY,
        name         text        NOT NULL,
        developer_id text        NOT NULL REFERENCES ${table('developers')} (id),
        created_at   timestamptz NOT NULL DEFAULT now()
      )`,
      // The body is kept as sent: json, not jsonb, which refuses some valid JSON (a \u0000 escape).
      `CREATE TABLE IF NOT EXISTS ${table('generations')} (
        id         uuid        PRIMARY KEY,
        project_id uuid        NOT NULL REFERENCES ${table('projects')} (id),
        body       json        NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now()
      )`,
      `CREATE INDEX IF NOT EXISTS generations_project_idx ON ${table('generations')} (project_id)`,
      // A developer's projects a page at a time, newest first (GET /api/v1/projects): one index scan.
      `CREATE INDEX IF NOT EXISTS projects_developer_page_idx
        ON ${table('projects')} (developer_id, created_at DESC, id DESC)`,
      // Server settings (never a secret: the access tokens' signing secret is not kept here).
      `CREATE TABLE IF NOT EXISTS ${table('settings')} (
        name  text PRIMARY KEY,
        value text NOT NULL
      )`,
    ],
  }
}

/**
 * The server's tables beside Keyward's on MySQL or SQLite: `app_` tables, UUIDs as text (in lower
 * case, as the server writes and looks them up), times in milliseconds since 1970 as the SQL
 * store keeps them. MySQL's are InnoDB with foreign keys, as PostgreSQL's; SQLite does not check
 * foreign keys, and needs not: its transactions run one at a time.
 */
function sqlDialect(store: SqlKeyStore): AppDialect {
  const { name, types, tableOptions } = store.dialect
  const mysql = name === 'mysql'
  const table = (table: string) => `${APP_SCHEMA}_${table}`
  // A table and its index: MySQL has no CREATE INDEX IF NOT EXISTS, so it makes it with the table.
  const create = (named: string, columns: readonly string[], index?: readonly [string, string]) => {
    const indexed = index && mysql ? [`INDEX ${index[0]} (${index[1]})`] : []
    return [
      `CREATE TABLE IF NOT EXISTS ${table(named)} (\n  ${[...columns, ...indexed].join(',\n  ')}\n)${tableOptions}`,
      ...(index && !mysql ? [`CREATE INDEX IF NOT EXISTS ${index[0]} ON ${table(named)} (${index[1]})`] : []),
    ]
  }
  return {
    name: mysql ? 'mysql' : 'sqlite',
    table,
    keysTable: store.tables.keys,
    forUpdate: store.dialect.forUpdate,
    keepExisting: mysql ? ' ON DUPLICATE KEY UPDATE id = id' : ' ON CONFLICT (id) DO NOTHING',
    timeParam: (at) => at.getTime(),
    toDate: (value) => new Date(Number(value)),
    positionColumn: 'created_at',
    positionText: (value) => new Date(Number(value)).toISOString(),
    param: { uuid: '?', json: '?', time: '?' },
    positionValue: (text) => Date.parse(text),
    idText: 'id',
    // ER_NO_REFERENCED_ROW_2
    isForeignKeyViolation: (error) => mysql && errno(error) === 1452,
    tables: [
      ...create('developers', [
        `id ${types.key} NOT NULL PRIMARY KEY`,
        `created_at ${types.bigint} NOT NULL`,
      ]),
      ...create(
        'projects',
        [
          `id ${types.uuid} NOT NULL PRIMARY KEY`,
          `name ${types.text} NOT NULL`,
          `developer_id ${types.key} NOT NULL`,
          `created_at ${types.bigint} NOT NULL`,
          `FOREIGN KEY (developer_id) REFERENCES ${table('developers')} (id)`,
        ],
        ['app_projects_developer_page_idx', 'developer_id, created_at DESC, id DESC'],
      ),
      // The body is kept as sent: text (MySQL's JSON type would rewrite it).
      ...create(
        'generations',
        [
          `id ${types.uuid} NOT NULL PRIMARY KEY`,
          `project_id ${types.uuid} NOT NULL`,
          `body ${types.text} NOT NULL`,
          `created_at ${types.bigint} NOT NULL`,
          `FOREIGN KEY (project_id) REFERENCES ${table('projects')} (id)`,
        ],
        ['app_generations_project_idx', 'project_id'],
      ),
      ...create('settings', [`name ${types.key} NOT NULL PRIMARY KEY`, `value ${types.text} NOT NULL`]),
    ],
  }
}

/** The dialect of the server's tables beside `store`'s. */
export function appDialect(store: ServerStore): AppDialect {
  return isSqlStore(store) ? sqlDialect(store) : postgresDialect(store.schema)
}
