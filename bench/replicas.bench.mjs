// Read replicas: a primary and a streaming standby built for this run from the machine's
// PostgreSQL binaries. Two measurements:
// 1. Verification throughput and the primary's share of the lookups, with and without the
//    standby, in alternating rounds of one run (the standby replays at once here).
// 2. Revocation lag while the standby lags by LAG_MS: revoke in process A, time until
//    process B refuses the key (B verified it from the standby just before), p50 and p99;
//    beside it the floor, a process that reads only the primary.
import { createKeyward } from '@keyward/core'
import { createPgKeyStore } from '@keyward/postgres/pg'
import pg from 'pg'
import { ReplicaCluster, replicaClusterUnavailable } from '../scripts/replica-cluster.mjs'
import { machineLine, median, table, throughput } from './harness.mjs'

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 6)
const ROUND_MS = Number(process.env.BENCH_ROUND_MS ?? 2000)
const IN_FLIGHT = 16
const KEYS = 1000
const REVOCATIONS = Number(process.env.BENCH_REVOCATIONS ?? 200)
const LAG_MS = 3000
const SCHEMA = 'kw_bench_replicas'

const unavailable = replicaClusterUnavailable()
if (unavailable) {
  console.log(`Skipped: ${unavailable}.`)
  process.exit(0)
}

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms))
async function until(check) {
  const deadline = Date.now() + 60_000
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error('timed out')
    await sleep(50)
  }
}

const cluster = await ReplicaCluster.start({ applyDelayMs: 0 })
const standbyPool = new pg.Pool({ connectionString: cluster.standby.url, max: 2 })
const primaryPool = new pg.Pool({ connectionString: cluster.primary.url, max: 2 })
const stores = []
// With a replica, strict revocation is on (the default); `strict` turns it on without one.
async function open(withReplica, strict = false) {
  const store = await createPgKeyStore(
    { connectionString: cluster.primary.url },
    {
      schema: SCHEMA,
      changeFeed: true,
      ...(strict ? { strictRevocation: true } : {}),
      ...(withReplica ? { replicas: [cluster.standby.url], replicaReads: { probeIntervalMs: 100 } } : {}),
    },
  )
  stores.push(store)
  return { store, keyward: createKeyward({ store }) }
}
const closeAll = async () => {
  for (const store of stores.splice(0)) await store.close()
}
// Index scans of the key table on the primary: one per lookup there. A backend reports them
// when it exits, so each round's stores are closed before the count is read.
const primaryLookups = async () => {
  const { rows } = await primaryPool.query(
    'SELECT idx_scan FROM pg_stat_user_tables WHERE schemaname = $1 AND relname = $2',
    [SCHEMA, 'api_keys'],
  )
  return Number(rows[0]?.idx_scan ?? 0)
}
const onStandby = async (hash) => {
  const { rows } = await standbyPool.query(`SELECT active FROM "${SCHEMA}".api_keys WHERE hash = $1`, [hash])
  return rows[0]?.active
}

