// Verification through the stores, in one process and one run, at 1 and 16 requests in
// flight: the memory store, PostgreSQL without and with the verification cache, PGlite with
// it, and the floor (a raw prepared lookup of the same hash on the same pool). Cases run in
// rounds, in rotating order. Then, without a cache, the time of an unknown, an inactive and a
// valid key, which must not tell them apart. With BENCH_JSON=<file>, the results are also
// written there as [{ case, inFlight, opsPerSec }].
// Then, on PostgreSQL with the cache, usage counting on against off at 16 in flight
// (POSTGRES_BENCH=usage runs only that). The cases above count no usage (`usage: false`).
// Last, on PostgreSQL, one page of a paged listing from the middle of a project's 10,000 keys
// (POSTGRES_BENCH=pages runs only that). And credits: a guard's verification of keys with credits,
// and of keys of identities with a credit pool, against the same without credits, and against a
// baseline that writes once per request (POSTGRES_BENCH=credits runs only that). And roles: keys
// holding 50 permissions through 5 roles against keys holding them as their own, cached, under a
// 10-term query (POSTGRES_BENCH=roles runs only that).
import { writeFileSync } from 'node:fs'
import { PGlite } from '@electric-sql/pglite'
import { apiKeyGuard, createKeyward, generateKey, hashKey, MemoryKeyStore } from '@keyward/core'
import { createPgKeyStore } from '@keyward/postgres/pg'
import { createPGliteKeyStore } from '@keyward/postgres/pglite'
import pg from 'pg'
import { PgBouncer, pgbouncerUnavailable } from '../scripts/pgbouncer.mjs'
import { machineLine, median, table, throughput } from './harness.mjs'

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 7)
const ROUND_MS = Number(process.env.BENCH_ROUND_MS ?? 400)
const KEYS = 1000
const PROJECT = 'bench-project'
const IN_FLIGHT = [1, 16]
const url = process.env.KEYWARD_PG_URL

/** Issues keys through `keyward` and returns its verification of them, and their hashes. */
async function verification(keyward) {
  const keys = []
  for (let i = 0; i < KEYS; i++) keys.push((await keyward.issueProjectKey(PROJECT)).key)
  const requirement = { scope: 'project', projectId: PROJECT }
  const verify = async (i) => {
    const auth = await keyward.authenticate({ projectKey: keys[i % KEYS] }, requirement)
    if (auth.projectId !== PROJECT) throw new Error('verification failed')
  }
  return { keys, verify, hashes: await Promise.all(keys.map(hashKey)) }
}

const cases = new Map()
const closers = []
const timing = []
// Stores on which last_used_at tracking on is compared against off, after the other cases.
const trackingStores = []
// The floor reads the columns a key record is made of, as the store's lookup does (schema version 7:
// the policies, the credits and the reason of a revocation too); fewer would measure the width of
// the row.
const COLUMNS =
  'id, hash, key_prefix, developer_id, project_id, name, active, created_at, expires_at, last_used_at, replaced_by, ip_allowlist, permissions, metadata, remaining, refill_amount, refill_interval, refill_day, refilled_at, revoked_reason'

/**
 * Runs `op` like {@link throughput}, and also returns the CPU time of this process per
 * operation (microseconds), which other load on the machine disturbs less than throughput.
 */
async function measured(op, inFlight, ms) {
  const cpu = process.cpuUsage()
  let count = 0
  const counted = async (i) => {
    await op(i)
    count++
  }
  const { opsPerSecond } = await throughput(counted, inFlight, ms)
  const { user, system } = process.cpuUsage(cpu)
  return { opsPerSecond, cpuPerOp: (user + system) / count }
}

/**
 * Runs `off` and `on` in pairs of rounds, in alternating order (so that neither always goes
 * first on a machine whose load drifts); returns the median of each and of the pairs' ratios.
 */
