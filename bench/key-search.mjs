// The console's search of keys on PostgreSQL: one page of 50 keys of a project that holds
// SEARCH_BENCH_KEYS (default 100,000), through the service's listKeysPage (the query the key
// routes run for `?q=&status=&limit=50`), each case fetched SEARCH_BENCH_SAMPLES times (default
// 30) one after another after 5 to warm up: p50 and p95. Part of `pnpm bench console`, with
// KEYWARD_PG_URL; CONSOLE_BENCH=search runs only this part.
import { createKeyward } from '@keyward/core'
import { createPgKeyStore } from '@keyward/postgres/pg'
import { table } from './harness.mjs'

const KEYS = Number(process.env.SEARCH_BENCH_KEYS ?? 100_000)
const SAMPLES = Number(process.env.SEARCH_BENCH_SAMPLES ?? 30)

/** Times one page of 50 for each filter on a project of KEYS keys, in a schema of its own. */
export async function searchBench(url) {
  const schema = `kw_bench_search_${process.pid}`
  const store = await createPgKeyStore({ connectionString: url, poolConfig: { max: 4 } }, { schema })
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
    await store.query(`ANALYZE "${schema}".api_keys`)
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
    const rows = []
    for (const [name, options] of cases) {
      const fetch = () => keyward.listKeysPage(owner, { limit: 50, ...options })
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
      rows.push([name, String(found), at(0.5), at(0.95), '<= 100 ms'])
    }
    console.log(
      `One page of 50 of a project's ${KEYS.toLocaleString('en-US')} keys on PostgreSQL, through listKeysPage:\n`,
    )
    table(['filter', 'keys on the page', 'p50 (ms)', 'p95 (ms)', 'target'], rows)
  } finally {
    await store.query(`DROP SCHEMA "${schema}" CASCADE`)
    await store.close()
  }
}
