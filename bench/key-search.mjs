// The console's search of keys on PostgreSQL: one page of 50 keys of a project that holds
// SEARCH_BENCH_KEYS (default 100,000), through the service's listKeysPage (the query the key
// routes run for `?q=&status=&limit=50`), each case fetched SEARCH_BENCH_SAMPLES times (default
// 30) one after another after 5 to warm up: p50 and p95. Three times over, in one run: with the
// indexes of schema version 12 (the trigram index too where the database has pg_trgm), without
// the trigram index (a server without pg_trgm), and without any index of version 12 (the peer: the
// same statements on the indexes of version 11). Then the same for a search of as many identities
// by external id (`?q=` of the identities list), with and without its trigram index. In a database of its own with pg_trgm installed
// when the server lets it create one (and offers pg_trgm), dropped at the end; else in a schema of
// its own in KEYWARD_PG_URL's database. Part of `pnpm bench console`, with KEYWARD_PG_URL;
// CONSOLE_BENCH=search runs only this part.
import { createKeyward } from '@keyward/core'
import { createPgKeyStore } from '@keyward/postgres/pg'
import pg from 'pg'
import { table } from './harness.mjs'

const KEYS = Number(process.env.SEARCH_BENCH_KEYS ?? 100_000)
const SAMPLES = Number(process.env.SEARCH_BENCH_SAMPLES ?? 30)

/** A database of the bench's own with pg_trgm, when the server allows: its URL and how to drop it. */
async function scratchDatabase(url) {
  const admin = new pg.Client({ connectionString: url })
  await admin.connect()
  const name = `kw_bench_search_${process.pid}`
  try {
    const { rows } = await admin.query(`SELECT FROM pg_available_extensions WHERE name = 'pg_trgm'`)
    if (rows.length === 0) throw new Error('pg_trgm is not available')
    await admin.query(`CREATE DATABASE ${name}`)
  } catch (error) {
    await admin.end()
    console.log(`In KEYWARD_PG_URL's database (${error.message}).`)
    return { url, drop: async () => {} }
  }
  const scratch = new URL(url)
  scratch.pathname = `/${name}`
  const client = new pg.Client({ connectionString: scratch.toString() })
  await client.connect()
  await client.query('CREATE EXTENSION pg_trgm')
  await client.end()
  return {
    url: scratch.toString(),
    drop: async () => {
      await admin.query(`DROP DATABASE ${name} WITH (FORCE)`)
      await admin.end()
    },
  }
}

/** Times one page of 50 for each filter on a project of KEYS keys, in a schema of its own. */
export async function searchBench(given) {
  const database = await scratchDatabase(given)
  try {
    await searchIn(database.url)
  } finally {
    await database.drop()
  }
}

