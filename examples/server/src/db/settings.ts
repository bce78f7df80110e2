import type { Sql } from './sql.js'

/** Deletes a setting, if it is there. */
export async function deleteSetting(sql: Sql, name: string): Promise<void> {
  await sql.run(`DELETE FROM ${sql.dialect.table('settings')} WHERE name = ?`, [name])
}
