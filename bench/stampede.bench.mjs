// A hot key while the verification cache is bypassed: STAMPEDE_PROCESSES processes (default 8),
// each with STAMPEDE_IN_FLIGHT verifications of one key in flight (default 500) for
// STAMPEDE_SECONDS (default 10), on PostgreSQL (KEYWARD_PG_URL) through a pool of 10 per process
// with the store's default timeouts (3 s to get a connection and to run a query). The change feed
// is forced stale (it never connects), so every verification misses the cache, as while a strict
// revocation feed is late. Reports per run: verifications, store lookups, 503 answers, and the
// latency p50 / p99 / max over all processes.
//
// Run it on two trees to compare (the one before single flight in a scratch copy):
//   KEYWARD_PG_URL=postgres://postgres@127.0.0.1:5432/test node bench/run.mjs stampede
import { fork } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { createKeyward, KeyChangeHub } from '@keyward/core'
import { PostgresKeyStore } from '@keyward/postgres'
import { createPgKeyStore, pgDriver } from '@keyward/postgres/pg'
import pg from 'pg'
import { table } from './harness.mjs'

const PROCESSES = Number(process.env.STAMPEDE_PROCESSES ?? 8)
const IN_FLIGHT = Number(process.env.STAMPEDE_IN_FLIGHT ?? 500)
const SECONDS = Number(process.env.STAMPEDE_SECONDS ?? 10)
const SCHEMA = 'kw_bench_stampede'
const PROJECT = 'bench-project'
const url = process.env.KEYWARD_PG_URL

if (process.argv[2] === 'child') await child(process.argv[3])
else await parent()

async function parent() {
  if (!url) {
    console.log('Skipped: set KEYWARD_PG_URL to a PostgreSQL server to run this benchmark.')
    return
  }
  const admin = new pg.Client({ connectionString: url })
  await admin.connect()
  await admin.query(`DROP SCHEMA IF EXISTS ${SCHEMA} CASCADE`)
  const store = await createPgKeyStore({ connectionString: url }, { schema: SCHEMA })
  const { key } = await createKeyward({ store }).issueProjectKey(PROJECT)
  await store.close()
  try {
    const children = Array.from({ length: PROCESSES }, () =>
      fork(fileURLToPath(import.meta.url), ['child', key], {
        stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
      }),
    )
    const ready = children.map((c) => new Promise((resolve) => c.once('message', resolve)))
    await Promise.all(ready)
    const results = children.map((c) => new Promise((resolve) => c.once('message', resolve)))
    for (const c of children) c.send('go')
    const all = await Promise.all(results)
    const sum = (name) => all.reduce((total, r) => total + r[name], 0)
    const latencies = all.flatMap((r) => r.latencies).sort((a, b) => a - b)
    const at = (q) => latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))]
    console.log(
      `\n${PROCESSES} processes x ${IN_FLIGHT} verifications of one key in flight, ${SECONDS} s, ` +
        'the cache bypassed (feed stale), a pool of 10 per process:\n',
    )
    table(
      [
        'verifications',
        'store lookups',
        'accepted',
        '503 store_unavailable',
        'other',
        'p50 ms',
        'p99 ms',
        'max ms',
      ],
      [
        [
          sum('verifications'),
          sum('lookups'),
          sum('accepted'),
          sum('unavailable'),
          sum('other'),
          at(0.5).toFixed(0),
          at(0.99).toFixed(0),
          latencies.at(-1).toFixed(0),
        ],
      ],
    )
  } finally {
    await admin.query(`DROP SCHEMA IF EXISTS ${SCHEMA} CASCADE`)
    await admin.end()
  }
}

async function child(key) {
  const pool = new pg.Pool({ connectionString: url, max: 10, connectionTimeoutMillis: 3000 })
  pool.on('error', () => {})
  // A feed that never connects: every lookup bypasses the cache, as while the feed is late.
  const changes = new KeyChangeHub({ connected: false })
  const store = new PostgresKeyStore(pgDriver(pool), { schema: SCHEMA, changes })
  let lookups = 0
  const find = store.findKeyByHash.bind(store)
  store.findKeyByHash = (hash) => {
    lookups++
    return find(hash)
  }
  const keyward = createKeyward({ store, cache: {} })
  const requirement = { scope: 'project', projectId: PROJECT }
  const counts = { verifications: 0, accepted: 0, unavailable: 0, other: 0 }
  const latencies = []
  process.send('ready')
  await new Promise((resolve) => process.once('message', resolve))
  const end = performance.now() + SECONDS * 1000
  await Promise.all(
    Array.from({ length: IN_FLIGHT }, async () => {
      while (performance.now() < end) {
        const started = performance.now()
        try {
          await keyward.authenticate({ projectKey: key }, requirement)
          counts.accepted++
        } catch (error) {
          if (error?.type === 'store_unavailable') counts.unavailable++
          else counts.other++
        }
        counts.verifications++
        latencies.push(performance.now() - started)
      }
    }),
  )
  // A sample of the latencies is enough for the percentiles, and keeps the message small.
  const step = Math.max(1, Math.floor(latencies.length / 5000))
  const sample = latencies.filter((_, i) => i % step === 0)
  await new Promise((resolve) => process.send({ ...counts, lookups, latencies: sample }, resolve))
  await pool.end()
  process.disconnect()
}
