// Databases for the tests: in-memory PGlite, or (with KEYWARD_PG_URL) a PostgreSQL database of
// their own, created for the test and dropped after it, since the server is shared.
// With PgBouncer installed, the PostgreSQL tests run through it too, in transaction mode.
// SQLite in a temporary file, and (with KEYWARD_MYSQL_URL) a MySQL database of their own.
import mysql from 'mysql2/promise'
import pg from 'pg'
import { describe } from 'vitest'
import { PgBouncer, pgbouncerUnavailable } from '../../../../scripts/pgbouncer.mjs'

/** The PostgreSQL server of the tests, when there is one. */
export const PG_URL = process.env.KEYWARD_PG_URL || undefined

/** Why the tests do not run through PgBouncer, or `undefined` when they do. */
export const PGBOUNCER_MISSING: string | undefined =
  pgbouncerUnavailable() ?? (PG_URL ? undefined : 'KEYWARD_PG_URL is not set: PgBouncer needs a server')

/** The MySQL (or MariaDB) server of the tests, when there is one. */
export const MYSQL_URL = process.env.KEYWARD_MYSQL_URL || undefined

/**
 * Where a test keeps its data: embedded PGlite, and PostgreSQL when the tests have one, directly
 * and through PgBouncer in transaction mode (prepared statements off, the change feed direct);
 * a SQLite file; MySQL when the tests have one.
 */
export type Backend = 'pglite' | 'postgres' | 'pgbouncer' | 'sqlite' | 'mysql'

/** The backends on PostgreSQL's store (PGlite included): the features only it has run there. */
export const isPostgres = (backend: Backend): boolean => backend !== 'sqlite' && backend !== 'mysql'
/** The backends that run here (the others are registered by {@link describeBackends}, skipped). */
export const BACKENDS: readonly Backend[] = PG_URL
  ? ['pglite', 'postgres', ...(PGBOUNCER_MISSING ? [] : (['pgbouncer'] as const))]
  : ['pglite']

/**
 * Registers a suite once per backend, `%s` in the title naming it. The PostgreSQL and MySQL ones
 * are always registered: without KEYWARD_PG_URL (or PgBouncer) or KEYWARD_MYSQL_URL they are
 * skipped, and their names say why.
 */
export function describeBackends(title: string, suite: (backend: Backend) => void): void {
  describe(title.replace('%s', 'pglite'), () => suite('pglite'))
  describe.skipIf(!PG_URL)(`${title.replace('%s', 'postgres')} (set KEYWARD_PG_URL to run)`, () =>
    suite('postgres'),
  )
  const bouncerTitle = title.replace('%s', 'pgbouncer')
  describe.skipIf(PGBOUNCER_MISSING)(
    PG_URL
      ? PGBOUNCER_MISSING
        ? `${bouncerTitle} (skipped: ${PGBOUNCER_MISSING})`
        : bouncerTitle
      : `${bouncerTitle} (set KEYWARD_PG_URL to run)`,
    () => suite('pgbouncer'),
  )
  describe(title.replace('%s', 'sqlite'), () => suite('sqlite'))
  const mysqlTitle = title.replace('%s', 'mysql')
  describe.skipIf(!MYSQL_URL)(MYSQL_URL ? mysqlTitle : `${mysqlTitle} (set KEYWARD_MYSQL_URL to run)`, () =>
    suite('mysql'),
  )
}

let mysqlDatabases = 0

/** A new, empty MySQL database on KEYWARD_MYSQL_URL: its URL, and `drop()` to remove it. */
export async function createMysqlDatabase(): Promise<{ url: string; drop(): Promise<void> }> {
  if (!MYSQL_URL) throw new Error('KEYWARD_MYSQL_URL is not set.')
  const name = `kw_server_${process.pid}_${Date.now().toString(36)}_${mysqlDatabases++}`
  const adminOf = async (sql: string) => {
    const connection = await mysql.createConnection({ uri: MYSQL_URL.replace(/^mariadb:/, 'mysql:') })
    try {
      await connection.query(sql)
    } finally {
      await connection.end()
    }
  }
  await adminOf(`CREATE DATABASE \`${name}\``)
  const url = new URL(MYSQL_URL)
  url.pathname = `/${name}`
  return { url: url.toString(), drop: () => adminOf(`DROP DATABASE IF EXISTS \`${name}\``) }
}

let bouncer: Promise<PgBouncer> | undefined
/**
 * The PgBouncer of this test process, in transaction mode in front of `KEYWARD_PG_URL`: started
 * on first use, stopped (and its directory removed) when the process exits.
 */
export function pgBouncer(): Promise<PgBouncer> {
  bouncer ??= PgBouncer.start({ server: PG_URL as string, poolMode: 'transaction' })
  return bouncer
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