async function compare(off, on, inFlight) {
  await throughput(off, inFlight, 300)
  await throughput(on, inFlight, 300)
  const runs = { off: [], on: [] }
  const ratios = []
  for (let round = 0; round < ROUNDS; round++) {
    const pair = {}
    for (const name of round % 2 === 0 ? ['off', 'on'] : ['on', 'off']) {
      pair[name] = await measured(name === 'off' ? off : on, inFlight, ROUND_MS)
      runs[name].push(pair[name])
    }
    ratios.push(pair.on.opsPerSecond / pair.off.opsPerSecond)
  }
  const summary = (list) => ({
    opsPerSecond: median(list.map((r) => r.opsPerSecond)),
    cpuPerOp: median(list.map((r) => r.cpuPerOp)),
  })
  return { off: summary(runs.off), on: summary(runs.on), ratio: median(ratios) }
}

// The default interval (60 s: each key written once in the run), and 1 s: every key written
// again every 1 to 1.25 s, a write load far above what the default makes.
const LAST_USED_INTERVALS = [60, 1]

async function compareTracking(label, store) {
  const untracked = createKeyward({ store, trackLastUsed: false, usage: false })
  const keys = []
  for (let i = 0; i < KEYS; i++) keys.push((await untracked.issueProjectKey(`${PROJECT}-lu`)).key)
  const verifyWith = (service) => async (i) => {
    await service.authenticate(
      { projectKey: keys[i % KEYS] },
      { scope: 'project', projectId: `${PROJECT}-lu` },
    )
  }
  const rows = []
  for (const seconds of LAST_USED_INTERVALS) {
    const tracked = createKeyward({ store, lastUsedIntervalSeconds: seconds, usage: false })
    const result = await compare(verifyWith(untracked), verifyWith(tracked), 10)
    await tracked.flushLastUsed()
    rows.push([label, seconds, result])
  }
  return rows
}

if (process.env.POSTGRES_BENCH === 'credits') {
  if (url) await creditBench()
  else console.log('Credits skipped: set KEYWARD_PG_URL.')
  process.exit(0)
}

/**
 * Usage counting on against off: cached verifications on PostgreSQL (the change feed on), 16 in
 * flight, in paired rounds; then how many rows the flushes wrote, against the verifications.
 */
async function usageBench() {
  const schema = `kw_bench_usage_${process.pid}`
  const store = await createPgKeyStore(
    { connectionString: url, poolConfig: { max: 10 } },
    { schema, changeFeed: true },
  )
  try {
    const off = createKeyward({ store, cache: {}, trackLastUsed: false, usage: false })
    const on = createKeyward({ store, cache: {}, trackLastUsed: false, usage: {} })
    const keys = []
    for (let i = 0; i < KEYS; i++) keys.push((await off.issueProjectKey(PROJECT)).key)
    const requirement = { scope: 'project', projectId: PROJECT }
    let counted = 0
    const verifyWith = (service, count) => async (i) => {
      const auth = await service.authenticate({ projectKey: keys[i % KEYS] }, requirement)
      if (auth.projectId !== PROJECT) throw new Error('verification failed')
      if (count) counted++
    }
    for (let i = 0; i < KEYS; i++) await Promise.all([verifyWith(off)(i), verifyWith(on)(i)])
    const result = await compare(verifyWith(off), verifyWith(on, true), 16)
    await on.close()
    const [written] = await store.query(
      `SELECT count(*)::int AS rows, sum(count)::bigint AS total FROM "${schema}".key_usage`,
    )
    console.log('\nUsage counting on against off (PostgreSQL, the verification cache on, 16 in flight):\n')
    const format = (n) => Math.round(n).toLocaleString('en-US')
    table(
      [
        'database',
        'off (ops/s)',
        'on (ops/s)',
        'on/off',
        'CPU per op, off / on (µs)',
        'rows written / verifications',
      ],
      [
        [
          'pg',
          format(result.off.opsPerSecond),
          format(result.on.opsPerSecond),
          `${result.ratio.toFixed(3)}x`,
          `${result.off.cpuPerOp.toFixed(1)} / ${result.on.cpuPerOp.toFixed(1)}`,
          `${format(written.rows)} / ${format(Number(written.total))}`,
        ],
      ],
    )
    console.log(
      `\n${machineLine()} ${ROUNDS} pairs of ${ROUND_MS} ms rounds, alternating order; median of the pairs' ratios.` +
        ` ${KEYS} keys; flush every 5 s (the default); target on/off >= 0.95x.`,
    )
    if (counted + KEYS !== Number(written.total))
      throw new Error(`counted ${counted + KEYS}, stored ${written.total}`)
  } finally {
    await store.query(`DROP SCHEMA "${schema}" CASCADE`)
    await store.close()
  }
}

