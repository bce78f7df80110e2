// Schema version 12 on a real PostgreSQL, in a database of its own (an extension belongs to a
// database, so installing pg_trgm here touches no other test's): the trigram indexes exist only
// where pg_trgm is, the doctor names them once it comes, and each filter of a listing is answered
// from the index made for it (read in the plan of the very statement the store ran).
import pg from 'pg'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { PostgresKeyStore } from './base.js'
import { checkSchemaDrift } from './doctor.js'
import type { SqlDriver, SqlQueryable } from './driver.js'
import { containsPattern, prefixRange } from './key-filter.js'
import { migrate } from './migrate.js'
import { pgDriver } from './pg.js'
import { PG_URL, uniqueSchema } from './test/harness.js'

describe('the search conditions', () => {
  it('escape what LIKE reads as a wildcard, and bound a prefix by the next character', () => {
    expect(containsPattern('50%_off\\')).toBe('%50\\%\\_off\\\\%')
    expect(prefixRange('ak_Ab3')).toEqual({ from: 'ak_Ab3', to: 'ak_Ab4' })
    expect(prefixRange('ak_z')).toEqual({ from: 'ak_z', to: 'ak_{' })
    expect(prefixRange('a\u{1F600}')).toEqual({ from: 'a\u{1F600}', to: 'a\u{1F601}' })
    expect(prefixRange('a\uD7FF')).toEqual({ from: 'a\uD7FF', to: 'a\uE000' })
    expect(prefixRange('a\u{10FFFF}')).toBeUndefined()
    expect(prefixRange('')).toBeUndefined()
  })
})