async function searchIn(url) {
  const schema = `kw_bench_search_${process.pid}`
  // Writing the keys takes longer than a query may by default.
  const store = await createPgKeyStore(
    { connectionString: url, poolConfig: { max: 4 } },
    { schema, queryTimeoutMs: 120_000 },
  )
  const owner = { type: 'project', id: 'bench-search' }
  try {
    // Keys written in one statement: names `service 0` ... (every 10,000th `checkout`), one in
    // 1,000 revoked, one in 500 expired; one second apart, the newest last.
    const started = performance.now()
    await store.query(
      `INSERT INTO "${schema}".api_keys (id, hash, key_prefix, project_id, name, active, created_at, expires_at)
       SELECT gen_random_uuid(), encode(sha256(('bench-' || i)::bytea), 'hex'),
              'ak_' || substr(md5(i::text), 1, 5), $1,
              CASE WHEN i % 10000 = 7 THEN 'checkout ' || i ELSE 'service ' || i END,
              i % 1000 <> 3, now() - make_interval(secs => $2 - i),
              CASE WHEN i % 500 = 11 THEN now() - interval '1 day' END
       FROM generate_series(1, $2) AS i`,
      [owner.id, KEYS],
    )
    // As autovacuum leaves a table after many inserts: statistics, and the trigram index's pending
    // list merged into it.
    await store.query(`VACUUM ANALYZE "${schema}".api_keys`)
    const sizes = await store.query(
      `SELECT c.relname AS name, pg_size_pretty(pg_relation_size(c.oid)) AS size
       FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
       WHERE n.nspname = $1 AND c.relkind = 'i' ORDER BY c.relname`,
      [schema],
    )
    console.log(`The indexes of ${KEYS.toLocaleString('en-US')} keys:\n`)
    table(
      ['index', 'size'],
      sizes.map((row) => [row.name, row.size]),
    )
    console.log('')
    const [{ prefix }] = await store.query(
      `SELECT key_prefix AS prefix FROM "${schema}".api_keys WHERE project_id = $1 ORDER BY created_at LIMIT 1`,
      [owner.id],
    )
    console.log(
      `${KEYS.toLocaleString('en-US')} keys in one project, written in ${((performance.now() - started) / 1000).toFixed(1)} s\n`,
    )
    const keyward = createKeyward({ store, trackLastUsed: false, usage: false })
    const middle = await keyward.listKeysPage(owner, { limit: 200 })
    const cases = [
      ['first page, no filter', {}],
      ['a page after 200 keys', { after: middle.next }],
      ['q=service (nearly every name)', { q: 'service' }],
      [`q=checkout (${Math.floor(KEYS / 10_000)} names)`, { q: 'checkout' }],
      ['q=nowhere (no key: every key read)', { q: 'nowhere' }],
      [`q=${prefix} (a prefix)`, { q: prefix }],
      ['status=active', { status: 'active' }],
      ['status=revoked (1 in 1,000)', { status: 'revoked' }],
      ['status=expired (1 in 500)', { status: 'expired' }],
      ['q=checkout&status=revoked (none)', { q: 'checkout', status: 'revoked' }],
    ]
    const timed = async (options, list = (o) => keyward.listKeysPage(owner, o)) => {
      const fetch = () => list({ limit: 50, ...options })
      let found = 0
      for (let i = 0; i < 5; i++) found = (await fetch()).records.length
      const times = []
      for (let i = 0; i < SAMPLES; i++) {
        const start = performance.now()
        await fetch()
        times.push(performance.now() - start)
      }
      times.sort((a, b) => a - b)
      const at = (q) => times[Math.min(times.length - 1, Math.floor(q * times.length))].toFixed(1)
      return { found, cells: `${at(0.5)} / ${at(0.95)}` }
    }
    const [{ trgm }] = await store.query(`SELECT to_regclass($1) IS NOT NULL AS trgm`, [
      `"${schema}".api_keys_name_trgm_idx`,
    ])
    const setups = [
      [trgm ? 'version 12' : 'version 12 (no pg_trgm here)', []],
      ...(trgm ? [['without the trigram index', ['api_keys_name_trgm_idx']]] : []),
      [
        'without the indexes of version 12',
        ['api_keys_project_prefix_idx', 'api_keys_project_status_idx', 'api_keys_project_expiry_idx'],
      ],
    ]
    const columns = cases.map(() => [])
    for (const [, dropped] of setups) {
      for (const index of dropped) await store.query(`DROP INDEX "${schema}".${index}`)
      for (const [i, [, options]] of cases.entries()) columns[i].push(await timed(options))
    }
    console.log(
      `One page of 50 of a project's ${KEYS.toLocaleString('en-US')} keys on PostgreSQL, through listKeysPage, p50 / p95 in ms (target: p95 <= 100 ms):\n`,
    )
    table(
      ['filter', 'keys on the page', ...setups.map(([name]) => name)],
      cases.map(([name], i) => [name, String(columns[i][0].found), ...columns[i].map((c) => c.cells)]),
    )

    // The identities' search: `?q=` in external ids, KEYS identities of one project.
    await store.query(
      `INSERT INTO "${schema}".identities (id, project_id, external_id, created_at)
       SELECT gen_random_uuid(), $1, CASE WHEN i % 10000 = 7 THEN 'ACME ' || i ELSE 'customer_' || i END,
              now() - make_interval(secs => $2 - i)
       FROM generate_series(1, $2) AS i`,
      [owner.id, KEYS],
    )
    await store.query(`VACUUM ANALYZE "${schema}".identities`)
    const searches = [
      ['first page, no search', {}],
      ['q=customer (nearly every one)', { q: 'customer' }],
      [`q=acme (${Math.floor(KEYS / 10_000)} of them)`, { q: 'acme' }],
      ['q=nowhere (none)', { q: 'nowhere' }],
    ]
    const listIdentities = (options) => keyward.listIdentitiesPage(owner.id, options)
    const identityColumns = searches.map(() => [])
    const identitySetups = trgm
      ? ['version 12', 'without the trigram index']
      : ['version 12 (no pg_trgm here)']
    for (const setup of identitySetups) {
      if (setup === 'without the trigram index') {
        await store.query(`DROP INDEX "${schema}".identities_external_id_trgm_idx`)
      }
      for (const [i, [, options]] of searches.entries()) {
        identityColumns[i].push(await timed(options, listIdentities))
      }
    }
    console.log(
      `\nOne page of 50 of a project's ${KEYS.toLocaleString('en-US')} identities, through listIdentitiesPage, p50 / p95 in ms:\n`,
    )
    table(
      ['search', 'identities on the page', ...identitySetups],
      searches.map(([name], i) => [
        name,
        String(identityColumns[i][0].found),
        ...identityColumns[i].map((c) => c.cells),
      ]),
    )
  } finally {
    await store.query(`DROP SCHEMA "${schema}" CASCADE`)
    await store.close()
  }
}
