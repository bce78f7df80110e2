// Is the time of an answer an oracle of which keys exist? Unknown, deactivated and expired keys
// all answer 401 key_invalid; this measures what each costs through the Postgres store (one request
// in flight, cases interleaved round after round, medians), with a valid key for reference.
// PostgreSQL when KEYWARD_PG_URL names a server; embedded PGlite always.
import { createKeyward, generateKey } from '@keyward/core'
import { PostgresKeyStore } from '@keyward/postgres'
import { onEachDatabase } from './databases.mjs'
import { machineLine, measure, table } from './harness.mjs'

const KEYS = 500
const PROJECT = 'bench-project'
const rows = []

async function bench(name, store) {
  // Keys that expire in a day, then the service's clock moved two days on: expired keys.
  let now = Date.now()
  const keyward = createKeyward({ store, now: () => new Date(now) })
  const valid = []
  const inactive = []
  const expired = []
  for (let i = 0; i < KEYS; i++) {
    valid.push((await keyward.issueProjectKey(PROJECT)).key)
    const issued = await keyward.issueProjectKey(PROJECT)
    await keyward.deactivateKey(issued.record.id)
    inactive.push(issued.key)
    expired.push((await keyward.issueProjectKey(PROJECT, { expiresInDays: 1 })).key)
  }
  now += 2 * 86_400_000
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
      { name: 'expired', fn: refused(expired), async: true },
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
    us('expired').toFixed(1),
    (us('inactive') - us('unknown')).toFixed(1),
    (us('expired') - us('unknown')).toFixed(1),
    us('valid').toFixed(1),
  ])
}

await onEachDatabase('oracle', 2, ({ label, driver, schema }) =>
  bench(label, new PostgresKeyStore(driver, { schema })),
)

table(
  [
    'database',
    'unknown key (µs)',
    'inactive key (µs)',
    'expired key (µs)',
    'inactive − unknown (µs)',
    'expired − unknown (µs)',
    'valid key (µs)',
  ],
  rows,
)
console.log(
  `\n${machineLine()} One request in flight, ${KEYS} keys of each kind; both refusals answer 401 key_invalid.` +
    (process.env.KEYWARD_PG_URL ? '' : ' PostgreSQL skipped: set KEYWARD_PG_URL.'),
)
