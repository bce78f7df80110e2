import { APP_SCHEMA } from './schema.js'
import type { Sql } from './sql.js'

/**
 * The value of a setting, created with `make()` the first time. When processes race, the
 * first write wins and every process reads that one.
 */
export async function settingOrCreate(sql: Sql, name: string, make: () => string): Promise<string> {
  await sql.query(
    `INSERT INTO ${APP_SCHEMA}.settings (name, value) VALUES ($1, $2) ON CONFLICT (name) DO NOTHING`,
    [name, make()],
  )
  const [row] = await sql.query<{ value: string }>(
    `SELECT value FROM ${APP_SCHEMA}.settings WHERE name = $1`,
    [name],
  )
  return row!.value
}
