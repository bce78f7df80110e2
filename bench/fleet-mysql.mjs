// The fleet of MySQL (`FLEET_BENCH_MODE=mysql pnpm bench fleet`), on a private MariaDB built for
// the run (mariadbd on a free port in a temporary directory, removed after), in two sections.
//
// 1. A fleet on one server: N change feeds (`mysqlChangeFeed`, each a process's feed, all in one
//    child process, each with a connection of its own, polling every 100 ms with a bound of 500 ms,
//    the defaults), while a small pool writes one row every 5 ms and a writer revokes a key every
//    400 ms with strict revocation. For each N it measures the server without the fleet, then with
//    it, and reports: how much of the time the feeds count as fresh; the write p50 and p99; the
//    server's CPU (mariadbd's, from /proc); the fleet's statements per second on the server (the
//    deltas of SHOW GLOBAL STATUS `Questions` and `Com_select`, minus the statements this process
//    sent), per feed too; the fleet's connections; and revocation to refusal (from the start of
//    each revocation until each feed heard it, or counted as stale), p99 over all.
// 2. Revocation across two processes: two child processes, each a Keyward service on
//    @keyward/mysql with its change feed and a verification cache (a TTL of ten minutes), strict
//    revocation on, verifying a key every millisecond; this process revokes it through a third
//    store (strict revocation, no feed) and measures, for each process and each revocation, the
//    time from the revocation's start and from its acknowledgement until the first refusal, and
//    counts the verifications started after the acknowledgement that accepted the key (0 is the
//    guarantee). FLEET_BENCH_REVOCATIONS (default 50; 0 skips the section) revocations.
//
// The cores are split as in the PostgreSQL fleet: the server and this process on the first half,
// the fleet's processes on the other (FLEET_BENCH_PIN=0 shares them).
import { readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { createKeyward } from '@keyward/core'
import { createMysqlKeyStore, mysqlChangeFeed } from '@keyward/mysql'
import mysql from 'mysql2/promise'
import { MariadbServer, mariadbServerUnavailable } from '../scripts/mariadb-server.mjs'
import {
  clock,
  forkChild,
  ms,
  PIN,
  pct,
  pin,
  revocationsCell,
  revokeLoop,
  serveFleet,
  sleep,
  update,
  writeLoad,
} from './fleet-common.mjs'
import { table } from './harness.mjs'

const POLL_MS = 100
const BOUND_MS = 500
const SIZES = (process.env.FLEET_BENCH_N ?? '25,100,300').split(',').map(Number)
const SECONDS = Number(process.env.FLEET_BENCH_SECONDS ?? 30)
const REVOCATIONS = Number(process.env.FLEET_BENCH_REVOCATIONS ?? 50)
const WRITE_EVERY_MS = 5
const REVOKE_EVERY_MS = 400
const PROJECT = 'fleet-bench'
// The statements a process sends (a `Query` or an `Execute` of mysql2, what the server counts
// in `Questions`), and those of them that are SELECTs. One mysql2 serves the bench and the store.
const counts = { statements: 0, selects: 0 }
{
  const require = createRequire(fileURLToPath(import.meta.resolve('@keyward/mysql')))
  const Connection = require(join(dirname(require.resolve('mysql2')), 'lib/base/connection.js'))
  const { addCommand } = Connection.prototype
  Connection.prototype.addCommand = function (command) {
    const name = command?.constructor?.name
    if (name === 'Query' || name === 'Execute') {
      counts.statements++
      if (/^\s*select\b/i.test(command.sql ?? '')) counts.selects++
    }
    return addCommand.call(this, command)
  }
}

const self = fileURLToPath(import.meta.url)
const role = process.env.FLEET_BENCH_MYSQL_CHILD
if (role) await (role === 'fleet' ? fleetChild : verifierChild)(JSON.parse(process.env.FLEET_BENCH_MYSQL))

/** The child of section 1: N feeds. */
async function fleetChild({ n, url }) {
  const feeds = Array.from({ length: n }, () =>
    mysqlChangeFeed({ connectionString: url }, { pollIntervalMs: POLL_MS, freshnessBoundMs: BOUND_MS }),
  )
  await serveFleet(feeds, counts)
}

/**
 * A child of section 2: a service with its feed and cache. `watch` starts verifying a key every
 * millisecond (it answers `cached` once the cache holds it); `report` stops and answers with every
 * verification since the watch (start, end, outcome); `close` ends it.
 */
async function verifierChild({ url }) {
  const store = await createMysqlKeyStore(
    { connectionString: url },
    {
      migrate: false,
      connectionLimit: 3,
      changeFeed: { pollIntervalMs: POLL_MS, freshnessBoundMs: BOUND_MS },
      strictRevocation: true,
    },
  )
  const keyward = createKeyward({ store, cache: { ttlMs: 600_000 }, usage: false, trackLastUsed: false })
  let watching
  process.on('message', async (message) => {
    if (message.type === 'watch') {
      const watch = { key: message.key, verifications: [], running: true, cached: false }
      watching = watch
      watch.loop = (async () => {
        while (watch.running) {
          const started = clock()
          const outcome = await keyward
            .authenticate({ projectKey: watch.key }, { scope: 'project', projectId: PROJECT })
            .then(
              () => 'accepted',
              (error) => error.type ?? error.name,
            )
          watch.verifications.push([started, clock(), outcome])
          if (!watch.cached && outcome === 'accepted' && (keyward.cacheStats()?.entries ?? 0) > 0) {
            watch.cached = true
            process.send({ type: 'cached' })
          }
          await sleep(1)
        }
      })()
    } else if (message.type === 'report') {
      watching.running = false
      await watching.loop
      process.send({ type: 'report', verifications: watching.verifications })
    } else if (message.type === 'close') {
      await keyward.close()
      await store.close()
      process.disconnect()
    }
  })
  process.send({ type: 'ready' })
}

/** What mariadbd has used of the CPU so far, in seconds (user and system, from /proc). */
function serverCpu(pid) {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ')
  return (Number(fields[11]) + Number(fields[12])) / 100
}

/** The server's counters of statements. */
async function status(admin) {
  const [rows] = await admin.query("SHOW GLOBAL STATUS WHERE Variable_name IN ('Questions', 'Com_select')")
  const value = (name) => Number(rows.find((row) => row.Variable_name === name).Value)
  return { questions: value('Questions'), selects: value('Com_select') }
}

/** The server's use over a stretch of writes: statements seen, this process's, CPU and time. */
async function measured(admin, pid, run) {
  const before = {
    server: await status(admin),
    mine: { ...counts },
    cpu: serverCpu(pid),
    at: performance.now(),
  }
  const result = await run()
  const mine = { ...counts }
  const after = { server: await status(admin), cpu: serverCpu(pid), at: performance.now() }
  const seconds = (after.at - before.at) / 1000
  // The statements of others: the server's count minus this process's (the reading of the status included).
  const others = (server, own) =>
    (after.server[server] - before.server[server] - (mine[own] - before.mine[own])) / seconds
  return {
    result,
    seconds,
    others: { statements: others('questions', 'statements'), selects: others('selects', 'selects') },
    cpu: (after.cpu - before.cpu) / seconds,
  }
}

export async function main() {
  const unavailable = mariadbServerUnavailable()
  if (unavailable) {
    console.log(`Skipped: ${unavailable}.`)
    return
  }
  const server = await MariadbServer.start({ maxConnections: Math.max(...SIZES, 0) + 100 })
  // Interrupted: the server goes with the bench.
  for (const signal of ['SIGINT', 'SIGTERM']) {
    process.once(signal, () => {
      server.destroy()
      process.exit(130)
    })
  }
  if (PIN) {
    pin(server.pid, PIN.primary)
    pin(process.pid, PIN.primary)
  }
  // The fleet connects as a user of its own, so that its connections can be counted.
  const fleetUrl = server.url.replace('root@', 'fleet@')
  const admin = mysql.createPool({ uri: server.url, connectionLimit: 4 })
  const rows = []
  let revocation
  try {
    for (const host of ['%', 'localhost']) {
      await admin.query(`CREATE USER 'fleet'@'${host}'`)
      await admin.query(`GRANT ALL ON keyward.* TO 'fleet'@'${host}'`)
    }
    await admin.query('CREATE TABLE fleet_bench (id int PRIMARY KEY, n bigint NOT NULL) ENGINE=InnoDB')
    await admin.query('INSERT INTO fleet_bench VALUES (1, 0)')
    // The writer's store (it also creates Keyward's tables): strict revocation, no feed of its own.
    const writerStore = await createMysqlKeyStore(
      { connectionString: server.url },
      { connectionLimit: 2, strictRevocation: { boundMs: BOUND_MS } },
    )
    try {
      const writer = createKeyward({ store: writerStore, usage: false })
      await writeLoad(update(admin), 2, WRITE_EVERY_MS) // warm-up
      for (const n of SIZES) {
        rows.push(row(await runFleet(admin, server, fleetUrl, writer, n)))
        console.error(`fleet (mysql): ${n} done`)
      }
      if (REVOCATIONS > 0) revocation = await acrossProcesses(fleetUrl, writer)
    } finally {
      await writerStore.close()
    }
  } finally {
    await admin.end()
    server.destroy()
  }
  table(
    [
      'processes',
      'fresh',
      'write p50 (ms), no fleet -> fleet',
      'write p99 (ms), no fleet -> fleet',
      'server CPU, no fleet -> fleet',
      'fleet statements/s (Questions)',
      'fleet SELECTs/s (Com_select)',
      'statements/s per feed',
      'fleet connections',
      'revocation to refusal p99 (max), ms',
      'revocation to acknowledgement p50 / p99, ms',
      'fresh and unaware after the acknowledgement',
      'revocations',
    ],
    rows,
  )
  console.log(
    `\nNode ${process.version}, ${process.platform}/${process.arch}; a private MariaDB on this machine; ` +
      `each feed polls every ${POLL_MS} ms with a bound of ${BOUND_MS} ms; one row written every ` +
      `${WRITE_EVERY_MS} ms for ${SECONDS} s without, then with, the fleet; a revocation every ` +
      `${REVOKE_EVERY_MS} ms (strict, B = ${BOUND_MS} ms). The fleet's statements are the server's ` +
      'counts less those of this process (the writes, the revocations, the readings). ' +
      (PIN
        ? `Cores split: the server and the writes on CPU ${PIN.primary}, the fleet on CPU ${PIN.fleet}.`
        : 'Cores shared by all.'),
  )
  if (!revocation) return
  console.log('\nRevocation across two processes (each a service with its feed and cache):\n')
  table(
    ['from', 'p50 (ms)', 'p99 (ms)', 'max (ms)', 'refusals'],
    [
      ['the revocation started', ...spread(revocation.fromStart), revocation.fromStart.length],
      ['its acknowledgement', ...spread(revocation.fromAck), revocation.fromAck.length],
    ],
  )
  console.log(
    `\n${revocation.made} revocations, each of a key both processes had cached; the revocation took ` +
      `${spread(revocation.took).join(' / ')} ms (p50 / p99 / max) from its start to its acknowledgement. ` +
      `Verifications started after the acknowledgement that accepted the key: ${revocation.lateAccepts} ` +
      `(of ${revocation.afterAck}). Refusals: ${[...revocation.outcomes].map(([k, v]) => `${k} ${v}`).join(', ')}. ` +
      'A negative time: the process refused the key before the revocation returned.',
  )
}

const spread = (values) => [pct(values, 50), pct(values, 99), Math.max(...values)].map(ms)

async function runFleet(admin, server, url, writer, n) {
  const baseline = await measured(admin, server.pid, () => writeLoad(update(admin), SECONDS, WRITE_EVERY_MS))
  const { child, next, exited } = forkChild(self, {
    FLEET_BENCH_MYSQL_CHILD: 'fleet',
    FLEET_BENCH_MYSQL: JSON.stringify({ n, url }),
  })
  const keys = []
  for (let i = 0; i < Math.ceil((SECONDS * 1000) / REVOKE_EVERY_MS) + 2; i++) {
    keys.push((await writer.issueProjectKey(PROJECT)).record)
  }
  await next('ready')
  await sleep(2000)
  child.send({ type: 'measure' })
  const revoking = revokeLoop(writer, keys, child, SECONDS, REVOKE_EVERY_MS)
  const withFleet = await measured(admin, server.pid, () => writeLoad(update(admin), SECONDS, WRITE_EVERY_MS))
  const { made, failed, took } = await revoking
  const [[{ connections }]] = await admin.query(
    "SELECT COUNT(*) AS connections FROM information_schema.processlist WHERE user = 'fleet'",
  )
  child.send({ type: 'stop' })
  const result = await next('result')
  await exited
  console.error(
    `fleet (mysql): statements/s of others than this process, without the fleet ` +
      `${baseline.others.statements.toFixed(1)} (SELECTs ${baseline.others.selects.toFixed(1)}), ` +
      `with it ${withFleet.others.statements.toFixed(1)} (SELECTs ${withFleet.others.selects.toFixed(1)})`,
  )
  console.error(
    `fleet (mysql): its process used ${result.counts.cpu.toFixed(0)}% of a core and sent ` +
      `${Math.round(result.counts.statements / withFleet.seconds)} statements/s by its own count`,
  )
  return {
    n,
    fresh: result.fresh,
    baseline,
    withFleet,
    connections: Number(connections),
    refusals: result.refusals,
    unheard: result.unheard,
    wrong: result.wrong,
    made,
    failed,
    took,
  }
}

function row(r) {
  const { baseline: a, withFleet: b } = r
  const percent = (cpu) => `${(cpu * 100).toFixed(0)}%`
  const fleet = (name) => b.others[name] - Math.max(0, a.others[name])
  return [
    r.n,
    `${(r.fresh * 100).toFixed(r.fresh > 0.99 ? 2 : 1)}%`,
    `${ms(pct(a.result, 50))} -> ${ms(pct(b.result, 50))}`,
    `${ms(pct(a.result, 99))} -> ${ms(pct(b.result, 99))}`,
    `${percent(a.cpu)} -> ${percent(b.cpu)}`,
    Math.round(fleet('statements')),
    Math.round(fleet('selects')),
    (fleet('statements') / r.n).toFixed(2),
    r.connections,
    `${ms(pct(r.refusals, 99))} (${ms(Math.max(...r.refusals))})`,
    `${ms(pct(r.took, 50))} / ${ms(pct(r.took, 99))}`,
    r.wrong,
    revocationsCell(r),
  ]
}

/** Section 2: revocations of keys two processes verify from their caches. */
async function acrossProcesses(url, writer) {
  const verifiers = [0, 1].map(() =>
    forkChild(self, { FLEET_BENCH_MYSQL_CHILD: 'verifier', FLEET_BENCH_MYSQL: JSON.stringify({ url }) }),
  )
  const fromStart = []
  const fromAck = []
  const took = []
  const outcomes = new Map()
  let lateAccepts = 0
  let afterAck = 0
  try {
    await Promise.all(verifiers.map(({ next }) => next('ready')))
    for (let i = 0; i < REVOCATIONS; i++) {
      const { key, record } = await writer.issueProjectKey(PROJECT)
      for (const { child } of verifiers) child.send({ type: 'watch', key })
      await Promise.all(verifiers.map(({ next }) => next('cached')))
      // Anywhere between two polls.
      await sleep(Math.random() * POLL_MS * 2)
      const startedAt = clock()
      await writer.deactivateKey(record.id)
      const ackAt = clock()
      took.push(ackAt - startedAt)
      // Verifications go on for a while after the acknowledgement: any acceptance then is counted.
      await sleep(200)
      for (const { child } of verifiers) child.send({ type: 'report' })
      for (const { next } of verifiers) {
        const { verifications } = await next('report')
        const refused = verifications.find(
          ([started, , outcome]) => started >= startedAt && outcome !== 'accepted',
        )
        if (refused) {
          fromStart.push(refused[1] - startedAt)
          fromAck.push(refused[1] - ackAt)
          outcomes.set(refused[2], (outcomes.get(refused[2]) ?? 0) + 1)
        }
        for (const [started, , outcome] of verifications) {
          if (started < ackAt) continue
          afterAck++
          if (outcome === 'accepted') lateAccepts++
        }
      }
    }
  } finally {
    for (const { child } of verifiers) child.send({ type: 'close' })
    await Promise.all(verifiers.map(({ exited }) => exited))
  }
  return { fromStart, fromAck, took, outcomes, lateAccepts, afterAck, made: REVOCATIONS }
}