if (process.env.POSTGRES_BENCH === 'usage') {
  if (url) await usageBench()
  else console.log('Usage counting skipped: set KEYWARD_PG_URL.')
  process.exit(0)
}

/**
 * Roles: cached verifications on PostgreSQL (the change feed on), 16 in flight, of keys that hold
 * 50 permissions through 5 roles against keys that hold the same 50 as their own, both under a
 * 10-term query, in paired rounds.
 */
async function rolesBench() {
  const schema = `kw_bench_roles_${process.pid}`
  const store = await createPgKeyStore(
    { connectionString: url, poolConfig: { max: 10 } },
    { schema, changeFeed: true },
  )
  const permissions = Array.from({ length: 50 }, (_, i) => `resource${i}:action`)
  try {
    const keyward = createKeyward({ store, cache: {}, trackLastUsed: false, usage: false, permissions })
    const roles = []
    for (let r = 0; r < 5; r++) {
      const granted = permissions.slice(r * 10, r * 10 + 10)
      roles.push((await keyward.createRole(PROJECT, { name: `role${r}`, permissions: granted })).name)
    }
    const own = []
    const held = []
    for (let i = 0; i < KEYS; i++) {
      own.push((await keyward.issueProjectKey(PROJECT, { permissions })).key)
      held.push((await keyward.issueProjectKey(PROJECT, { roles, permissions: [] })).key)
    }
    const query =
      '(resource0:action or resource49:action) and resource48:action and (resource1:action or resource47:action) ' +
      'and resource46:action and resource45:action and (resource2:action or resource44:action) and resource43:action'
    const requirement = { scope: 'project', projectId: PROJECT, permissions: query }
    const verifyOf = (keys) => async (i) => {
      const auth = await keyward.authenticate({ projectKey: keys[i % KEYS] }, requirement)
      if (auth.projectId !== PROJECT) throw new Error('verification failed')
    }
    for (let i = 0; i < KEYS; i++) await Promise.all([verifyOf(own)(i), verifyOf(held)(i)])
    const result = await compare(verifyOf(own), verifyOf(held), 16)
    console.log('\nRoles against own permissions (PostgreSQL, the verification cache on, 16 in flight):\n')
    const format = (n) => Math.round(n).toLocaleString('en-US')
    table(
      ['database', 'own 50 (ops/s)', '5 roles of 10 (ops/s)', 'roles/own', 'CPU per op, own / roles (µs)'],
      [
        [
          'pg',
          format(result.off.opsPerSecond),
          format(result.on.opsPerSecond),
          `${result.ratio.toFixed(3)}x`,
          `${result.off.cpuPerOp.toFixed(1)} / ${result.on.cpuPerOp.toFixed(1)}`,
        ],
      ],
    )
    console.log(
      `\n${machineLine()} ${ROUNDS} pairs of ${ROUND_MS} ms rounds, alternating order; median of the pairs' ratios.` +
        ` ${KEYS} keys of each; a 10-term query; target roles/own >= 0.95x.`,
    )
    await keyward.close()
  } finally {
    await store.query(`DROP SCHEMA "${schema}" CASCADE`)
    await store.close()
  }
}

