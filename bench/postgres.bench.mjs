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
import { machineLine, median, table, throughput } from './harness.mjs'

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 10)
const ROUND_MS = Number(process.env.BENCH_ROUND_MS ?? 500)
const KEYS = 1000
const PROJECT = 'bench-project'

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

const COLUMNS = 'id, hash, key_prefix, developer_id, project_id, name, active, created_at'
const rows = []

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
