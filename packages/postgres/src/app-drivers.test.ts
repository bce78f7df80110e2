// The store on the application's own database client: node-postgres (a pool's client or a lone
// Client in the application's transaction), postgres.js, Drizzle on node-postgres and on
// postgres.js, and Kysely. The application writes its rows and a key in one transaction of its
// own: rolled back, no key exists; committed, the key verifies.
import { createKeyward } from '@keyward/core'
import { runStoreConformance } from '@keyward/testkit'
import { drizzle as drizzlePg } from 'drizzle-orm/node-postgres'
import { pgSchema, text } from 'drizzle-orm/pg-core'
import { drizzle as drizzlePostgresJs } from 'drizzle-orm/postgres-js'
import { Kysely, PostgresDialect } from 'kysely'
import pg from 'pg'
import postgres from 'postgres'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { PostgresKeyStore } from './base.js'
import { checkSchemaDrift } from './doctor.js'
import { QueryTimeoutError, type SqlDriver } from './driver.js'
import { drizzleDriver } from './drizzle.js'
import { kyselyDriver } from './kysely.js'
import { migrate } from './migrate.js'
import { pgDriver, pgTransactionDriver } from './pg.js'
import { postgresJsDriver } from './postgres-js.js'
import { PG_URL, uniqueSchema } from './test/harness.js'

/** One client library as an application uses it. */
interface AppClient {
  /** The store's driver on the library's top-level handle: transactions of Keyward's own. */
  readonly driver: SqlDriver
  /**
   * Runs `body` in a transaction of the application's, with the library's own API: `insert`
   * writes a row of the application's, `driver` joins the transaction.
   */
  inTransaction<T>(
    schema: string,
    body: (driver: SqlDriver, insert: (id: string) => Promise<unknown>) => Promise<T>,
  ): Promise<T>
  close(): Promise<void>
}

const projectsOf = (schema: string) =>
  pgSchema(schema).table('projects', { id: text('id').primaryKey(), name: text('name').notNull() })

// biome-ignore lint/suspicious/noExplicitAny: the application's database type is not Keyward's
type AnyKysely = Kysely<any>

/** The application's transaction on a node-postgres client: BEGIN, its row and the body, COMMIT or ROLLBACK. */
async function pgTransaction<T>(
  client: pg.ClientBase,
  schema: string,
  body: Parameters<AppClient['inTransaction']>[1],
): Promise<T> {
  await client.query('BEGIN')
  try {
    const result = await body(pgTransactionDriver(client), (id) =>
      client.query(`INSERT INTO "${schema}".projects (id, name) VALUES ($1, $2)`, [id, 'Demo']),
    )
    await client.query('COMMIT')
    return result as T
  } catch (error) {
    await client.query('ROLLBACK')
    throw error
  }
}

