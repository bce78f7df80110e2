import type { PostgresKeyStore } from '@keyward/postgres'

/**
 * The SQL schema of the server's own tables. Keys are not here: they live in Keyward's
 * store (schema `keyward`), which links them to a `developer_id` or a `project_id`.
 */
export const APP_SCHEMA = 'app'

/** The server's tables, one idempotent statement each (run on every start). */
export const APP_TABLES: readonly string[] = [
  `CREATE SCHEMA IF NOT EXISTS ${APP_SCHEMA}`,
  `CREATE TABLE IF NOT EXISTS ${APP_SCHEMA}.developers (
    id         text        PRIMARY KEY,
    created_at timestamptz NOT NULL DEFAULT now()
  )`,
  `CREATE TABLE IF NOT EXISTS ${APP_SCHEMA}.projects (
    id           uuid        PRIMARY KEY,
    name         text        NOT NULL,
    developer_id text        NOT NULL REFERENCES ${APP_SCHEMA}.developers (id),
    created_at   timestamptz NOT NULL DEFAULT now()
  )`,
  // The body is kept as sent: json, not jsonb, which refuses some valid JSON (a \u0000 escape).
  `CREATE TABLE IF NOT EXISTS ${APP_SCHEMA}.generations (
    id         uuid        PRIMARY KEY,
    project_id uuid        NOT NULL REFERENCES ${APP_SCHEMA}.projects (id),
    body       json        NOT NULL,
    created_at timestamptz NOT NULL DEFAULT now()
  )`,
  `CREATE INDEX IF NOT EXISTS generations_project_idx ON ${APP_SCHEMA}.generations (project_id)`,
  // A developer's projects a page at a time, newest first (GET /api/v1/projects): one index scan.
  `CREATE INDEX IF NOT EXISTS projects_developer_page_idx
    ON ${APP_SCHEMA}.projects (developer_id, created_at DESC, id DESC)`,
  // Server settings (never a secret: the access tokens' signing secret is not kept here).
  `CREATE TABLE IF NOT EXISTS ${APP_SCHEMA}.settings (
    name  text PRIMARY KEY,
    value text NOT NULL
  )`,
]

// Two processes creating the tables at once: the loser fails on the catalog's unique index
// (or finds the schema it was about to create). Its second attempt finds them all.
const CREATION_RACE = new Set(['23505', '42P06', '42P07'])

/** Creates the server's tables where they are missing, in one transaction. */
export async function createAppTables(store: PostgresKeyStore): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    try {
      await store.transaction(async (tx) => {
        for (const statement of APP_TABLES) await tx.query(statement)
      })
      return
    } catch (error) {
      const code = (error as { code?: unknown } | null)?.code
      if (attempt >= 3 || !CREATION_RACE.has(code as string)) throw error
    }
  }
}
