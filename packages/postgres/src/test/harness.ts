// Stores on fresh schemas for tests: each harness has a schema of its own, dropped on close,
// so runs in parallel (and other users of the same server) never meet.
import { PGlite } from '@electric-sql/pglite'
import type { StoreHarness } from '@keyward/testkit'
import pg from 'pg'
import type { PostgresKeyStore } from '../base.js'
import type { SqlDriver } from '../driver.js'
import { createPgKeyStore, type PgKeyStoreOptions, pgDriver } from '../pg.js'
import { createPGliteKeyStore, pgliteDriver } from '../pglite.js'

/** The PostgreSQL server of the tests, when there is one. */
export const PG_URL = process.env.KEYWARD_PG_URL

let schemas = 0
export const uniqueSchema = () =>
  `kw_test_${process.pid}_${Date.now().toString(36)}_${(schemas++).toString(36)}`

export interface Harness extends StoreHarness {
  readonly store: PostgresKeyStore
  readonly schema: string
  /** A driver beside the store's (a connection of its own on PostgreSQL). */
  readonly driver: SqlDriver
  /** Runs SQL beside the store. */
  sql<R = Record<string, unknown>>(text: string, params?: unknown[]): Promise<R[]>
  close(): Promise<void>
}

function harness(store: PostgresKeyStore, driver: SqlDriver, close: () => Promise<void>): Harness {
  const sql = <R>(text: string, params?: unknown[]) => driver.query(text, params) as Promise<R[]>
  return {
    store,
    schema: store.schema,
    driver,
    sql,
    readRaw: () => sql(`SELECT * FROM "${store.schema}".api_keys`),
    readRawAudit: () => sql(`SELECT * FROM "${store.schema}".audit_log`),
    close,
  }
}

// PGlite takes a second to start: the tests share one database, each on its own schema.
let sharedPGlite: Promise<PGlite> | undefined
export const pgliteDatabase = () => {
  sharedPGlite ??= PGlite.create()
  return sharedPGlite
}

export async function pgliteHarness(): Promise<Harness> {
  const db = await pgliteDatabase()
  const schema = uniqueSchema()
  const store = await createPGliteKeyStore({ db }, { schema, queryTimeoutMs: 120_000 })
  return harness(store, pgliteDriver(db), async () => {
    await db.query(`DROP SCHEMA "${schema}" CASCADE`)
  })
}

/** A store on PostgreSQL (through `through`, a pooler's URL, when given), on a schema of its own. */
export async function pgHarness(
  options: PgKeyStoreOptions & { max?: number; through?: string } = {},
): Promise<Harness> {
  const url = PG_URL as string
  const { max, through, ...storeOptions } = options
  const schema = options.schema ?? uniqueSchema()
  const store = await createPgKeyStore(
    { connectionString: through ?? url, poolConfig: { max: max ?? 20 } },
    { queryTimeoutMs: 120_000, ...storeOptions, schema },
  )
  const admin = new pg.Client({ connectionString: url })
  await admin.connect()
  return harness(store, pgDriver(admin), async () => {
    await store.close()
    await admin.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`)
    await admin.end()
  })
}
