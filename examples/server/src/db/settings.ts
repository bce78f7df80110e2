import { APP_SCHEMA } from './schema.js'
import type { Sql } from './sql.js'

/** Deletes a setting, if it is there. */
export async function deleteSetting(sql: Sql, name: string): Promise<void> {
  await sql.query(`DELETE FROM ${APP_SCHEMA}.settings WHERE name = $1`, [name])
}