describe.skipIf(!PG_URL)('schema version 12 on PostgreSQL (set KEYWARD_PG_URL to run)', () => {
  const database = `kw_search_${process.pid}_${Date.now().toString(36)}`
  const admin = new pg.Client({ connectionString: PG_URL })
  const url = new URL(PG_URL as string)
  url.pathname = `/${database}`
  const client = new pg.Client({ connectionString: url.toString() })
  const driver = pgDriver(client, { queryTimeoutMs: 60_000 })
  let trgm = false
  beforeAll(async () => {
    await admin.connect()
    await admin.query(`CREATE DATABASE ${database}`)
    await client.connect()
    const { rows } = await client.query(`SELECT FROM pg_available_extensions WHERE name = 'pg_trgm'`)
    trgm = rows.length > 0
  }, 60_000)
  afterAll(async () => {
    await client.end()
    await admin.query(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`)
    await admin.end()
  }, 60_000)
  const indexesOf = async (schema: string) =>
    (
      await client.query<{ name: string }>(
        `SELECT c.relname AS name FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
         WHERE n.nspname = $1 AND c.relkind = 'i' AND c.relname ~ '(prefix|status|expiry|trgm|audit_log_key)_idx$'
         ORDER BY 1`,
        [schema],
      )
    ).rows.map((row) => row.name)
  const V12 = ['api_keys_project_expiry_idx', 'api_keys_project_prefix_idx', 'api_keys_project_status_idx']

  it('builds the trigram indexes only where pg_trgm is installed, and the doctor names them once it is', async (context) => {
    const before = uniqueSchema()
    await migrate(driver, { schema: before })
    expect(await indexesOf(before)).toEqual([
      'api_keys_project_expiry_idx',
      'api_keys_project_prefix_idx',
      'api_keys_project_status_idx',
      'audit_log_key_idx',
    ])
    expect((await checkSchemaDrift(driver, { schema: before })).drift).toEqual([])
    if (!trgm) return context.skip('pg_trgm is not available on this server')
    await client.query('CREATE EXTENSION pg_trgm')
    const messages = (await checkSchemaDrift(driver, { schema: before })).drift.map((d) => d.message)
    expect(messages).toEqual([
      `index ${before}.api_keys_name_trgm_idx is missing: expected CREATE INDEX api_keys_name_trgm_idx ON ${before}.api_keys USING gin (name gin_trgm_ops)`,
      `index ${before}.identities_external_id_trgm_idx is missing: expected CREATE INDEX identities_external_id_trgm_idx ON ${before}.identities USING gin (external_id gin_trgm_ops)`,
    ])
    const after = uniqueSchema()
    await migrate(driver, { schema: after })
    expect(await indexesOf(after)).toEqual([
      'api_keys_name_trgm_idx',
      ...V12,
      'audit_log_key_idx',
      'identities_external_id_trgm_idx',
    ])
    expect((await checkSchemaDrift(driver, { schema: after })).drift).toEqual([])
  })

  it('has the doctor say that an index a failed concurrent build left is invalid', async () => {
    const schema = uniqueSchema()
    await migrate(driver, { schema })
    // What a CREATE INDEX CONCURRENTLY that failed leaves: the index, marked not valid.
    await client.query(
      `UPDATE pg_index SET indisvalid = false WHERE indexrelid = '"${schema}".api_keys_project_prefix_idx'::regclass`,
    )
    const [drift] = (await checkSchemaDrift(driver, { schema })).drift
    expect(drift).toMatchObject({ type: 'different', object: `${schema}.api_keys_project_prefix_idx` })
    expect(drift?.message).toMatch(
      /found CREATE INDEX api_keys_project_prefix_idx .* \(INVALID: drop it and build it again\)$/,
    )
  })

  it("answers each filter of a project's keys, a key's audit rows and a search of identities from the index made for it", async (context) => {
    if (!trgm) return context.skip('pg_trgm is not available on this server')
    await client.query('CREATE EXTENSION IF NOT EXISTS pg_trgm')
    const schema = uniqueSchema()
    await migrate(driver, { schema })
    // 20,000 keys as the bench writes them; 20,000 audit rows of 2,000 keys; 100,000 identities
    // (narrower rows: fewer would be read whole, faster than from any index).
    await client.query(
      `INSERT INTO "${schema}".api_keys (id, hash, key_prefix, project_id, name, active, created_at, expires_at)
       SELECT gen_random_uuid(), encode(sha256(('k' || i)::bytea), 'hex'), 'ak_' || substr(md5(i::text), 1, 5), 'p1',
              CASE WHEN i % 2000 = 7 THEN 'checkout ' || i ELSE 'service ' || i END, i % 1000 <> 3,
              now() - make_interval(secs => 20000 - i), CASE WHEN i % 500 = 11 THEN now() - interval '1 day' END
       FROM generate_series(1, 20000) AS i`,
    )
    await client.query(
      `INSERT INTO "${schema}".audit_log (seq, at, action, actor, developer_id, project_id, target_type, target_id, previous_hash, hash)
       SELECT i, now(), 'key.created', '{}'::jsonb, 'd1', 'p1', 'key', 'key-' || (i % 2000), '', ''
       FROM generate_series(1, 20000) AS i`,
    )
    await client.query(`ANALYZE "${schema}".api_keys`)
    await client.query(`ANALYZE "${schema}".audit_log`)
    // The store on a driver that keeps the last statement it ran, to explain that statement.
    let last = { text: '', params: [] as readonly unknown[] }
    const keeping: SqlDriver = {
      query: (text, params = [], options) => {
        last = { text, params }
        return driver.query(text, params, options)
      },
      transaction: (fn) => driver.transaction(fn),
    }
    const store = new PostgresKeyStore(keeping, { schema })
    const indexesOfPlan = async () => {
      const { rows } = await client.query<{ 'QUERY PLAN': unknown }>(`EXPLAIN (FORMAT JSON) ${last.text}`, [
        ...last.params,
      ])
      return [...JSON.stringify(rows[0]?.['QUERY PLAN']).matchAll(/"Index Name":"(\w+)"/g)].map((m) => m[1])
    }
    const [{ prefix }] = (
      await client.query(`SELECT key_prefix AS prefix FROM "${schema}".api_keys ORDER BY created_at LIMIT 1`)
    ).rows
    const now = new Date()
    const cases = [
      [{ q: 'checkout' }, 10, 'api_keys_name_trgm_idx'],
      [{ q: prefix }, 1, 'api_keys_project_prefix_idx'],
      [{ status: 'revoked' as const }, 20, 'api_keys_project_status_idx'],
      [{ status: 'expired' as const }, 40, 'api_keys_project_expiry_idx'],
    ] as const
    for (const [filter, found, index] of cases) {
      const page = await store.listKeysPage(
        { type: 'project', id: 'p1' },
        { limit: 50, filter: { ...filter, now } },
      )
      expect(page.records.length, JSON.stringify(filter)).toBe(found)
      expect(await indexesOfPlan(), JSON.stringify(filter)).toContain(index)
    }
    const audit = await store.listAudit({ developerId: 'd1', keyId: 'key-7', limit: 50 })
    expect(audit.records).toHaveLength(10)
    expect(await indexesOfPlan()).toEqual(['audit_log_key_idx'])
    await client.query(
      `INSERT INTO "${schema}".identities (id, project_id, external_id)
       SELECT gen_random_uuid(), 'p1', CASE WHEN i % 10000 = 7 THEN 'ACME ' || i ELSE 'customer_' || i END
       FROM generate_series(1, 100000) AS i`,
    )
    await client.query(`ANALYZE "${schema}".identities`)
    const found = await store.identities.listIdentitiesPage('p1', { limit: 50, q: 'acme' })
    expect(found.records).toHaveLength(10)
    expect(await indexesOfPlan()).toContain('identities_external_id_trgm_idx')
  })

  it('finds the keys the expiry scheduler tells of from the index made for it (version 17), not by reading every key', async () => {
    const schema = uniqueSchema()
    await migrate(driver, { schema })
    // 20,000 keys of 200 projects and 100 developers, one in 10 with an expiry over the next year.
    await client.query(
      `INSERT INTO "${schema}".api_keys (id, hash, key_prefix, developer_id, project_id, name, active, created_at, expires_at)
       SELECT gen_random_uuid(), encode(sha256(('e' || i)::bytea), 'hex'), 'ak_' || substr(md5(i::text), 1, 5),
              CASE WHEN i % 3 = 0 THEN 'd' || (i % 100) END, CASE WHEN i % 3 <> 0 THEN 'p' || (i % 200) END,
              'service ' || i, true, now(), CASE WHEN i % 10 = 1 THEN now() + make_interval(mins => i) END
       FROM generate_series(1, 20000) AS i`,
    )
    await client.query(`ANALYZE "${schema}".api_keys`)
    // The statements of the scheduler's transaction, kept to explain its scan.
    const statements: { text: string; params: readonly unknown[] }[] = []
    const keep = (db: SqlQueryable): SqlQueryable => ({
      query: (text, params = [], options) => {
        statements.push({ text, params })
        return db.query(text, params, options)
      },
    })
    const keeping: SqlDriver = {
      query: (text, params, options) => keep(driver).query(text, params, options),
      transaction: (fn) => driver.transaction((tx) => fn(keep(tx))),
    }
    const store = new PostgresKeyStore(keeping, { schema })
    const now = new Date()
    let seen = 0
    const written = await store.webhooks.noticeExpiringKeys(
      now,
      new Date(now.getTime() + 86_400_000),
      async (keys) => {
        seen = keys.length
        return []
      },
    )
    expect(written).toBe(0)
    // Keys i = 1, 11, ..., 1431: expiring within the day (1,440 minutes).
    expect(seen).toBe(144)
    const scan = statements.find((statement) => /expires_at > \$1/.test(statement.text))
    expect(scan).toBeDefined()
    const { rows } = await client.query<{ 'QUERY PLAN': unknown }>(`EXPLAIN (FORMAT JSON) ${scan?.text}`, [
      ...(scan?.params ?? []),
    ])
    const plan = JSON.stringify(rows[0]?.['QUERY PLAN'])
    expect([...plan.matchAll(/"Index Name":"(\w+)"/g)].map((m) => m[1])).toEqual(['api_keys_expiry_scan_idx'])
    expect(plan).not.toContain('Seq Scan')
  })
})
