// What a timeout does to a transaction and a connection on PostgreSQL, with the database
// stalled for real: a row lock held by another connection, pg_sleep, a slow COMMIT.
import { createKeyward, ErrorType, type Keyward } from '@keyward/core'
import pg from 'pg'
import { afterEach, describe, expect, it } from 'vitest'
import { PostgresKeyStore } from './base.js'
import { QueryTimeoutError } from './driver.js'
import { ClientGivenUpError, pgDriver } from './pg.js'
import { type Harness, PG_URL, pgHarness } from './test/harness.js'

const TIMEOUT_MS = 300

describe.skipIf(!PG_URL)('pgDriver timeouts on a stalled PostgreSQL (set KEYWARD_PG_URL to run)', () => {
  const cleanup: Array<() => Promise<unknown>> = []
  afterEach(async () => {
    for (const step of cleanup.splice(0).reverse()) await step().catch(() => {})
  })

  async function setup(kind: 'pool' | 'client', queryTimeoutMs = TIMEOUT_MS) {
    const harness: Harness = await pgHarness({ max: 1 })
    cleanup.push(() => harness.close())
    const application_name = `kw_timeouts_${crypto.randomUUID().slice(0, 8)}`
    let db: pg.Pool | pg.Client
    if (kind === 'pool') {
      const pool = new pg.Pool({ connectionString: PG_URL, max: 2, application_name })
      pool.on('error', () => {})
      cleanup.push(() => pool.end())
      db = pool
    } else {
      const client = new pg.Client({ connectionString: PG_URL, application_name })
      client.on('error', () => {})
      await client.connect()
      cleanup.push(() => client.end())
      db = client
    }
    const store = new PostgresKeyStore(pgDriver(db, { queryTimeoutMs }), {
      schema: harness.schema,
    })
    const keyward = createKeyward({ store })
    // Another connection, to hold locks.
    const locker = new pg.Client({ connectionString: PG_URL })
    await locker.connect()
    cleanup.push(() => locker.end())
    const table = (name: string) => `"${harness.schema}".${name}`
    // What the store's own connections are doing, seen from the server.
    const backends = async () =>
      (
        await harness.sql<{ state: string; wait: string | null; xact: boolean }>(
          `SELECT state, wait_event_type AS wait, xact_start IS NOT NULL AS xact
           FROM pg_stat_activity WHERE application_name = $1`,
          [application_name],
        )
      ).map(
        (b) =>
          `${b.state}${b.wait === 'Lock' ? ' waiting for a lock' : ''}${b.xact ? ' in a transaction' : ''}`,
      )
    const keysOf = async (developer: string) =>
      (
        await harness.sql<{ id: string }>(`SELECT id FROM ${table('api_keys')} WHERE developer_id = $1`, [
          developer,
        ])
      ).map((row) => row.id)
    return { harness, db, store, keyward, locker, table, backends, keysOf }
  }

  // Holds the owner's row lock, as a creation for that owner would, until the returned function.
  async function lockOwner(locker: pg.Client, ownersTable: string, developer: string) {
    await locker.query('BEGIN')
    const { rowCount } = await locker.query(
      `SELECT 1 FROM ${ownersTable} WHERE owner_type = 'developer' AND owner_id = $1 FOR UPDATE`,
      [developer],
    )
    expect(rowCount).toBe(1)
    return () => locker.query('COMMIT')
  }

  const timedOut = (outcome: 'none' | 'unknown' = 'none') =>
    expect.objectContaining({ name: 'QueryTimeoutError', outcome })

  const issue = (keyward: Keyward, developer: string) =>
    keyward.issueDeveloperKey(developer).then(
      (issued) => ({ ok: true as const, id: issued.record.id }),
      (error: { type?: string; status?: number; cause?: unknown }) => ({ ok: false as const, error }),
    )

  for (const kind of ['pool', 'client'] as const) {
    it(`${kind}: creations stalled on the owner's lock answer 503 in time, send no COMMIT, and leave the connection rolled back and usable`, async () => {
      const { keyward, locker, table, backends, keysOf, db } = await setup(kind)
      const developer = `dev-${kind}-locked`
      const first = await keyward.issueDeveloperKey(developer)
      const unlock = await lockOwner(locker, table('api_key_owners'), developer)
      const started = performance.now()
      const outcomes = await Promise.all(Array.from({ length: 4 }, () => issue(keyward, developer)))
      expect(performance.now() - started).toBeLessThan(TIMEOUT_MS * 4 + 2000)
      for (const outcome of outcomes) {
        expect(outcome).toMatchObject({ ok: false, error: { type: ErrorType.storeUnavailable, status: 503 } })
        if (!outcome.ok) expect(outcome.error.cause).toEqual(timedOut())
      }
      // The statement waiting for the lock was cancelled and its transaction rolled back: no
      // connection of the store still waits, or holds a transaction open.
      await expect
        .poll(backends, { timeout: 2000 })
        .not.toContainEqual(expect.stringMatching(/lock|transaction/))
      await unlock()
      await new Promise((resolve) => setTimeout(resolve, 200))
      expect(await keysOf(developer)).toEqual([first.record.id])
      // The same connections serve the next operations, which see no trace of the stalled ones.
      const next = await keyward.issueDeveloperKey(developer)
      expect((await keysOf(developer)).sort()).toEqual([first.record.id, next.record.id].sort())
      if (db instanceof pg.Pool) expect(db.totalCount).toBeLessThanOrEqual(2)
    })

    it(`${kind}: a single write stalled on a row lock is cancelled, and never lands after its 503`, async () => {
      const { keyward, locker, table, backends } = await setup(kind)
      const { key, record } = await keyward.issueProjectKey('p-locked')
      await locker.query('BEGIN')
      await locker.query(`SELECT 1 FROM ${table('api_keys')} WHERE id = $1 FOR UPDATE`, [record.id])
      const error = await keyward.deactivateKey(record.id).catch((e: unknown) => e)
      expect(error).toMatchObject({ type: ErrorType.storeUnavailable, cause: timedOut() })
      await expect
        .poll(backends, { timeout: 2000 })
        .not.toContainEqual(expect.stringMatching(/lock|transaction/))
      await locker.query('COMMIT')
      await new Promise((resolve) => setTimeout(resolve, 200))
      // Still active: the deactivation the caller was told failed did not happen.
      const auth = await keyward.authenticate(
        { projectKey: key },
        { scope: 'project', projectId: 'p-locked' },
      )
      expect(auth.projectKey?.id).toBe(record.id)
    })

    it(`${kind}: pg_sleep in a transaction after a write: 503 in time, the write rolled back, the connection reused`, async () => {
      const { store, keysOf, backends } = await setup(kind)
      const developer = `dev-${kind}-sleep`
      const error = await store
        .transaction(async (tx) => {
          await createKeyward({ store: tx.store }).issueDeveloperKey(developer)
          await tx.query('SELECT pg_sleep(5)')
        })
        .catch((e: unknown) => e)
      expect(error).toEqual(timedOut())
      expect(error).toBeInstanceOf(QueryTimeoutError)
      await expect
        .poll(backends, { timeout: 2000 })
        .toEqual(expect.not.arrayContaining([expect.stringMatching(/active|transaction/)]))
      expect(await keysOf(developer)).toEqual([])
      // A single statement that sleeps is cancelled too, and the connection goes on.
      const started = performance.now()
      await expect(store.query('SELECT pg_sleep(5)')).rejects.toEqual(timedOut())
      expect(performance.now() - started).toBeLessThan(TIMEOUT_MS + 1500)
      expect(await store.query('SELECT 1 AS one')).toEqual([{ one: 1 }])
    })
  }

  // A COMMIT made slow for real: a deferred constraint trigger that sleeps when it commits.
  // A table whose rows make COMMIT answer late: `seconds` after the COMMIT arrives, or, with
  // `fromBegin`, that long after the transaction began, wherever the COMMIT falls in between
  // (a loaded machine may send it late).
  async function slowCommitTable(harness: Harness, seconds: number, fromBegin = false) {
    const t = `"${harness.schema}".slow_commits`
    const sleep = fromBegin ? `pg_sleep_until(now() + interval '${seconds} s')` : `pg_sleep(${seconds})`
    await harness.sql(`CREATE TABLE ${t} (id int)`)
    await harness.sql(
      `CREATE FUNCTION "${harness.schema}".sleep_at_commit() RETURNS trigger LANGUAGE plpgsql AS
       $$ BEGIN PERFORM ${sleep}; RETURN NULL; END $$`,
    )
    await harness.sql(
      `CREATE CONSTRAINT TRIGGER sleep_at_commit AFTER INSERT ON ${t} DEFERRABLE INITIALLY DEFERRED
       FOR EACH ROW EXECUTE FUNCTION "${harness.schema}".sleep_at_commit()`,
    )
    return t
  }

  it('a COMMIT already sent when the time passes is waited for: the caller gets the key it committed', async () => {
    // The time passes at 1 s, while the COMMIT is on its way; it answers at 1.5 s, within the
    // settling time (1 s more).
    const { harness, store, keysOf } = await setup('pool', 1000)
    const t = await slowCommitTable(harness, 1.5, true)
    const developer = 'dev-slow-commit'
    const { record } = await store.transaction(async (tx) => {
      await tx.query(`INSERT INTO ${t} VALUES (1)`)
      return createKeyward({ store: tx.store }).issueDeveloperKey(developer)
    })
    expect(await keysOf(developer)).toEqual([record.id])
  })

  it('a COMMIT that does not answer within the settling time: the error says the outcome is unknown', async () => {
    const { harness, store, keysOf } = await setup('pool')
    const t = await slowCommitTable(harness, 2)
    for (let attempt = 1; ; attempt++) {
      const developer = `dev-stuck-commit-${attempt}`
      const started = performance.now()
      const error = await store
        .transaction(async (tx) => {
          await tx.query(`INSERT INTO ${t} VALUES (1)`)
          return createKeyward({ store: tx.store }).issueDeveloperKey(developer)
        })
        .catch((e: unknown) => e)
      // On a loaded machine a statement before the COMMIT may take the whole time itself: that
      // is reported as no effect, rightly (nothing was committed), and the case runs again.
      const before = (error as { outcome?: string }).outcome === 'none'
      if (before && attempt < 3) {
        expect(error).toEqual(timedOut())
        expect(await keysOf(developer)).toEqual([])
        continue
      }
      expect(error).toEqual(timedOut('unknown'))
      expect(performance.now() - started).toBeLessThan(TIMEOUT_MS * 2 + 1000)
      // It did commit: that is why the caller was not told "no effect".
      await expect.poll(() => keysOf(developer), { timeout: 5000 }).toHaveLength(1)
      break
    }
  })

  it('a lone Client whose connection stops answering during a timed-out operation is given up with a clear error', async () => {
    const { store, db } = await setup('client')
    const client = db as pg.Client
    // The connection dies under the statement: nothing answers the cancel or the ROLLBACK.
    const running = store.transaction(async (tx) => {
      await tx.query('SELECT pg_sleep(5)')
    })
    ;(client as unknown as { connection: { stream: { destroy(): void } } }).connection.stream.destroy()
    await expect(running).rejects.toBeDefined()
    const error = await store.query('SELECT 1').catch((e: unknown) => e)
    expect(error).toBeInstanceOf(ClientGivenUpError)
    expect((error as Error).message).toMatch(
      /^pgDriver: the pg Client was closed after its connection failed or stopped answering \(.+\)\. Build the driver on a new Client, or on a Pool, which replaces its connections\.$/,
    )
  })
})