if (process.env.POSTGRES_BENCH === 'roles') {
  if (url) await rolesBench()
  else console.log('Roles skipped: set KEYWARD_PG_URL.')
  process.exit(0)
}

if (process.env.POSTGRES_BENCH === 'pages') {
  if (url) await pageBench()
  else console.log('Paged listing skipped: set KEYWARD_PG_URL.')
  process.exit(0)
}

cases.set('memory', (await verification(createKeyward({ store: new MemoryKeyStore(), usage: false }))).verify)

if (url) {
  const schema = `kw_bench_${process.pid}`
  const options = { schema, changeFeed: true }
  const pool = { connectionString: url, poolConfig: { max: 10 } }
  const plain = await createPgKeyStore(pool, options)
  const cached = await createPgKeyStore(pool, options)
  closers.push(async () => {
    await plain.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`)
    await plain.close()
    await cached.close()
  })
  const uncachedService = createKeyward({ store: plain, usage: false })
  const { keys, hashes, verify } = await verification(uncachedService)
  const cachedService = createKeyward({ store: cached, cache: {}, usage: false })
  const requirement = { scope: 'project', projectId: PROJECT }
  cases.set('pg', verify)
  cases.set('pg-cached', (i) => cachedService.authenticate({ projectKey: keys[i % KEYS] }, requirement))
  const raw = new pg.Pool({ connectionString: url, max: 10 })
  closers.push(() => raw.end())
  const text = `SELECT ${COLUMNS} FROM "${schema}".api_keys WHERE hash = $1`
  cases.set('pg-floor', async (i) => {
    const { rows } = await raw.query({ name: 'bench_floor', text, values: [hashes[i % KEYS]] })
    if (rows.length !== 1) throw new Error('lookup failed')
  })
  timing.push(['PostgreSQL', uncachedService, keys])
  trackingStores.push(['PostgreSQL (pg Pool, 10)', plain])

  // The same lookups as unnamed statements (what a transaction pooler needs), directly and through
  // a PgBouncer in transaction mode (stock settings) when pgbouncer is installed.
  const unnamed = await createPgKeyStore(pool, { schema, preparedStatements: false, migrate: false })
  closers.push(() => unnamed.close())
  const unnamedService = createKeyward({ store: unnamed, usage: false })
  cases.set('pg-unnamed', (i) => unnamedService.authenticate({ projectKey: keys[i % KEYS] }, requirement))
  if (!pgbouncerUnavailable()) {
    const bouncer = await PgBouncer.start({ server: url, poolMode: 'transaction' })
    const pooled = await createPgKeyStore(
      { connectionString: bouncer.through(url), poolConfig: { max: 10 } },
      { schema, preparedStatements: false, migrate: false },
    )
    closers.unshift(async () => {
      await pooled.close()
      await bouncer.destroy()
    })
    const pooledService = createKeyward({ store: pooled, usage: false })
    cases.set('pg-pgbouncer', (i) => pooledService.authenticate({ projectKey: keys[i % KEYS] }, requirement))
  }
}

{
  const db = await PGlite.create()
  closers.push(() => db.close())
  const store = await createPGliteKeyStore({ db })
  const service = createKeyward({ store, usage: false })
  const { keys, verify } = await verification(service)
  const cachedService = createKeyward({ store, cache: {}, usage: false })
  const requirement = { scope: 'project', projectId: PROJECT }
  cases.set('pglite', verify)
  cases.set('pglite-cached', (i) => cachedService.authenticate({ projectKey: keys[i % KEYS] }, requirement))
  timing.push(['PGlite', service, keys])
  trackingStores.push(['PGlite (in process)', store])
}

// Throughput: every case at each concurrency, in rounds of rotating order.
const results = []
const floorRatios = []
for (const inFlight of IN_FLIGHT) {
  const names = [...cases.keys()]
  // Warm up, and let every cache see every key once: the rounds measure the steady state (a key's
  // first verification costs what it costs without a cache, the `pg` and `pglite` rows).
  for (const name of names) {
    for (let i = 0; i < KEYS; i += 16)
      await Promise.all(Array.from({ length: 16 }, (_, k) => cases.get(name)(i + k)))
    await throughput(cases.get(name), inFlight, 150)
  }
  const samples = new Map(names.map((name) => [name, []]))
  for (let round = 0; round < ROUNDS; round++) {
    const order = names.map((_, k) => names[(k + round) % names.length])
    for (const name of order)
      samples.get(name).push((await throughput(cases.get(name), inFlight, ROUND_MS)).opsPerSecond)
  }
  for (const name of names)
    results.push({ case: name, inFlight, opsPerSec: Math.round(median(samples.get(name))) })
  // The uncached verification against its floor, round by round: the two ran seconds apart at
  // most, so the ratio of each round is less disturbed by other load than the two medians are.
  if (samples.has('pg-floor')) {
    const ratios = samples.get('pg').map((ops, round) => ops / samples.get('pg-floor')[round])
    floorRatios.push([
      String(inFlight),
      median(ratios).toFixed(2),
      Math.min(...ratios).toFixed(2),
      Math.max(...ratios).toFixed(2),
    ])
  }
}

// Timing of refusals against acceptances without a cache: mean µs per verification, one in
// flight, the three kinds interleaved key by key so that drift hits them alike.
const timingRows = []
for (const [database, service, keys] of timing) {
  const requirement = { scope: 'project', projectId: PROJECT }
  const inactive = []
  for (let i = 0; i < 200; i++) {
    const { key, record } = await service.issueProjectKey(PROJECT)
    await service.deactivateKey(record.id)
    inactive.push(key)
  }
  const unknown = Array.from({ length: 200 }, () => generateKey())
  const kinds = { unknown, inactive, valid: keys }
  const totals = { unknown: [], inactive: [], valid: [] }
  const swallow = () => {}
  for (let round = 0; round < ROUNDS * 3; round++) {
    const sums = { unknown: 0, inactive: 0, valid: 0 }
    for (let i = 0; i < 200; i++) {
      for (const kind of ['unknown', 'inactive', 'valid']) {
        const started = performance.now()
        await service.authenticate({ projectKey: kinds[kind][i] }, requirement).catch(swallow)
        sums[kind] += performance.now() - started
      }
    }
    for (const kind of Object.keys(sums)) totals[kind].push((sums[kind] / 200) * 1000)
  }
  const med = Object.fromEntries(Object.entries(totals).map(([kind, list]) => [kind, median(list)]))
  // Noise: how far the round means of one kind spread (interquartile range, over all kinds).
  const spread = (list) => {
    const sorted = [...list].sort((a, b) => a - b)
    return sorted[Math.floor((sorted.length * 3) / 4)] - sorted[Math.floor(sorted.length / 4)]
  }
  const noise = median(Object.values(totals).map(spread))
  timingRows.push([
    database,
    med.unknown.toFixed(1),
    med.inactive.toFixed(1),
    med.valid.toFixed(1),
    (med.inactive - med.unknown).toFixed(1),
    (med.valid - med.unknown).toFixed(1),
    noise.toFixed(1),
  ])
}

const trackingRows = []
for (const [label, store] of trackingStores) trackingRows.push(...(await compareTracking(label, store)))

for (const close of closers) await close()

const ops = (name, inFlight) => results.find((r) => r.case === name && r.inFlight === inFlight)?.opsPerSec
table(
  ['case', ...IN_FLIGHT.map((n) => `${n} in flight (ops/s)`), ...IN_FLIGHT.map((n) => `vs memory at ${n}`)],
  [...cases.keys()].map((name) => [
    name,
    ...IN_FLIGHT.map((n) => ops(name, n).toLocaleString('en-US')),
    ...IN_FLIGHT.map((n) => `${(ops(name, n) / ops('memory', n)).toFixed(2)}x`),
  ]),
)
if (floorRatios.length > 0) {
  console.log('\nPostgreSQL without a cache against its floor (pg / pg-floor, per round; target >= 0.9x):\n')
  table(['in flight', 'median of rounds', 'lowest round', 'highest round'], floorRatios)
}
console.log('\nWithout a cache, mean µs per verification (one in flight, kinds interleaved key by key):\n')
table(
  [
    'database',
    'unknown',
    'inactive',
    'valid',
    'inactive - unknown',
    'valid - unknown',
    'noise (IQR of rounds)',
  ],
  timingRows,
)
console.log(
  `\n${machineLine()} ${ROUNDS} rounds of ${ROUND_MS} ms per case, in rotating order; median round.` +
    ` ${KEYS} keys. pg: node-postgres pool of 10; -cached: the verification cache on, with the change feed;` +
    ' pg-floor: a raw prepared lookup of the precomputed hash; pg-unnamed: preparedStatements false;' +
    ' pg-pgbouncer: the same through PgBouncer (transaction mode, stock settings).' +
    (url ? '' : ' PostgreSQL skipped: set KEYWARD_PG_URL.'),
)
console.log('\nlast_used_at tracking on against off (10 in flight):\n')
const format = (n) => Math.round(n).toLocaleString('en-US')
table(
  ['database', 'interval', 'off (ops/s)', 'on (ops/s)', 'on/off', 'CPU per op, off / on (µs)'],
  trackingRows.map(([database, seconds, { off, on, ratio }]) => [
    database,
    `${seconds} s`,
    format(off.opsPerSecond),
    format(on.opsPerSecond),
    `${ratio.toFixed(3)}x`,
    `${off.cpuPerOp.toFixed(1)} / ${on.cpuPerOp.toFixed(1)}`,
  ]),
)
if (process.env.BENCH_JSON) writeFileSync(process.env.BENCH_JSON, `${JSON.stringify(results, null, 2)}\n`)

/**
 * One page (limit 100) from the middle of a project's 10,000 keys, through the store's
 * listKeysPage (the keyset query on the page index that the HTTP listing runs), on PostgreSQL:
 * the time of each fetch, one at a time, p50 and p99 over PAGE_SAMPLES fetches.
 */
async function pageBench() {
  const PAGE_KEYS = 10_000
  const PAGE_SAMPLES = Number(process.env.BENCH_PAGE_SAMPLES ?? 500)
  const schema = `kw_bench_pages_${process.pid}`
  const store = await createPgKeyStore({ connectionString: url, poolConfig: { max: 10 } }, { schema })
  try {
    const keyward = createKeyward({ store, trackLastUsed: false })
    const owner = { type: 'project', id: 'bench-pages' }
    for (let i = 0; i < PAGE_KEYS; i += 50) {
      await Promise.all(Array.from({ length: 50 }, () => keyward.issueProjectKey(owner.id)))
    }
    await store.query(`ANALYZE "${schema}".api_keys`)
    // The position of the 5,000th key, newest first, as a cursor carries it.
    const [middle] = await store.query(
      `SELECT to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') AS at, id::text AS id
       FROM "${schema}".api_keys WHERE project_id = $1 ORDER BY created_at DESC, id DESC OFFSET 4999 LIMIT 1`,
      [owner.id],
    )
    const after = { createdAt: middle.at, id: middle.id }
    const plan = await store.query(
      `EXPLAIN SELECT * FROM "${schema}".api_keys WHERE project_id = $1 AND (created_at, id) < ($2::timestamptz, $3::uuid)
         ORDER BY created_at DESC, id DESC LIMIT 101`,
      [owner.id, after.createdAt, after.id],
    )
    const index =
      plan
        .map((row) => row['QUERY PLAN'])
        .join(' ')
        .match(/using (\w+)/)?.[1] ?? 'no index'
    const fetch = async () => {
      const page = await keyward.listKeysPage(owner, { limit: 100, after })
      if (page.records.length !== 100 || page.next === null) throw new Error('not a full page')
    }
    for (let i = 0; i < 50; i++) await fetch()
    const times = []
    for (let i = 0; i < PAGE_SAMPLES; i++) {
      const start = performance.now()
      await fetch()
      times.push(performance.now() - start)
    }
    times.sort((a, b) => a - b)
    const at = (q) => times[Math.min(times.length - 1, Math.floor(q * times.length))].toFixed(2)
    console.log(
      "\nOne page of 100 keys from the middle (after the 5,000th) of one project's 10,000, through listKeysPage:\n",
    )
    table(
      ['database', 'p50 (ms)', 'p99 (ms)', 'max (ms)', 'index', 'target'],
      [['pg', at(0.5), at(0.99), times.at(-1).toFixed(2), index, '<= 100 ms']],
    )
    console.log(
      `\nNode ${process.version}, ${process.platform}/${process.arch}; wall time of ${PAGE_SAMPLES} fetches one after` +
        ' another, after 50 to warm up; node-postgres pool of 10; keys issued 50 at a time (many share a millisecond).',
    )
  } finally {
    await store.query(`DROP SCHEMA "${schema}" CASCADE`)
    await store.close()
  }
}

if (url) await usageBench()
else console.log('\nUsage counting skipped: set KEYWARD_PG_URL.')
if (url) await pageBench()
else console.log('\nPaged listing skipped: set KEYWARD_PG_URL.')

/**
 * Credits on PostgreSQL, through a guard as the adapters run it (its answer at once when it has
 * one): keys without credits, keys with credits (leased in blocks), and the same keys with a
 * baseline that writes once per request (a conditional UPDATE of the balance after the
 * verification). One service with the verification cache; rounds in rotating order.
 */
async function creditBench() {
  const schema = `kw_bench_credits_${process.pid}`
  const store = await createPgKeyStore(
    { connectionString: url, poolConfig: { max: 10 } },
    { schema, changeFeed: true },
  )
  const keyward = createKeyward({ store, cache: {}, trackLastUsed: false })
  try {
    const plain = []
    const metered = []
    // And keys of identities with a pool: 100 customers of 10 keys each, no credits of their own.
    const pooled = []
    const pools = []
    // And the issue's case: keys of identities with a pool and a stored rate limit (one a day,
    // never reached here), counted in the service's memory (no `protection`: one process).
    const limitedPooled = []
    const limitedPools = []
    const ratelimits = [{ name: 'requests', limit: 1_000_000_000, duration: 86_400_000 }]
    for (let i = 0; i < KEYS / 10; i++) {
      const remaining = 1_000_000_000_000
      pools.push(await keyward.createIdentity(PROJECT, { externalId: `customer_${i}`, remaining }))
      limitedPools.push(
        await keyward.createIdentity(PROJECT, { externalId: `limited_${i}`, remaining, ratelimits }),
      )
    }
    for (let i = 0; i < KEYS; i++) {
      plain.push((await keyward.issueProjectKey(PROJECT)).key)
      metered.push((await keyward.issueProjectKey(PROJECT, { remaining: 1_000_000_000_000 })).key)
      pooled.push((await keyward.issueProjectKey(PROJECT, { identityId: pools[i % pools.length].id })).key)
      const identityId = limitedPools[i % limitedPools.length].id
      limitedPooled.push((await keyward.issueProjectKey(PROJECT, { identityId })).key)
    }
    const guard = apiKeyGuard(keyward)
    const requests = (keys) =>
      keys.map((key) => ({
        method: 'GET',
        url: '/',
        params: {},
        header: (n) => (n === 'x-api-key' ? key : undefined),
      }))
    const guarded = (list) => async (i) => {
      const request = list[i % KEYS]
      const result = guard.now?.(request) ?? (await guard(request))
      if (!result.ok) throw new Error(`refused: ${result.response.body}`)
      return result
    }
    const withoutCredits = guarded(requests(plain))
    const withCredits = guarded(requests(metered))
    const ids = await Promise.all(
      metered.map(async (key) => (await store.findKeyByHash(await hashKey(key))).id),
    )
    const spend = `UPDATE "${schema}".api_keys SET remaining = remaining - 1 WHERE id = $1 AND remaining >= 1 RETURNING remaining`
    const verifyOnly = guarded(requests(plain))
    const writeEach = async (i) => {
      await verifyOnly(i)
      const rows = await store.query(spend, [ids[i % KEYS]])
      if (rows.length !== 1) throw new Error('no credits')
    }
    const credits = new Map([
      ['no credits (cached)', withoutCredits],
      ['credits, leased blocks (cached)', withCredits],
      ['credits, a write per request', writeEach],
      ["identity's pool, leased blocks (cached)", guarded(requests(pooled))],
      ["identity's pool and a stored limit, leased (cached)", guarded(requests(limitedPooled))],
    ])
    const rows = []
    for (const inFlight of IN_FLIGHT) {
      const names = [...credits.keys()]
      for (const name of names) {
        for (let i = 0; i < KEYS; i += 16)
          await Promise.all(Array.from({ length: 16 }, (_, k) => credits.get(name)(i + k)))
        // A second of steady traffic: blocks are sized by each key's recent rate.
        await throughput(credits.get(name), inFlight, 1000)
      }
      const samples = new Map(names.map((name) => [name, []]))
      for (let round = 0; round < ROUNDS; round++) {
        for (const name of names.map((_, k) => names[(k + round) % names.length]))
          samples.get(name).push((await throughput(credits.get(name), inFlight, ROUND_MS)).opsPerSecond)
      }
      const ops = Object.fromEntries(names.map((name) => [name, median(samples.get(name))]))
      const [none, , each] = names.map((name) => ops[name])
      for (const name of names) {
        rows.push([
          name,
          String(inFlight),
          Math.round(ops[name]).toLocaleString('en-US'),
          `${(ops[name] / none).toFixed(2)}x`,
          name.includes('leased') ? `${(ops[name] / each).toFixed(1)}x` : '',
        ])
      }
    }
    await keyward.close()
    const [{ leases }] = await store.query(
      `SELECT count(*)::int AS leases FROM "${schema}".api_keys WHERE remaining < 1000000000000`,
    )
    const [{ spent }] = await store.query(
      `SELECT count(*)::int AS spent FROM "${schema}".identities WHERE remaining < 1000000000000`,
    )
    console.log(
      '\nCredits on PostgreSQL, through a guard (targets at 16 in flight, for the metered cases and for an identity with a pool and a stored limit: >= 0.5x of no credits, >= 10x of a write per request):\n',
    )
    table(['case', 'in flight', 'ops/s', 'vs no credits', 'vs a write per request'], rows)
    console.log(
      `\n${machineLine()} ${ROUNDS} rounds of ${ROUND_MS} ms per case, in rotating order; median round. ${KEYS} keys of each kind,` +
        ` cost 1; node-postgres pool of 10; verification cache on, with the change feed; ${leases} metered keys spent from;` +
        ` the keys of identities: ${pools.length} identities of ${KEYS / pools.length} keys for each case (the stored limit:` +
        ` 1e9 a day, counted in memory), ${spent} pools spent from.`,
    )
  } finally {
    await store.query(`DROP SCHEMA "${schema}" CASCADE`)
    await store.close()
  }
}

if (url) await creditBench()
