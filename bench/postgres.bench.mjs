// Verification through the Postgres store against the floor: a raw prepared lookup of the
// same hash on the same connections, with nothing of Keyward around it. Both run in the
// same process and the same run, in alternating rounds, at 1 and 10 requests in flight.
// PostgreSQL when KEYWARD_PG_URL names a server; embedded PGlite always.
import { PGlite } from '@electric-sql/pglite'
import { createKeyward, hashKey } from '@keyward/core'
import { migrate, PostgresKeyStore } from '@keyward/postgres'
import { pgDriver } from '@keyward/postgres/pg'
import { pgliteDriver } from '@keyward/postgres/pglite'
import pg from 'pg'
import { machineLine, table } from './harness.mjs'

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 10)
const ROUND_MS = Number(process.env.BENCH_ROUND_MS ?? 500)
const KEYS = 1000
const PROJECT = 'bench-project'

/**
 * Runs `op` with `inFlight` concurrent loops for `ms`; returns operations per second and the
 * CPU time of this process per operation (microseconds), which other load on the machine
 * disturbs less than throughput.
 */
async function throughput(op, inFlight, ms) {
  let count = 0
  let i = 0
  const end = performance.now() + ms
  const started = performance.now()
  const cpu = process.cpuUsage()
  await Promise.all(
    Array.from({ length: inFlight }, async () => {
      while (performance.now() < end) {
        await op(i++)
        count++
      }
    }),
  )
  const { user, system } = process.cpuUsage(cpu)
  return { opsPerSecond: (count * 1000) / (performance.now() - started), cpuPerOp: (user + system) / count }
}

const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]

/**
 * Runs floor and Keyward in pairs of rounds, in alternating order (so that neither always
 * goes first on a machine whose load drifts); returns the median throughput of each and the
 * median of the ratios of the pairs.
 */
async function compare(floor, keyward, inFlight) {
  await throughput(floor, inFlight, 300)
  await throughput(keyward, inFlight, 300)
  const runs = { floor: [], keyward: [] }
  const ratios = []
  for (let round = 0; round < ROUNDS; round++) {
    const pair = {}
    for (const name of round % 2 === 0 ? ['floor', 'keyward'] : ['keyward', 'floor']) {
      pair[name] = await throughput(name === 'floor' ? floor : keyward, inFlight, ROUND_MS)
      runs[name].push(pair[name])
    }
    ratios.push(pair.keyward.opsPerSecond / pair.floor.opsPerSecond)
  }
  const summary = (list) => ({
    opsPerSecond: median(list.map((r) => r.opsPerSecond)),
    cpuPerOp: median(list.map((r) => r.cpuPerOp)),
  })
  return { floor: summary(runs.floor), keyward: summary(runs.keyward), ratio: median(ratios) }
}

/** Issues keys through the store and returns the verification and floor operations. */
async function setup(store) {
  const keyward = createKeyward({ store })
  const keys = []
  for (let i = 0; i < KEYS; i++) keys.push((await keyward.issueProjectKey(PROJECT)).key)
  const hashes = await Promise.all(keys.map(hashKey))
  const verify = async (i) => {
    const auth = await keyward.authenticate(
      { projectKey: keys[i % KEYS] },
      { scope: 'project', projectId: PROJECT },
    )
    if (auth.projectId !== PROJECT) throw new Error('verification failed')
  }
  return { hashes, verify }
}

const COLUMNS =
  'id, hash, key_prefix, developer_id, project_id, name, active, created_at, expires_at, last_used_at, replaced_by'
const rows = []
// last_used_at tracking on against off, on the same store and run.
const trackingRows = []
// The default interval (60 s: each key written once in the run), and 1 s: every key written
// again every 1 to 1.25 s, a write load far above what the default makes.
const LAST_USED_INTERVALS = [60, 1]

