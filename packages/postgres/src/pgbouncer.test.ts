// The store through a real PgBouncer in front of the tests' PostgreSQL, with the stock settings:
// transaction pooling (no startup parameters, no session state, no prepared statements) and
// session pooling, and what the host is told when the pooler refuses something.
import { createKeyward, ErrorType, hashKey, type KeywardEvent } from '@keyward/core'
import { runStoreConformance } from '@keyward/testkit'
import pg from 'pg'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { PgBouncer, pgbouncerUnavailable } from '../../../scripts/pgbouncer.mjs'
import { PostgresKeyStore } from './base.js'
import { createPgKeyStore, pgDriver } from './pg.js'
import { PoolerError } from './pooler.js'
import { type Harness, PG_URL, pgHarness } from './test/harness.js'
import { runPostgresScenarios } from './test/scenarios.js'

const missing =
  pgbouncerUnavailable() ?? (PG_URL ? undefined : 'KEYWARD_PG_URL is not set: PgBouncer needs a server')
const skipped = missing ? ` (skipped: ${missing})` : ''

/** Polls until `check` holds, every 5 ms, for at most `ms`. */
async function until(check: () => Promise<boolean>, ms: number): Promise<void> {
  const started = performance.now()
  while (!(await check())) {
    if (performance.now() - started > ms) throw new Error(`not within ${ms} ms`)
    await new Promise((resolve) => setTimeout(resolve, 5))
  }
}

describe.skipIf(missing)(`PostgresKeyStore through PgBouncer in transaction mode${skipped}`, () => {
  let bouncer: PgBouncer
  beforeAll(async () => {
    bouncer = await PgBouncer.start({ server: PG_URL as string, poolMode: 'transaction' })
  })
  afterAll(() => bouncer?.destroy())
  const through = () => bouncer.through(PG_URL as string)

  runStoreConformance({
    name: 'PostgresKeyStore through PgBouncer, transaction mode (prepared statements off, change feed direct)',
    makeStore: () =>
      pgHarness({
        through: through(),
        preparedStatements: false,
        changeFeed: { connectionString: PG_URL as string },
      }),
  })
  runPostgresScenarios('PgBouncer in transaction mode', () =>
    pgHarness({ through: through(), preparedStatements: false }),
  )

  describe('what the pooler sees', () => {
    const open: { close(): Promise<void> }[] = []
    afterEach(async () => {
      for (const item of open.splice(0).reverse()) await item.close()
    })
    const harness = async () => {
      const made = await pgHarness()
      open.push(made)
      return made
    }

    it('a revocation reaches the cache of a store through the pooler, by the change feed on a direct URL', async () => {
      const { schema } = await harness()
      const store = await createPgKeyStore(
        { connectionString: through(), poolConfig: { max: 4 } },
        { schema, preparedStatements: false, changeFeed: { connectionString: PG_URL as string } },
      )
      open.push(store)
      const writer = createKeyward({ store })
      const reader = createKeyward({ store, cache: {} })
      const { key, record } = await writer.issueProjectKey('p1')
      const outcome = () =>
        reader.authenticate({ projectKey: key }, { scope: 'project', projectId: 'p1' }).then(
          () => 'accepted',
          (error: { type: string }) => error.type,
        )
      await until(async () => (await outcome()) === 'accepted' && reader.cacheStats()?.entries === 1, 15_000)
      // Revoked beside the store, by SQL on another connection: only the feed can tell the cache.
      const direct = new pg.Client({ connectionString: PG_URL })
      await direct.connect()
      await direct.query(`UPDATE "${schema}".api_keys SET active = false WHERE id = $1`, [record.id])
      await direct.end()
      await until(async () => (await outcome()) === ErrorType.keyInvalid, 15_000)
    })

    it('refuses a change feed on the pooler when prepared statements are off, naming the option', async () => {
      await expect(
        createPgKeyStore({ connectionString: through() }, { preparedStatements: false, changeFeed: true }),
      ).rejects.toThrow(
        'createPgKeyStore: with `preparedStatements: false` (a transaction pooler), option `changeFeed` needs `{ connectionString }` of a direct connection to the primary',
      )
    })

    it('a startup parameter of the pool that the pooler refuses is named, with what to do', async () => {
      const { schema } = await harness()
      const error = await createPgKeyStore(
        { connectionString: through(), poolConfig: { statement_timeout: 1000 } },
        { schema, preparedStatements: false },
      ).catch((e: unknown) => e)
      expect(error).toBeInstanceOf(PoolerError)
      expect(error).toMatchObject({ reason: 'startup_parameter', code: '08P01' })
      expect((error as Error).message).toMatch(
        /^The connection pooler refused the startup parameter `statement_timeout` \(unsupported startup parameter: statement_timeout\)\. .*remove `statement_timeout` from the pool's settings .*ignore_startup_parameters/,
      )
    })
  })
})