const CLIENTS: Record<string, () => Promise<AppClient>> = {
  'pg Pool': async () => {
    const pool = new pg.Pool({ connectionString: PG_URL, max: 5 })
    pool.on('error', () => {})
    return {
      driver: pgDriver(pool, { queryTimeoutMs: 120_000 }),
      async inTransaction(schema, body) {
        const client = await pool.connect()
        try {
          return await pgTransaction(client, schema, body)
        } finally {
          client.release()
        }
      },
      close: () => pool.end(),
    }
  },
  'pg Client': async () => {
    const client = new pg.Client({ connectionString: PG_URL })
    await client.connect()
    return {
      driver: pgDriver(client, { queryTimeoutMs: 120_000 }),
      inTransaction: (schema, body) => pgTransaction(client, schema, body),
      close: () => client.end(),
    }
  },
  'postgres.js': async () => {
    const sql = postgres(PG_URL as string, { max: 5, onnotice: () => {} })
    return {
      driver: postgresJsDriver(sql, { queryTimeoutMs: 120_000 }),
      inTransaction: (schema, body) =>
        sql.begin((tx) =>
          body(
            postgresJsDriver(tx),
            (id) => tx`INSERT INTO ${tx(schema)}.projects (id, name) VALUES (${id}, ${'Demo'})`,
          ),
        ) as never,
      close: () => sql.end(),
    }
  },
  'Drizzle on node-postgres': async () => {
    const pool = new pg.Pool({ connectionString: PG_URL, max: 5 })
    pool.on('error', () => {})
    const db = drizzlePg(pool)
    return {
      driver: drizzleDriver(db, { queryTimeoutMs: 120_000 }),
      inTransaction: (schema, body) =>
        db.transaction((tx) =>
          body(drizzleDriver(tx), (id) => tx.insert(projectsOf(schema)).values({ id, name: 'Demo' })),
        ),
      close: () => pool.end(),
    }
  },
  'Drizzle on postgres.js': async () => {
    // Drizzle makes this client return dates as text: the driver reads them back as dates.
    const sql = postgres(PG_URL as string, { max: 5, onnotice: () => {} })
    const db = drizzlePostgresJs(sql)
    return {
      driver: drizzleDriver(db, { queryTimeoutMs: 120_000 }),
      inTransaction: (schema, body) =>
        db.transaction((tx) =>
          body(drizzleDriver(tx), (id) => tx.insert(projectsOf(schema)).values({ id, name: 'Demo' })),
        ),
      close: () => sql.end(),
    }
  },
  Kysely: async () => {
    const pool = new pg.Pool({ connectionString: PG_URL, max: 5 })
    pool.on('error', () => {})
    const db: AnyKysely = new Kysely({ dialect: new PostgresDialect({ pool }) })
    return {
      driver: kyselyDriver(db, { queryTimeoutMs: 120_000 }),
      inTransaction: (schema, body) =>
        db
          .transaction()
          .execute((trx) =>
            body(kyselyDriver(trx), (id) =>
              trx.withSchema(schema).insertInto('projects').values({ id, name: 'Demo' }).execute(),
            ),
          ),
      close: () => db.destroy(),
    }
  },
}

class Abandoned extends Error {}

