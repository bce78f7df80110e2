// The databases a store bench runs on, one after another: PostgreSQL when KEYWARD_PG_URL names a
// server (in a schema of its own, dropped after), and embedded PGlite always.
import { PGlite } from '@electric-sql/pglite'
import { migrate } from '@keyward/postgres'
import { pgDriver } from '@keyward/postgres/pg'
import { pgliteDriver } from '@keyward/postgres/pglite'
import pg from 'pg'

/**
 * Runs `bench({ label, driver, schema, raw })` on each database, its schema migrated; `raw` runs
 * SQL beside the store, for a hand-written comparison.
 *
 * @param {string} name a word for the PostgreSQL schema's name
 * @param {number} connections the PostgreSQL pool's size
 * @param {(db: { label: string, driver: import('@keyward/postgres').SqlDriver, schema: string,
 *   raw: (text: string, values?: unknown[]) => Promise<unknown[]> }) => Promise<void>} bench
 */
export async function onEachDatabase(name, connections, bench) {
  const url = process.env.KEYWARD_PG_URL
  if (url) {
    const schema = `kw_bench_${name}_${process.pid}`
    const pool = new pg.Pool({ connectionString: url, max: connections })
    try {
      const driver = pgDriver(pool)
      await migrate(driver, { schema })
      const raw = async (text, values) => (await pool.query(text, values)).rows
      await bench({ label: `PostgreSQL (pg Pool, ${connections})`, driver, schema, raw })
    } finally {
      await pool.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`)
      await pool.end()
    }
  }
  const db = await PGlite.create()
  try {
    const driver = pgliteDriver(db)
    await migrate(driver)
    const raw = async (text, values) => (await db.query(text, values)).rows
    await bench({ label: 'PGlite (in process)', driver, schema: 'keyward', raw })
  } finally {
    await db.close()
  }
}
