import pg from 'pg'
import { ConfigError } from '../config.js'

// PostgreSQL's "prepared statement already exists".
const DUPLICATE_PREPARED_STATEMENT = '42P05'

/**
 * Whether `url` goes through a transaction pooler (PgBouncer in transaction mode, Supavisor, RDS
 * Proxy, ...): a statement that one connection prepares and then leaves idle is found already
 * prepared by a second connection. Directly, each connection has a server session of its own;
 * behind such a pooler, the second is handed the server session the first left (PgBouncer reuses
 * the session released last), which holds the first one's statement.
 */
export async function behindTransactionPooler(url: string, timeoutMs = 5_000): Promise<boolean> {
  const pool = new pg.Pool({ connectionString: url, max: 2, connectionTimeoutMillis: timeoutMs })
  pool.on('error', () => {})
  const name = `keyward_probe_${crypto.randomUUID().replaceAll('-', '')}`
  const first = await pool.connect()
  try {
    await first.query({ name, text: 'SELECT 1' })
    const second = await pool.connect()
    try {
      await second.query({ name, text: 'SELECT 1' })
      return false
    } catch (error) {
      if ((error as { code?: string }).code === DUPLICATE_PREPARED_STATEMENT) return true
      throw error
    } finally {
      second.release(true)
    }
  } finally {
    first.release(true)
    await pool.end()
  }
}

/**
 * Refuses to start with prepared statements through a transaction pooler: every verification
 * would otherwise answer 503, each time a statement meets a server session that lacks it.
 */
export async function checkNotBehindPooler(url: string): Promise<void> {
  if (await behindTransactionPooler(url)) {
    throw new ConfigError(
      'KEYWARD_PG_URL goes through a transaction pooler (a statement prepared on one connection was ' +
        'found on another): set KEYWARD_PG_PREPARED_STATEMENTS=off, and KEYWARD_PG_LISTEN_URL to a direct ' +
        'URL of the primary for the change feed (or KEYWARD_CACHE=off).',
    )
  }
}