describe.skipIf(!PG_URL)("the store on the application's client (set KEYWARD_PG_URL to run)", () => {
  const admin = new pg.Client({ connectionString: PG_URL })
  const schema = uniqueSchema()
  // Verifies beside the application, on a pool of its own.
  let verifier: pg.Pool
  beforeAll(async () => {
    await admin.connect()
    await migrate(pgDriver(admin), { schema })
    await admin.query(`CREATE TABLE "${schema}".projects (id text PRIMARY KEY, name text NOT NULL)`)
    verifier = new pg.Pool({ connectionString: PG_URL, max: 2 })
  })
  afterAll(async () => {
    await verifier?.end()
    await admin.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`)
    await admin.end()
  })

  const verify = (key: string, projectId: string) =>
    createKeyward({ store: new PostgresKeyStore(pgDriver(verifier), { schema }) })
      .authenticate({ projectKey: key }, { scope: 'project', projectId })
      .then(
        () => ({ ok: true as const }),
        (error: { type?: string }) => ({ ok: false as const, type: error.type }),
      )
  const rowsOf = async (projectId: string) => ({
    projects: (await admin.query(`SELECT id FROM "${schema}".projects WHERE id = $1`, [projectId])).rowCount,
    keys: (await admin.query(`SELECT id FROM "${schema}".api_keys WHERE project_id = $1`, [projectId]))
      .rowCount,
  })

  for (const [name, open] of Object.entries(CLIENTS)) {
    describe(name, () => {
      let client: AppClient
      beforeAll(async () => {
        client = await open()
      })
      afterAll(() => client?.close())

      it('commits the application row and the key together: the key verifies', async () => {
        const projectId = `p-${crypto.randomUUID()}`
        const issued = await client.inTransaction(schema, async (driver, insert) => {
          await insert(projectId)
          const store = new PostgresKeyStore(driver, { schema })
          return createKeyward({ store }).issueProjectKey(projectId, { name: 'default' })
        })
        expect(await rowsOf(projectId)).toEqual({ projects: 1, keys: 1 })
        expect(await verify(issued.key, projectId)).toMatchObject({ ok: true })
      })

      it('rolls back the key with the application row: no key exists, it does not verify', async () => {
        const projectId = `p-${crypto.randomUUID()}`
        let key: string | undefined
        await expect(
          client.inTransaction(schema, async (driver, insert) => {
            await insert(projectId)
            const store = new PostgresKeyStore(driver, { schema })
            const keyward = createKeyward({ store })
            // The limit's lock, a read and a roll, all inside the application's transaction.
            const issued = await keyward.issueProjectKey(projectId, { name: 'default' })
            key = issued.key
            expect((await keyward.listKeys({ type: 'project', id: projectId })).map((r) => r.id)).toEqual([
              issued.record.id,
            ])
            throw new Abandoned('the application changed its mind')
          }),
        ).rejects.toThrow(Abandoned)
        expect(key).toMatch(/^ak_/)
        expect(await rowsOf(projectId)).toEqual({ projects: 0, keys: 0 })
        expect(await verify(key as string, projectId)).toEqual({ ok: false, type: 'key_invalid' })
      })

      it("checks the schema's drift on the top-level handle and in the application's transaction, leaving nothing", async () => {
        // The application's table in Keyward's schema is the one drift, named as such.
        const extra = [`table ${schema}.projects is not in Keyward's schema`]
        const top = await checkSchemaDrift(client.driver, { schema })
        expect(top.drift.map((d) => d.message)).toEqual(extra)
        const projectId = `p-${crypto.randomUUID()}`
        const joined = await client.inTransaction(schema, async (driver, insert) => {
          await insert(projectId)
          return checkSchemaDrift(driver, { schema })
        })
        expect(joined.drift.map((d) => d.message)).toEqual(extra)
        // The application's transaction committed its row, and none of the scratch schema.
        expect(await rowsOf(projectId)).toEqual({ projects: 1, keys: 0 })
        const { rows } = await admin.query(
          `SELECT nspname FROM pg_namespace WHERE nspname LIKE 'keyward_doctor_%'`,
        )
        expect(rows).toEqual([])
      })

      it('runs transactions of its own on the top-level handle: a developer key within its limit', async () => {
        const store = new PostgresKeyStore(client.driver, { schema })
        const keyward = createKeyward({ store, developerKeyLimit: 1 })
        const developer = `dev-${crypto.randomUUID()}`
        const { record } = await keyward.issueDeveloperKey(developer)
        await expect(keyward.issueDeveloperKey(developer)).rejects.toMatchObject({ type: 'limit_exceeded' })
        // Dates come back as dates, whatever the library's own parsers.
        const found = await keyward.findKey(record.id)
        expect(found?.createdAt).toBeInstanceOf(Date)
        expect(found?.createdAt.getTime()).toBe(record.createdAt.getTime())
      })
    })
  }
})

// The whole contract of a key store, on each library's top-level handle (transactions of
// Keyward's own, concurrent ones among them), each test on a fresh schema.
describe.skipIf(!PG_URL)("conformance on the application's client (set KEYWARD_PG_URL to run)", () => {
  for (const name of ['postgres.js', 'Drizzle on node-postgres', 'Drizzle on postgres.js', 'Kysely']) {
    let client: AppClient
    beforeAll(async () => {
      client = await (CLIENTS[name] as () => Promise<AppClient>)()
    })
    afterAll(() => client?.close())
    runStoreConformance({
      name,
      repeats: 3,
      makeStore: async () => {
        const schema = uniqueSchema()
        await migrate(client.driver, { schema })
        const store = new PostgresKeyStore(client.driver, { schema })
        return {
          store,
          readRaw: () => client.driver.query(`SELECT * FROM "${schema}".api_keys`),
          close: async () => {
            await client.driver.query(`DROP SCHEMA "${schema}" CASCADE`)
          },
        }
      },
    })
  }
})

