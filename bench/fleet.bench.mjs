// A fleet on one primary: N change feeds under strict revocation (each one a process's feed, all
// in one child process, each with a connection of its own), against a private PostgreSQL built
// for the run, while a small pool writes one row at a steady pace and a writer revokes keys. For
// each N it measures the primary's write latency without the fleet, then with it, and reports:
//
// - how much of the time the feeds count as fresh (sampled every 10 ms, every feed);
// - the write p50 and p99, without and with the fleet;
// - notifications committed on the primary per second, notifications delivered to the fleet per
//   second, the fleet's queries per second, and its connections on the primary (the relay's leader's included);
// - revocation to refusal: from the start of each revocation until each feed refuses the key
//   (it heard the change, or counts as stale, so its cache would be bypassed), p99 over all.
//
// In production the fleet runs on machines of its own. Here it shares the machine with the primary,
// so by default (where `taskset` is, on 2 cores or more) the cores are split as machines would be:
// the primary and the writes on the first half, the fleet and its Redis (a private one, when
// `redis-server` is installed) on the other half; the no-fleet figures are measured on the same
// split. FLEET_BENCH_PIN=0 shares every core between all of them; FLEET_BENCH_NICE=10 runs the
// fleet at a lower CPU priority.
//
// FLEET_BENCH_MODE=before,after (the default) runs both freshness sources in one run: `before`
// is every process fencing itself (`freshnessSource: 'fences'`), `after` the shared beacon;
// `relay` is the Redis relay (`freshnessSource: 'redis'`, on KEYWARD_REDIS_URL, default
// redis://127.0.0.1:6379): one leader listens on the primary and the feeds only subscribe. Redis
// commands sent and messages delivered are counted too. `mysql` runs the fleet of MySQL instead,
// on a private MariaDB (bench/fleet-mysql.mjs says what it measures).
// FLEET_BENCH_N (default 25,100,300,500) and FLEET_BENCH_SECONDS (default 30: a p99 of 6,000 writes;
// with 8 s, 1,600, it moved by as much as the fleet did) size the run.
import { spawn, spawnSync } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { createKeyward } from '@keyward/core'
import { createPgKeyStore, pgChangeFeed } from '@keyward/postgres/pg'
import pg from 'pg'
import { freePort, ReplicaCluster, replicaClusterUnavailable } from '../scripts/replica-cluster.mjs'
import {
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

const BOUND_MS = 250
const SIZES = (process.env.FLEET_BENCH_N ?? '25,100,300,500').split(',').map(Number)
const MODES = (process.env.FLEET_BENCH_MODE ?? 'before,after').split(',')
const SECONDS = Number(process.env.FLEET_BENCH_SECONDS ?? 30)
const WRITE_EVERY_MS = 5
const REVOKE_EVERY_MS = 400
const SCHEMA = 'kw_bench_fleet'
const sourceOf = { before: 'fences', after: 'beacon', relay: 'redis' }
let REDIS_URL = process.env.KEYWARD_REDIS_URL || 'redis://127.0.0.1:6379'
/** The relay's keys, one prefix per run and size. */
const relayPrefix = (n) => `keyward_bench_fleet:${process.env.FLEET_BENCH_RUN ?? process.pid}:${n}`
const feedOptions = (mode, n) =>
  mode === 'relay'
    ? { freshnessSource: 'redis', redis: { url: REDIS_URL, prefix: relayPrefix(n) } }
    : { freshnessSource: sourceOf[mode] }

// What every pg client of a process sends and hears: notifications committed (a fence or a
// beacon is one `pg_notify` statement), notifications delivered, and queries.
const counts = { notify: 0, delivered: 0, queries: 0, redisCommands: 0, redisMessages: 0 }
const { query, emit } = pg.Client.prototype
pg.Client.prototype.query = function (config, ...rest) {
  counts.queries++
  const text = typeof config === 'string' ? config : config?.text
  if (typeof text === 'string' && text.includes('pg_notify(')) counts.notify++
  return query.call(this, config, ...rest)
}
pg.Client.prototype.emit = function (name, ...rest) {
  if (name === 'notification') counts.delivered++
  return emit.call(this, name, ...rest)
}
// The ioredis the package loads (an optional peer dependency of it), when there is one.
const Redis = (() => {
  try {
    return createRequire(fileURLToPath(import.meta.resolve('@keyward/postgres/pg')))('ioredis').Redis
  } catch {
    return undefined
  }
})()
if (Redis) {
  const { sendCommand, emit: redisEmit } = Redis.prototype
  Redis.prototype.sendCommand = function (...args) {
    counts.redisCommands++
    return sendCommand.apply(this, args)
  }
  Redis.prototype.emit = function (name, ...rest) {
    if (name === 'message') counts.redisMessages++
    return redisEmit.call(this, name, ...rest)
  }
}

if (process.env.FLEET_BENCH_CHILD) await fleet(JSON.parse(process.env.FLEET_BENCH_CHILD))
else if (MODES.includes('mysql')) {
  if (MODES.length > 1) throw new Error('FLEET_BENCH_MODE: mysql runs alone')
  await (await import('./fleet-mysql.mjs')).main()
} else await main()

/** The child: N feeds; answers `ready`, then measures between `measure` and `stop`. */
async function fleet({ n, mode, url }) {
  const feeds = Array.from({ length: n }, () =>
    pgChangeFeed({
      connectionString: url,
      schema: SCHEMA,
      freshnessBoundMs: BOUND_MS,
      ...feedOptions(mode, n),
      clientConfig: { application_name: 'fleet' },
    }),
  )
  await serveFleet(feeds, counts)
}

async function main() {
  const unavailable = replicaClusterUnavailable()
  if (unavailable) {
    console.log(`Skipped: ${unavailable}.`)
    return
  }
  for (const mode of MODES) {
    if (!sourceOf[mode])
      throw new Error(`FLEET_BENCH_MODE: expected before, after, relay or mysql, got ${mode}`)
  }
  const cluster = await ReplicaCluster.start({
    standby: false,
    settings: ['max_connections = 700', 'shared_buffers = 128MB'],
  })
  const url = cluster.primary.url
  let redisServer
  if (PIN) {
    // The postmaster and the processes it started; the backends it forks later inherit it.
    const postmaster = Number(
      readFileSync(join(cluster.primary.dataDir, 'postmaster.pid'), 'utf8').split('\n')[0],
    )
    pin(postmaster, PIN.primary, { children: true })
    pin(process.pid, PIN.primary)
    if (MODES.includes('relay') && spawnSync('redis-server', ['--version']).status === 0) {
      const port = await freePort()
      redisServer = spawn(
        'taskset',
        ['-c', PIN.fleet, 'redis-server', '--port', String(port), '--save', '', '--appendonly', 'no'],
        { stdio: 'ignore' },
      )
      REDIS_URL = `redis://127.0.0.1:${port}`
      process.env.KEYWARD_REDIS_URL = REDIS_URL // the fleet's process reads it
      await waitForRedis(REDIS_URL)
    }
  }
  const admin = new pg.Pool({ connectionString: url, max: 4 })
  admin.on('error', () => {})
  const rows = []
  try {
    await admin.query('CREATE TABLE fleet_bench (id int PRIMARY KEY, n bigint NOT NULL)')
    await admin.query('INSERT INTO fleet_bench VALUES (1, 0)')
    await writeLoad(update(admin), 2, WRITE_EVERY_MS) // warm-up
    // Each mode over every size, the fences last: the primary takes a while to recover from a
    // large fleet fencing itself.
    for (const mode of [...MODES].sort((a, b) => (a === 'before') - (b === 'before') || a.localeCompare(b))) {
      for (const n of SIZES) {
        rows.push(row(await runFleet(admin, url, n, mode)))
        console.error(`fleet: ${n} ${mode} done`)
      }
    }
  } finally {
    await admin.end()
    await cluster.destroy()
    if (redisServer) redisServer.kill()
    else if (MODES.includes('relay') && Redis) {
      const redis = new Redis(REDIS_URL)
      for (const n of SIZES)
        await redis.del(`${relayPrefix(n)}:relay-leader`, `${relayPrefix(n)}:relay-epoch`)
      await redis.quit()
    }
  }
  table(
    [
      'processes',
      'freshness',
      'fresh',
      'write p50 (ms), no fleet -> fleet',
      'write p99 (ms), no fleet -> fleet',
      'notifications/s',
      'delivered/s',
      'fleet queries/s',
      'fleet connections',
      'Redis commands/s',
      'Redis messages/s',
      'revocation to refusal p99 (max), ms',
      'revocations',
    ],
    rows,
  )
  console.log(
    `\nNode ${process.version}, ${process.platform}/${process.arch}; a private PostgreSQL on this machine; ` +
      `bound ${BOUND_MS} ms; one row written every ${WRITE_EVERY_MS} ms for ${SECONDS} s without, then with, ` +
      `the fleet; a revocation every ${REVOKE_EVERY_MS} ms. before: every feed fences itself every quarter ` +
      'of the bound; after: one beacon for the database every third of the bound, a probe per feed per beacon, ' +
      'fences only to acknowledge a revocation; relay: one leader (a Redis lease) listens on the primary and ' +
      'relays the changes and a heartbeat every quarter of the bound through Redis, each feed reads the epoch ' +
      'every quarter of the bound (on a Redis on this machine). ' +
      (PIN
        ? `Cores split: the primary and the writes on CPU ${PIN.primary}, the fleet and its Redis on CPU ${PIN.fleet}.`
        : 'Cores shared by all.'),
  )
}

async function runFleet(admin, url, n, mode) {
  const baseline = await writeLoad(update(admin), SECONDS, WRITE_EVERY_MS)
  const { child, next, exited } = forkChild(fileURLToPath(import.meta.url), {
    FLEET_BENCH_RUN: String(process.pid),
    FLEET_BENCH_CHILD: JSON.stringify({ n, mode, url }),
  })
  const writerStore = await createPgKeyStore(
    { connectionString: url, poolConfig: { max: 2 } },
    {
      schema: SCHEMA,
      strictRevocation: { boundMs: BOUND_MS },
      changeFeed: feedOptions(mode, n),
      queryTimeoutMs: 10_000,
    },
  )
  try {
    const writer = createKeyward({ store: writerStore })
    const keys = []
    for (let i = 0; i < Math.ceil((SECONDS * 1000) / REVOKE_EVERY_MS) + 2; i++) {
      keys.push((await writer.issueProjectKey('fleet-bench')).record)
    }
    await next('ready')
    await sleep(2000)
    child.send({ type: 'measure' })
    const revoking = revokeLoop(writer, keys, child, SECONDS, REVOKE_EVERY_MS)
    const before = { ...counts }
    const startedAt = performance.now()
    const withFleet = await writeLoad(update(admin), SECONDS, WRITE_EVERY_MS)
    const seconds = (performance.now() - startedAt) / 1000
    const after = { ...counts }
    const { made, failed } = await revoking
    const [{ connections }] = (
      await admin.query(
        "SELECT count(*)::int AS connections FROM pg_stat_activity WHERE application_name IN ('fleet', 'keyward relay')",
      )
    ).rows
    child.send({ type: 'stop' })
    const result = await next('result')
    console.error(`fleet: its process used ${result.counts.cpu.toFixed(0)}% of a core`)
    // Notifications and queries of this process (the writer) and of the fleet; the writes are not counted.
    const rate = (name) => (after[name] - before[name] + result.counts[name]) / seconds
    return {
      n,
      mode,
      fresh: result.fresh,
      baseline,
      withFleet,
      notify: rate('notify'),
      delivered: rate('delivered'),
      queries: rate('queries') - withFleet.length / seconds,
      redisCommands: rate('redisCommands'),
      redisMessages: rate('redisMessages'),
      connections,
      refusals: result.refusals,
      unheard: result.unheard,
      made,
      failed,
    }
  } finally {
    await writerStore.close()
    await exited
  }
}

function row(r) {
  return [
    r.n,
    r.mode,
    `${(r.fresh * 100).toFixed(r.fresh > 0.99 ? 2 : 1)}%`,
    `${ms(pct(r.baseline, 50))} -> ${ms(pct(r.withFleet, 50))}`,
    `${ms(pct(r.baseline, 99))} -> ${ms(pct(r.withFleet, 99))}`,
    Math.round(r.notify),
    Math.round(r.delivered),
    Math.round(r.queries),
    r.connections,
    Math.round(r.redisCommands),
    Math.round(r.redisMessages),
    `${ms(pct(r.refusals, 99))} (${ms(Math.max(...r.refusals))})`,
    revocationsCell(r),
  ]
}

/** Resolves once a Redis answers at `url` (10 s at most). */
async function waitForRedis(url) {
  const deadline = performance.now() + 10_000
  for (;;) {
    const redis = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null })
    redis.on('error', () => {})
    try {
      await redis.connect()
      await redis.ping()
      return
    } catch (error) {
      if (performance.now() > deadline) throw error
      await sleep(50)
    } finally {
      redis.disconnect()
    }
  }
}