describe.skipIf(missing)(`PostgresKeyStore through PgBouncer with one server connection${skipped}`, () => {
  // One server connection: every transaction of every client lands on it, deterministically.
  let bouncer: PgBouncer
  let harness: Harness
  const clients: pg.Client[] = []
  beforeAll(async () => {
    bouncer = await PgBouncer.start({ server: PG_URL as string, settings: ['default_pool_size = 1'] })
    harness = await pgHarness()
  })
  afterEach(async () => {
    for (const client of clients.splice(0)) await client.end()
  })
  afterAll(async () => {
    await harness?.close()
    await bouncer?.destroy()
  })
  const client = async () => {
    const made = new pg.Client({ connectionString: bouncer.through(PG_URL as string) })
    await made.connect()
    clients.push(made)
    return made
  }

  it('sets statement_timeout for each transaction only: the next one on the server connection has none', async () => {
    const driver = pgDriver(await client(), { queryTimeoutMs: 2500, preparedStatements: false })
    const row = (rows: Record<string, unknown>[]) => rows[0] as { timeout: string; pid: number }
    const sql = 'SELECT current_setting($1) AS timeout, pg_backend_pid() AS pid'
    const inside = await driver.transaction(async (tx) => row(await tx.query(sql, ['statement_timeout'])))
    const after = row(await driver.query(sql, ['statement_timeout']))
    const server = row(
      await pgDriver(await client(), { preparedStatements: false }).query(sql, ['statement_timeout']),
    )
    expect(inside.timeout).toBe('2500ms')
    expect([after, server]).toEqual([
      { timeout: '0', pid: inside.pid },
      { timeout: '0', pid: inside.pid },
    ])
  })

  it('with prepared statements on, a second client meets the first one’s statement: 503 and an event naming `preparedStatements: false`', async () => {
    const { schema } = harness
    const { key, record } = await createKeyward({ store: harness.store }).issueProjectKey('p1')
    const first = new PostgresKeyStore(pgDriver(await client()), { schema })
    expect((await first.findKeyByHash(await hashKey(key)))?.id).toBe(record.id)

    const events: KeywardEvent[] = []
    const second = createKeyward({
      store: new PostgresKeyStore(pgDriver(await client()), { schema }),
      onEvent: (event) => events.push(event),
    })
    const project = { scope: 'project', projectId: 'p1' } as const
    await expect(second.authenticate({ projectKey: key }, project)).rejects.toMatchObject({
      type: ErrorType.storeUnavailable,
      status: 503,
    })
    const error = events.flatMap((event) => (event.type === 'store.error' ? [event.error] : []))[0]
    expect(error).toBeInstanceOf(PoolerError)
    expect(error).toMatchObject({ reason: 'prepared_statement', code: '42P05' })
    expect((error as Error).message).toMatch(
      /^PostgreSQL refused the prepared statement "keyward_[0-9a-f]{8}_find_by_hash" \(prepared statement "keyward_[0-9a-f]{8}_find_by_hash" already exists\): the connection goes through a transaction pooler .* Set the store's option `preparedStatements: false`\.$/,
    )

    // The same two clients with prepared statements off: both verify.
    for (const connection of clients) {
      const keyward = createKeyward({
        store: new PostgresKeyStore(pgDriver(connection, { preparedStatements: false }), { schema }),
      })
      await expect(keyward.authenticate({ projectKey: key }, project)).resolves.toMatchObject({
        projectId: 'p1',
      })
    }
  })
})

describe.skipIf(missing)(`PostgresKeyStore through PgBouncer with two server connections${skipped}`, () => {
  let bouncer: PgBouncer
  let harness: Harness
  beforeAll(async () => {
    bouncer = await PgBouncer.start({ server: PG_URL as string, settings: ['default_pool_size = 2'] })
    harness = await pgHarness()
  })
  afterAll(async () => {
    await harness?.close()
    await bouncer?.destroy()
  })

  it('with prepared statements on, a client sent to a server connection without its statement gets an error naming `preparedStatements: false`', async () => {
    const connect = async () => {
      const client = new pg.Client({ connectionString: bouncer.through(PG_URL as string) })
      await client.connect()
      return client
    }
    const [owner, holder] = [await connect(), await connect()]
    try {
      const { key } = await createKeyward({ store: harness.store }).issueProjectKey('p1')
      const store = new PostgresKeyStore(pgDriver(owner), { schema: harness.schema })
      await store.findKeyByHash(await hashKey(key)) // prepared on the one server connection there is
      await holder.query('BEGIN')
      await holder.query('SELECT 1') // holds that server connection: the next transaction gets a new one
      const error = await store.findKeyByHash(await hashKey(key)).catch((e: unknown) => e)
      await holder.query('COMMIT')
      expect(error).toBeInstanceOf(PoolerError)
      expect(error).toMatchObject({ reason: 'prepared_statement', code: '26000' })
      expect((error as Error).message).toMatch(
        /\(prepared statement "keyward_[0-9a-f]{8}_find_by_hash" does not exist\): the connection goes through a transaction pooler .* Set the store's option `preparedStatements: false`\.$/,
      )
    } finally {
      await Promise.all([owner.end(), holder.end()])
    }
  })
})

describe.skipIf(missing)(`PostgresKeyStore through PgBouncer in session mode${skipped}`, () => {
  // A session is one server connection for the client's lifetime: prepared statements and the
  // change feed work as on a direct connection.
  let bouncer: PgBouncer
  beforeAll(async () => {
    bouncer = await PgBouncer.start({ server: PG_URL as string, poolMode: 'session' })
  })
  afterAll(() => bouncer?.destroy())

  runPostgresScenarios('PgBouncer in session mode (prepared statements and change feed through it)', () =>
    pgHarness({ through: bouncer.through(PG_URL as string), changeFeed: true }),
  )
})
