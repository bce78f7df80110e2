import { dialectOf, type ServerStore, transaction } from './sql.js'

/**
 * The SQL schema of the server's own tables on PostgreSQL (`app_` tables on MySQL and SQLite).
 * Keys are not here: they live in Keyward's store, which links them to a `developer_id` or a
 * `project_id`.
 */
export const APP_SCHEMA = 'app'

// Two processes creating the tables at once on PostgreSQL: the loser fails on the catalog's unique
// index (or finds the schema it was about to create). Its second attempt finds them all.
const CREATION_RACE = new Set(['23505', '42P06', '42P07'])

/** Creates the server's tables where they are missing, in one transaction. */
export async function createAppTables(store: ServerStore): Promise<void> {
  const { tables } = dialectOf(store)
  for (let attempt = 1; ; attempt++) {
    try {
      await transaction(store, async (tx) => {
        for (const statement of tables) await tx.execute(statement)
      })
      return
    } catch (error) {
      const code = (error as { code?: unknown } | null)?.code
      if (attempt >= 3 || !CREATION_RACE.has(code as string)) throw error
    }
  }
}