describe.skipIf(!PG_URL)("timeouts on the application's client (set KEYWARD_PG_URL to run)", () => {
  const TIMEOUT_MS = 300
  let sql: postgres.Sql
  let pool: pg.Pool
  beforeAll(() => {
    sql = postgres(PG_URL as string, { max: 2, onnotice: () => {} })
    pool = new pg.Pool({ connectionString: PG_URL, max: 2 })
    pool.on('error', () => {})
  })
  afterAll(async () => {
    await sql.end()
    await pool.end()
  })
  const drivers = (): [string, SqlDriver][] => [
    ['postgres.js', postgresJsDriver(sql, { queryTimeoutMs: TIMEOUT_MS })],
    [
      'Kysely',
      kyselyDriver(new Kysely({ dialect: new PostgresDialect({ pool }) }), { queryTimeoutMs: TIMEOUT_MS }),
    ],
    ['Drizzle', drizzleDriver(drizzlePg(pool), { queryTimeoutMs: TIMEOUT_MS })],
  ]

  it('a transaction of its own that outlives the bound rejects in time with outcome none, and is rolled back', async () => {
    const table = `kw_timeout_${crypto.randomUUID().replaceAll('-', '')}`
    await pool.query(`CREATE TABLE ${table} (name text)`)
    try {
      for (const [name, driver] of drivers()) {
        const started = performance.now()
        const error = await driver
          .transaction(async (tx) => {
            await tx.query(`INSERT INTO ${table} (name) VALUES ($1)`, [name])
            await tx.query('SELECT pg_sleep(5)')
          })
          .catch((e: unknown) => e)
        expect(error, name).toBeInstanceOf(QueryTimeoutError)
        expect((error as QueryTimeoutError).outcome, name).toBe('none')
        // In time: the bound, not the five seconds of the sleep (generous for a loaded machine).
        expect(performance.now() - started, name).toBeLessThan(4000)
      }
      // The server gave up the sleep too (statement_timeout): every insert was rolled back.
      await expect
        .poll(async () => (await pool.query(`SELECT count(*)::int AS n FROM ${table}`)).rows[0].n)
        .toBe(0)
      await expect
        .poll(
          async () =>
            (
              await pool.query(
                `SELECT count(*)::int AS n FROM pg_stat_activity WHERE query LIKE 'SELECT pg_sleep(5)%' AND state = 'active'`,
              )
            ).rows[0].n,
        )
        .toBe(0)
    } finally {
      await pool.query(`DROP TABLE ${table}`)
    }
  })

  it("node-postgres cancels a statement in the application's transaction that outlives the bound", async () => {
    const client = await pool.connect()
    try {
      await client.query('BEGIN')
      const started = performance.now()
      const error = await pgTransactionDriver(client, { queryTimeoutMs: TIMEOUT_MS })
        .query('SELECT pg_sleep(5)')
        .catch((e: unknown) => e)
      expect(error).toBeInstanceOf(QueryTimeoutError)
      expect(performance.now() - started).toBeLessThan(4000)
      // Cancelled on the server: the application's transaction is aborted, its next statement refused.
      await expect
        .poll(() =>
          client.query('SELECT 1').then(
            () => 'open',
            (e: { code?: string }) => e.code,
          ),
        )
        .toBe('25P02')
    } finally {
      await client.query('ROLLBACK')
      client.release()
    }
  })

  it("postgres.js cancels a statement in the application's transaction that outlives the bound", async () => {
    const started = performance.now()
    const error = await sql
      .begin((tx) => postgresJsDriver(tx, { queryTimeoutMs: TIMEOUT_MS }).query('SELECT pg_sleep(5)'))
      .catch((e: unknown) => e)
    expect(error).toBeInstanceOf(QueryTimeoutError)
    expect(performance.now() - started).toBeLessThan(4000)
  })
})