async function compareTracking(label, store) {
  const untracked = createKeyward({ store, trackLastUsed: false })
  const keys = []
  for (let i = 0; i < KEYS; i++) keys.push((await untracked.issueProjectKey(`${PROJECT}-lu`)).key)
  const verifyWith = (service) => async (i) => {
    await service.authenticate(
      { projectKey: keys[i % KEYS] },
      { scope: 'project', projectId: `${PROJECT}-lu` },
    )
  }
  for (const seconds of LAST_USED_INTERVALS) {
    const tracked = createKeyward({ store, lastUsedIntervalSeconds: seconds })
    const result = await compare(verifyWith(untracked), verifyWith(tracked), 10)
    await tracked.flushLastUsed()
    trackingRows.push([label, seconds, result])
  }
}

async function benchPostgres(url) {
  const schema = `kw_bench_${process.pid}`
  const pool = new pg.Pool({ connectionString: url, max: 10 })
  try {
    const driver = pgDriver(pool)
    await migrate(driver, { schema })
    const { hashes, verify } = await setup(new PostgresKeyStore(driver, { schema }))
    const text = `SELECT ${COLUMNS} FROM "${schema}".api_keys WHERE hash = $1`
    const floor = async (i) => {
      const { rows: found } = await pool.query({ name: 'bench_floor', text, values: [hashes[i % KEYS]] })
      if (found.length !== 1) throw new Error('lookup failed')
    }
    for (const inFlight of [1, 10])
      rows.push(['PostgreSQL (pg Pool, 10)', inFlight, await compare(floor, verify, inFlight)])
    await compareTracking('PostgreSQL (pg Pool, 10)', new PostgresKeyStore(driver, { schema }))
  } finally {
    await pool.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`)
    await pool.end()
  }
}

async function benchPGlite() {
  const db = await PGlite.create()
  try {
    const driver = pgliteDriver(db)
    await migrate(driver)
    const { hashes, verify } = await setup(new PostgresKeyStore(driver))
    const text = `SELECT ${COLUMNS} FROM keyward.api_keys WHERE hash = $1`
    const floor = async (i) => {
      const { rows: found } = await db.query(text, [hashes[i % KEYS]])
      if (found.length !== 1) throw new Error('lookup failed')
    }
    for (const inFlight of [1, 10])
      rows.push(['PGlite (in process)', inFlight, await compare(floor, verify, inFlight)])
    await compareTracking('PGlite (in process)', new PostgresKeyStore(driver))
  } finally {
    await db.close()
  }
}

const url = process.env.KEYWARD_PG_URL
if (url) await benchPostgres(url)
await benchPGlite()

const format = (n) => Math.round(n).toLocaleString('en-US')
table(
  [
    'database',
    'in flight',
    'floor: raw prepared lookup (ops/s)',
    'Keyward verification (ops/s)',
    'ratio',
    'CPU per op, floor / Keyward (µs)',
  ],
  rows.map(([database, inFlight, { floor, keyward, ratio }]) => [
    database,
    inFlight,
    format(floor.opsPerSecond),
    format(keyward.opsPerSecond),
    `${ratio.toFixed(2)}x`,
    `${floor.cpuPerOp.toFixed(1)} / ${keyward.cpuPerOp.toFixed(1)}`,
  ]),
)
console.log(
  `\n${machineLine()} ${ROUNDS} pairs of rounds of ${ROUND_MS} ms, floor and Keyward in alternating order;` +
    " ratio: median of the pairs' ratios; CPU: of this process, the database's not included." +
    ` ${KEYS} keys. The floor looks up the precomputed hash with a prepared statement; Keyward verification` +
    ' checks the format, hashes the key, looks it up through the store (prepared, with a timeout) and' +
    ' checks active and scope.' +
    (url ? '' : ' PostgreSQL skipped: set KEYWARD_PG_URL.'),
)
console.log('\nlast_used_at tracking on against off (10 in flight):\n')
table(
  ['database', 'interval', 'off (ops/s)', 'on (ops/s)', 'on/off', 'CPU per op, off / on (µs)'],
  trackingRows.map(([database, seconds, { floor, keyward, ratio }]) => [
    database,
    `${seconds} s`,
    format(floor.opsPerSecond),
    format(keyward.opsPerSecond),
    `${ratio.toFixed(3)}x`,
    `${floor.cpuPerOp.toFixed(1)} / ${keyward.cpuPerOp.toFixed(1)}`,
  ]),
)
