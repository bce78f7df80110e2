// Databases for the tests: in-memory PGlite, or (with KEYWARD_PG_URL) a PostgreSQL database of
// their own, created for the test and dropped after it, since the server is shared.
import pg from 'pg'
import { describe } from 'vitest'

/** The PostgreSQL server of the tests, when there is one. */
export const PG_URL = process.env.KEYWARD_PG_URL || undefined

/** Where a test keeps its data: embedded PGlite, and PostgreSQL. */
export type Backend = 'pglite' | 'postgres'

/**
 * Registers a suite once per backend, `%s` in the title naming it. The PostgreSQL one is always
 * registered: without KEYWARD_PG_URL it is skipped, and its name says why.
 */
export function describeBackends(title: string, suite: (backend: Backend) => void): void {
  describe(title.replace('%s', 'pglite'), () => suite('pglite'))
  describe.skipIf(!PG_URL)(`${title.replace('%s', 'postgres')} (set KEYWARD_PG_URL to run)`, () =>
    suite('postgres'),
  )
}

async function admin<T>(run: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: PG_URL })
  await client.connect()
  try {
    return await run(client)
  } finally {
    await client.end()
  }
}

let databases = 0

/** A new, empty PostgreSQL database: its URL, and `drop()` to remove it. */
export async function createPgDatabase(): Promise<{ url: string; drop(): Promise<void> }> {
  if (!PG_URL) throw new Error('KEYWARD_PG_URL is not set.')
  const name = `kw_server_${process.pid}_${Date.now().toString(36)}_${databases++}`
  await admin((client) => client.query(`CREATE DATABASE "${name}"`))
  const url = new URL(PG_URL)
  url.pathname = `/${name}`
  return {
    url: url.toString(),
    drop: () =>
      admin((client) => client.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`)).then(() => {}),
  }
}
