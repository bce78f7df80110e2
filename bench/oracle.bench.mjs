// Is the time of an answer an oracle of which keys exist? Unknown keys and deactivated keys both
// answer 401 key_invalid; this measures what each costs through the Postgres store (one request
// in flight, cases interleaved round after round, medians), with a valid key for reference.
// PostgreSQL when KEYWARD_PG_URL names a server; embedded PGlite always.
import { PGlite } from '@electric-sql/pglite'
import { createKeyward, generateKey } from '@keyward/core'
import { migrate, PostgresKeyStore } from '@keyward/postgres'
import { pgDriver } from '@keyward/postgres/pg'
import { pgliteDriver } from '@keyward/postgres/pglite'
import pg from 'pg'
import { machineLine, measure, table } from './harness.mjs'

const KEYS = 500
const PROJECT = 'bench-project'
const rows = []

async function bench(name, store) {
  const keyward = createKeyward({ store })
  const valid = []
  const inactive = []
  for (let i = 0; i < KEYS; i++) {
    valid.push((await keyward.issueProjectKey(PROJECT)).key)
    const issued = await keyward.issueProjectKey(PROJECT)
    await keyward.deactivateKey(issued.record.id)
    inactive.push(issued.key)
  }
  const unknown = Array.from({ length: KEYS }, () => generateKey())
  const requirement = { scope: 'project', projectId: PROJECT }
  const refused = (keys) => async (i) => {
    try {
      await keyward.authenticate({ projectKey: keys[i % KEYS] }, requirement)
    } catch (error) {
      if (error.type === 'key_invalid') return
      throw error
    }
    throw new Error('accepted')
  }
  const result = await measure(
    [
      { name: 'unknown', fn: refused(unknown), async: true },
      { name: 'inactive', fn: refused(inactive), async: true },
      {
        name: 'valid',
        fn: (i) => keyward.authenticate({ projectKey: valid[i % KEYS] }, requirement),
        async: true,
      },
    ],
    { rounds: 21, roundMs: 150 },
  )
  const us = (case_) => result.get(case_) / 1000
  rows.push([
    name,
    us('unknown').toFixed(1),
    us('inactive').toFixed(1),
    (us('inactive') - us('unknown')).toFixed(1),
    us('valid').toFixed(1),
  ])
}

const url = process.env.KEYWARD_PG_URL
if (url) {
  const schema = `kw_bench_oracle_${process.pid}`
  const pool = new pg.Pool({ connectionString: url, max: 2 })
  try {
    const driver = pgDriver(pool)
    await migrate(driver, { schema })
    await bench('PostgreSQL (pg Pool)', new PostgresKeyStore(driver, { schema }))
  } finally {
    await pool.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`)
    await pool.end()
  }
}
const db = await PGlite.create()
try {
  const driver = pgliteDriver(db)
  await migrate(driver)
  await bench('PGlite (in process)', new PostgresKeyStore(driver))
} finally {
  await db.close()
}

table(
  ['database', 'unknown key (µs)', 'inactive key (µs)', 'inactive − unknown (µs)', 'valid key (µs)'],
  rows,
)
console.log(
  `\n${machineLine()} One request in flight, ${KEYS} keys of each kind; both refusals answer 401 key_invalid.` +
    (url ? '' : ' PostgreSQL skipped: set KEYWARD_PG_URL.'),
)