try {
  // Keys, replayed by the standby.
  const writer = await open(false)
  const keys = []
  for (let i = 0; i < KEYS; i++) keys.push((await writer.keyward.issueDeveloperKey(`dev-${i % 100}`)).key)
  const lastHash = (await writer.store.listKeysByOwner({ type: 'developer', id: 'dev-99' })).at(-1).hash
  await until(async () => (await onStandby(lastHash).catch(() => undefined)) === true)
  await closeAll()

  // 1. Throughput and primary load, with and without the standby.
  const runs = { primary: [], replica: [] }
  for (let round = 0; round < ROUNDS; round++) {
    for (const name of round % 2 === 0 ? ['primary', 'replica'] : ['replica', 'primary']) {
      const before = await primaryLookups()
      const { keyward, store } = await open(name === 'replica')
      let verifications = 0
      const verify = (i) => {
        verifications++
        return keyward.authenticate({ developerKey: keys[i % KEYS] }, { scope: 'developer' })
      }
      // A new process reads the primary until its feed is connected and the standby probed.
      if (name === 'replica') await until(() => verify(0).then(() => store.replicaStats.replica > 0))
      await throughput(verify, IN_FLIGHT, 300)
      const result = await throughput(verify, IN_FLIGHT, ROUND_MS)
      await closeAll()
      await sleep(500)
      const onPrimary = (await primaryLookups()) - before
      runs[name].push({ ...result, primaryShare: onPrimary / verifications })
    }
  }

  // 2. Revocation lag while the standby lags.
  cluster.reconfigure(cluster.standby, [`recovery_min_apply_delay = '${LAG_MS}ms'`])
  await sleep(500)
  // A revokes as every writer must beside replicas: under strict revocation.
  const a = await open(false, true)
  const b = await open(true)
  const floor = await open(false)
  const issued = []
  for (let i = 0; i < REVOCATIONS; i++) issued.push(await a.keyward.issueDeveloperKey(`rev-${i % 100}`))
  await until(async () => (await onStandby(issued.at(-1).record.hash)) === true)
  const verifyIn = (process, key) =>
    process.keyward.authenticate({ developerKey: key }, { scope: 'developer' }).then(
      () => true,
      () => false,
    )
  // B verifies every key from the standby first.
  for (const { key } of issued) await verifyIn(b, key)
  const servedByStandby = b.store.replicaStats.replica
  const lags = { replica: [], floor: [] }
  let stillActiveOnStandby = 0
  const calls = []
  for (const { key, record } of issued) {
    const called = performance.now()
    await a.keyward.deactivateKey(record.id)
    const acknowledged = performance.now()
    calls.push(acknowledged - called)
    const times = await Promise.all(
      [b, floor].map(async (process) => {
        while (await verifyIn(process, key)) {
          if (performance.now() - acknowledged > 10_000) throw new Error('a revoked key kept working')
        }
        return performance.now() - acknowledged
      }),
    )
    lags.replica.push(times[0])
    lags.floor.push(times[1])
    if ((await onStandby(record.hash)) === true) stillActiveOnStandby++
  }
  await closeAll()

  const summary = (list) => ({
    opsPerSecond: median(list.map((r) => r.opsPerSecond)),
    primaryShare: median(list.map((r) => r.primaryShare)),
  })
  const primary = summary(runs.primary)
  const replica = summary(runs.replica)
  const format = (n) => Math.round(n).toLocaleString('en-US')
  table(
    ['reads', 'verifications (ops/s)', 'ratio', 'lookups on the primary per verification'],
    [
      ['primary only', format(primary.opsPerSecond), '1.00x', primary.primaryShare.toFixed(4)],
      [
        'primary + standby',
        format(replica.opsPerSecond),
        `${(replica.opsPerSecond / primary.opsPerSecond).toFixed(2)}x`,
        replica.primaryShare.toFixed(4),
      ],
    ],
  )
  const quantile = (list, q) =>
    [...list].sort((x, y) => x - y)[Math.min(list.length - 1, Math.floor(q * list.length))]
  console.log('')
  table(
    ['process B reads', 'revocation to refusal p50 (ms)', 'p99 (ms)', 'max (ms)'],
    [
      ['primary + standby lagging 3 s', ...[0.5, 0.99, 1].map((q) => quantile(lags.replica, q).toFixed(1))],
      ['floor: primary only', ...[0.5, 0.99, 1].map((q) => quantile(lags.floor, q).toFixed(1))],
    ],
  )
  console.log('')
  table(
    ['process A revokes (strict revocation, bound 250 ms)', 'call p50 (ms)', 'p99 (ms)', 'max (ms)'],
    [
      [
        'deactivateKey, commit to acknowledgement',
        ...[0.5, 0.99, 1].map((q) => quantile(calls, q).toFixed(1)),
      ],
    ],
  )
  console.log(
    `\n${machineLine()} Throughput: ${ROUNDS} rounds of ${ROUND_MS} ms per case, alternating, ${IN_FLIGHT} in flight,` +
      ` ${KEYS} developer keys, one process (store) per round, primary and standby on this machine.` +
      ' Primary lookups: index scans of the key table on the primary, counted by PostgreSQL.' +
      ` Revocation: ${REVOCATIONS} keys, each verified by B from the standby (${servedByStandby} lookups served there),` +
      ` then revoked in A; B verifies until refused. The standby replays ${LAG_MS} ms late; it still showed` +
      ` ${stillActiveOnStandby} of ${REVOCATIONS} revoked keys active when B had refused them.`,
  )
} finally {
  await closeAll()
  await standbyPool.end()
  await primaryPool.end()
  await cluster.destroy()
}
