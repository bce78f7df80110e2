// Webhooks on real PostgreSQL (KEYWARD_PG_URL), in a schema made for the run and dropped at its end:
//
// 1. Faults: WEBHOOKS_BENCH_EVENTS events (default 10,000: half `key.created` from issuing keys
//    through `createKeyward` over the PostgreSQL store, half `key.revoked` from revoking them), to
//    one endpoint, delivered by WEBHOOKS_BENCH_DISPATCHERS dispatcher processes (default 4) to a
//    receiver on 127.0.0.1 that answers 500 to 30% of requests and never answers another 10%. The
//    dispatchers are killed with SIGKILL twice (half of them once a third of the events are
//    delivered, all of them at two thirds) and started again. Every event must arrive answered 2xx
//    at least once; it reports the events delivered more than once (2xx twice or more), the total
//    time (first write to last first delivery), and attempts and deliveries per second per process.
//    A round of a dispatcher waits for its slowest delivery, so a request that is never answered
//    holds its whole batch until the timeout: the run sets the timeout (through the dispatcher's
//    `send`, `postWebhook`'s `timeoutMs`; default 1 s instead of 10 s) and the batch (default 50)
//    so that it ends in minutes; WEBHOOKS_BENCH_TIMEOUT_MS=10000 measures the package's default.
// 2. Latency: WEBHOOKS_BENCH_LATENCY_EVENTS events (default 1,000) at WEBHOOKS_BENCH_RATE writes
//    per second (default 50), a key issued then revoked, to a receiver that always answers 204, by
//    dispatchers with the package's defaults (a poll every 500 ms): from the write's return (its
//    commit) to the first delivery received, p50 and p99 (targets 1 s and 5 s).
// 3. Statements of one revocation (`deactivateKey`), counted at the driver (each query the pg
//    client sends, BEGIN and COMMIT included): a key of no developer (no event is written) against
//    a developer's key with an endpoint (its `key.revoked` event written), and where the event's
//    insert runs. Target: at most one statement more, in the same transaction.
//
// Knobs: WEBHOOKS_BENCH_EVENTS, _DISPATCHERS, _TIMEOUT_MS, _BATCH, _BASE_DELAY_MS (default 50),
// _MAX_DELAY_MS (default 1000), _LEASE_MS (default 5000), _WRITERS (default 8), _DEADLINE_S (how
// long the faults part may take, default 300), _KILLS (how many of the two kills, default 2),
// _LATENCY_EVENTS, _RATE.
import { spawn } from 'node:child_process'
import { createServer } from 'node:http'
import { loadavg } from 'node:os'
import { createInterface } from 'node:readline'
import { fileURLToPath } from 'node:url'
import { createKeyward, WebhookEndpoints } from '@keyward/core'
import { createPgKeyStore } from '@keyward/postgres/pg'
import { createWebhookDispatcher, postWebhook } from '@keyward/webhooks'
import pg from 'pg'
import { machineLine, table } from './harness.mjs'

const knob = (name, fallback) => Number(process.env[`WEBHOOKS_BENCH_${name}`] ?? fallback)

if (process.argv[2] === 'dispatcher') await dispatcherProcess(JSON.parse(process.argv[3]))
else await main()

// A dispatcher in a process of its own: "ready" once running, then a line per attempt ("a" and
// its outcome) and per loop error ("e"). It stops when its parent goes (its stdin ends).
async function dispatcherProcess({ url, schema, options, timeoutMs }) {
  const store = await createPgKeyStore(
    { connectionString: url, poolConfig: { max: 3 } },
    { schema, migrate: false },
  )
  const send =
    timeoutMs === undefined
      ? {}
      : { send: (to, headers, body) => postWebhook(to, headers, body, { allowPrivate: true, timeoutMs }) }
  const dispatcher = createWebhookDispatcher({
    store: store.webhooks,
    allowHttp: true,
    allowPrivate: true,
    ...options,
    ...send,
    onEvent: (event) => {
      if (event.type === 'webhook.attempted') process.stdout.write(`a ${event.outcome}\n`)
      else if (event.type === 'webhook.error')
        process.stdout.write(`e ${String(event.error).split('\n')[0]}\n`)
    },
  })
  let stopping = false
  const stop = async () => {
    if (stopping) return
    stopping = true
    await dispatcher.stop()
    await store.close()
    process.exit(0)
  }
  process.stdin.on('end', stop).resume()
  process.once('SIGTERM', stop)
  process.stdout.write('ready\n')
}

async function main() {
  const url = process.env.KEYWARD_PG_URL
  if (!url) {
    console.log('Skipped: set KEYWARD_PG_URL to measure webhooks on PostgreSQL.')
    return
  }
  const EVENTS = 2 * Math.ceil(knob('EVENTS', 10_000) / 2)
  const DISPATCHERS = knob('DISPATCHERS', 4)
  const TIMEOUT_MS = knob('TIMEOUT_MS', 1_000)
  const WRITERS = knob('WRITERS', 8)
  const DEADLINE_MS = knob('DEADLINE_S', 300) * 1000
  const LATENCY_EVENTS = 2 * Math.ceil(knob('LATENCY_EVENTS', 1_000) / 2)
  const RATE = knob('RATE', 50)
  const KILLS = knob('KILLS', 2)
  const faultOptions = {
    batch: knob('BATCH', 50),
    baseDelayMs: knob('BASE_DELAY_MS', 50),
    maxDelayMs: knob('MAX_DELAY_MS', 1_000),
    leaseMs: knob('LEASE_MS', 5_000),
    pollMs: 100,
  }
  const schema = `kw_bench_webhooks_${process.pid}`
  const load = [loadavg()]
  const started = performance.now()

  // Undone in reverse order, once: at the end, on failure, or on SIGINT/SIGTERM.
  const cleanup = []
  let cleaning
  const runCleanup = () => {
    cleaning ??= (async () => {
      for (const step of cleanup.splice(0).reverse()) {
        try {
          await step()
        } catch (error) {
          console.error(`cleanup: ${error.message}`)
        }
      }
    })()
    return cleaning
  }
  let interrupted = false
  for (const signal of ['SIGINT', 'SIGTERM']) {
    process.once(signal, async () => {
      interrupted = true
      await runCleanup()
      process.exit(1)
    })
  }

  const admin = new pg.Client({ connectionString: url })
  await admin.connect()
  cleanup.push(async () => {
    await admin.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`)
    await admin.end()
  })
  try {
    const store = await createPgKeyStore({ connectionString: url, poolConfig: { max: WRITERS } }, { schema })
    cleanup.push(() => store.close())
    const receiver = await startReceiver()
    cleanup.push(() => receiver.close())
    const fleet = dispatcherFleet(url, schema)
    cleanup.push(() => fleet.killAll())

    const statements = await countStatements(url, schema, receiver.url('/count'))
    const faults = await faultsRun({
      store,
      receiver,
      fleet,
      events: EVENTS,
      dispatchers: DISPATCHERS,
      writers: WRITERS,
      deadlineMs: DEADLINE_MS,
      options: faultOptions,
      timeoutMs: TIMEOUT_MS,
      kills: KILLS,
      admin,
      schema,
    })
    const latency = await latencyRun({
      store,
      receiver,
      fleet,
      events: LATENCY_EVENTS,
      rate: RATE,
      dispatchers: DISPATCHERS,
    })
    load.push(loadavg())

    const seconds = (ms) => `${(ms / 1000).toFixed(1)} s`
    const perProcess = (count) => ((count * 1000) / faults.totalMs / DISPATCHERS).toFixed(1)
    console.log(
      `Faults: ${EVENTS} events, ${DISPATCHERS} dispatcher processes (batch ${faultOptions.batch}, ` +
        `timeout ${TIMEOUT_MS} ms, baseDelayMs ${faultOptions.baseDelayMs}, maxDelayMs ${faultOptions.maxDelayMs}, ` +
        `leaseMs ${faultOptions.leaseMs}, pollMs ${faultOptions.pollMs}), ${WRITERS} writers; the receiver ` +
        `answered ${faults.answers.ok} x 204, ${faults.answers.error} x 500 and left ${faults.answers.hang} unanswered; ` +
        `SIGKILL at ${faults.kills.map((k) => `${k.delivered} delivered (${k.killed} killed)`).join(' and ') || 'no point'}; ` +
        `writes took ${seconds(faults.writeMs)}; the dispatchers counted ${faults.logged} attempts and ${faults.errors} loop errors.`,
    )
    console.log(
      `Latency: ${LATENCY_EVENTS} events at ${RATE} writes/s, ${DISPATCHERS} dispatchers with the package's defaults; ` +
        `max ${latency.max.toFixed(0)} ms.`,
    )
    const list = (texts) => texts.map((text, i) => `${i + 1}. ${text}`).join(' ')
    console.log(
      `Statements of one revocation without webhooks (a key of no developer: ${statements.withoutEvents} event written): ` +
        `${list(statements.without)}\nWith webhooks (a developer's key, an endpoint: ${statements.withEvents} event written): ` +
        `${list(statements.with)}\nThe event is inserted by statement ${statements.insert}.\n`,
    )
    table(
      ['figure', 'measured', 'target'],
      [
        ['events delivered (2xx at least once)', `${faults.delivered} of ${EVENTS}`, 'all'],
        ['events delivered more than once (2xx twice or more)', String(faults.duplicates), 'reported'],
        ['total time, first write to last first delivery', seconds(faults.totalMs), '-'],
        ['attempts per second per process', perProcess(faults.attempts), '-'],
        ['deliveries (2xx) per second per process', perProcess(faults.answers.ok), '-'],
        ['commit to first delivery, p50', `${latency.p50.toFixed(0)} ms`, '1 s'],
        ['commit to first delivery, p99', `${latency.p99.toFixed(0)} ms`, '5 s'],
        [
          'statements of a revocation, without / with webhooks',
          `${statements.withoutCount} / ${statements.withCount}` +
            (statements.sameTransaction
              ? ', event in the same transaction'
              : ', event NOT in the transaction'),
          'at most one more, same transaction',
        ],
      ],
    )
    const fmt = (l) => l.map((v) => v.toFixed(2)).join(' ')
    console.log(
      `\n${machineLine()} PostgreSQL ${(await admin.query('SHOW server_version')).rows[0].server_version}; ` +
        `load average ${fmt(load[0])} at the start, ${fmt(load[1])} at the end; ` +
        `${seconds(performance.now() - started)} in all.`,
    )
    const met =
      faults.delivered === EVENTS &&
      latency.p50 <= 1000 &&
      latency.p99 <= 5000 &&
      statements.withCount - statements.withoutCount <= 1 &&
      statements.sameTransaction
    console.log(met ? 'Targets met.' : 'Targets NOT met.')
    if (faults.delivered !== EVENTS) process.exitCode = 1
  } catch (error) {
    // Interrupted, the writes fail as the store closes: that is no news.
    if (!interrupted) console.error(error)
    process.exitCode = 1
  } finally {
    await runCleanup()
  }
}

// The receiver: POSTs on 127.0.0.1, answered per `behaviour` ('faulty': 500 to 30%, none to 10%,
// 204 to the rest; 'healthy': 204). Per webhook-id: how many 2xx, when the first, which write.
async function startReceiver() {
  const events = new Map()
  const answers = { ok: 0, error: 0, hang: 0 }
  let behaviour = 'healthy'
  const server = createServer((request, response) => {
    const chunks = []
    request.on('data', (chunk) => chunks.push(chunk))
    request.on('end', () => {
      const draw = behaviour === 'faulty' ? Math.random() : 1
      if (draw < 0.1) {
        answers.hang++
        return
      }
      if (draw < 0.4) {
        answers.error++
        response.writeHead(500).end()
        return
      }
      answers.ok++
      response.writeHead(204).end()
      const id = request.headers['webhook-id']
      const seen = events.get(id)
      if (seen) {
        seen.ok++
        return
      }
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8'))
      events.set(id, {
        ok: 1,
        at: performance.now(),
        path: request.url,
        write: `${body.type} ${body.data.key_id}`,
      })
    })
  })
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address()
  return {
    url: (path) => `http://127.0.0.1:${port}${path}`,
    events,
    answers,
    /** Starts a part: the behaviour, counts from zero. */
    reset(next) {
      behaviour = next
      events.clear()
      Object.assign(answers, { ok: 0, error: 0, hang: 0 })
    },
    /** The events received at `path` answered 2xx, by write. */
    deliveredAt(path) {
      const byWrite = new Map()
      for (const [id, event] of events) if (event.path === path) byWrite.set(event.write, { id, ...event })
      return byWrite
    },
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      }),
  }
}

// Dispatcher processes, each in a slot: started, killed with SIGKILL, stopped; attempts and loop
// errors counted over all of them.
function dispatcherFleet(url, schema) {
  const file = fileURLToPath(import.meta.url)
  const live = new Set()
  const counts = { attempts: 0, errors: 0, firstError: null }
  const start = (options, timeoutMs) =>
    new Promise((resolve, reject) => {
      const child = spawn(
        process.execPath,
        [file, 'dispatcher', JSON.stringify({ url, schema, options, timeoutMs })],
        { stdio: ['pipe', 'pipe', 'inherit'] },
      )
      live.add(child)
      const exited = new Promise((done) => child.once('exit', done))
      child.exited = exited
      exited.then(() => live.delete(child))
      child.once('exit', (code) => reject(new Error(`a dispatcher exited with ${code} before it was ready`)))
      createInterface({ input: child.stdout }).on('line', (line) => {
        if (line === 'ready') resolve(child)
        else if (line.startsWith('a ')) counts.attempts++
        else if (line.startsWith('e ')) {
          counts.errors++
          counts.firstError ??= line.slice(2)
        }
      })
    })
  const kill = async (child) => {
    child.kill('SIGKILL')
    await child.exited
  }
  return {
    counts,
    startMany: (n, options, timeoutMs) =>
      Promise.all(Array.from({ length: n }, () => start(options, timeoutMs))),
    kill,
    async stop(children) {
      for (const child of children) child.kill('SIGTERM')
      await Promise.all(children.map((child) => child.exited))
    },
    killAll: () => Promise.all([...live].map(kill)),
  }
}

async function faultsRun({
  store,
  receiver,
  fleet,
  events,
  dispatchers,
  writers,
  deadlineMs,
  options,
  timeoutMs,
  kills,
  admin,
  schema,
}) {
  const path = '/faults'
  await new WebhookEndpoints(store.webhooks, { allowHttp: true }).create('dev-faults', {
    url: receiver.url(path),
  })
  const keyward = createKeyward({ store, projectOwner: () => 'dev-faults' })
  receiver.reset('faulty')
  const attemptsBefore = fleet.counts.attempts
  const errorsBefore = fleet.counts.errors
  let children = await fleet.startMany(dispatchers, options, timeoutMs)

  const started = performance.now()
  let writesDone = false
  let writeFailed = false
  let writeMs = 0
  // Writers: each issues a key and revokes it, until `events` writes are made.
  let next = 0
  const writing = Promise.all(
    Array.from({ length: writers }, async () => {
      while (next < events / 2) {
        next++
        const { record } = await keyward.issueProjectKey('p-faults')
        await keyward.deactivateKey(record.id)
      }
    }),
  ).then(() => {
    writesDone = true
    writeMs = performance.now() - started
  })
  writing.catch(() => {
    writeFailed = true
  })

  // Two kills: half of the dispatchers at a third of the events delivered, all at two thirds.
  const killed = []
  const plan = [
    { at: events / 3, count: Math.max(1, Math.floor(dispatchers / 2)) },
    { at: (2 * events) / 3, count: dispatchers },
  ].slice(0, kills)
  const delivered = () => {
    let n = 0
    for (const event of receiver.events.values()) if (event.path === path) n++
    return n
  }
  for (;;) {
    const done = delivered()
    if ((writesDone && done >= events) || writeFailed) break
    if (performance.now() - started > deadlineMs) {
      console.error(`Faults: ${done} of ${events} events delivered after ${deadlineMs / 1000} s; giving up.`)
      break
    }
    if (plan.length > 0 && done >= plan[0].at) {
      const { count } = plan.shift()
      const victims = children.slice(0, count)
      await Promise.all(victims.map(fleet.kill))
      killed.push({ delivered: done, killed: count })
      children = [...children.slice(count), ...(await fleet.startMany(count, options, timeoutMs))]
    }
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
  await writing
  const byWrite = receiver.deliveredAt(path)
  let last = started
  for (const event of byWrite.values()) last = Math.max(last, event.at)
  // Every event in the outbox, checked against what arrived.
  const { rows } = await admin.query(
    `SELECT id FROM "${schema}".webhook_events WHERE developer_id = 'dev-faults'`,
  )
  const missing = rows.filter((row) => !receiver.events.has(row.id)).length
  if (rows.length !== events || missing > 0) {
    console.error(`Faults: ${rows.length} events in the outbox, ${missing} of them never delivered.`)
  }
  let duplicates = 0
  for (const event of byWrite.values()) if (event.ok > 1) duplicates++
  await fleet.stop(children)
  return {
    delivered: rows.length === events ? events - missing : Math.min(byWrite.size, rows.length - missing),
    duplicates,
    totalMs: last - started,
    writeMs,
    attempts: receiver.answers.ok + receiver.answers.error + receiver.answers.hang,
    answers: { ...receiver.answers },
    kills: killed,
    logged: fleet.counts.attempts - attemptsBefore,
    errors: fleet.counts.errors - errorsBefore,
  }
}

async function latencyRun({ store, receiver, fleet, events, rate, dispatchers }) {
  const path = '/latency'
  await new WebhookEndpoints(store.webhooks, { allowHttp: true }).create('dev-latency', {
    url: receiver.url(path),
  })
  const keyward = createKeyward({ store, projectOwner: () => 'dev-latency' })
  receiver.reset('healthy')
  const children = await fleet.startMany(dispatchers, {})
  const commits = new Map()
  const started = performance.now()
  let key = null
  for (let i = 0; i < events; i++) {
    const wait = started + (i * 1000) / rate - performance.now()
    if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait))
    if (i % 2 === 0) {
      key = (await keyward.issueProjectKey('p-latency')).record
      commits.set(`key.created ${key.id}`, performance.now())
    } else {
      await keyward.deactivateKey(key.id)
      commits.set(`key.revoked ${key.id}`, performance.now())
    }
  }
  const deadline = performance.now() + 60_000
  while (receiver.deliveredAt(path).size < events && performance.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
  await fleet.stop(children)
  const byWrite = receiver.deliveredAt(path)
  const latencies = [...commits].map(
    ([write, at]) => (byWrite.get(write)?.at ?? Number.POSITIVE_INFINITY) - at,
  )
  latencies.sort((a, b) => a - b)
  const pick = (q) => latencies[Math.min(latencies.length - 1, Math.ceil(q * latencies.length) - 1)]
  return { p50: pick(0.5), p99: pick(0.99), max: latencies.at(-1) }
}

// The statements of one revocation, as the pg client sends them (BEGIN and COMMIT included).
async function countStatements(url, schema, endpointUrl) {
  const pool = new pg.Pool({ connectionString: url, max: 2 })
  const store = await createPgKeyStore({ pool }, { schema, migrate: false })
  let log = null
  const { query } = pg.Client.prototype
  pg.Client.prototype.query = function (config, ...rest) {
    const text = typeof config === 'string' ? config : config?.text
    log?.push(String(text))
    return query.call(this, config, ...rest)
  }
  try {
    await new WebhookEndpoints(store.webhooks, { allowHttp: true }).create('dev-count', { url: endpointUrl })
    const withEvents = createKeyward({ store, projectOwner: () => 'dev-count' })
    const withoutEvents = createKeyward({ store })
    const outbox = async () =>
      Number((await pool.query(`SELECT count(*) AS n FROM "${schema}".webhook_events`)).rows[0].n)
    const revocation = async (keyward) => {
      const { record } = await keyward.issueProjectKey('p-count')
      const before = await outbox()
      log = []
      await keyward.deactivateKey(record.id)
      const sent = log
      log = null
      return { sent, events: (await outbox()) - before }
    }
    // The first revocation of each prepares its statements; the second is counted.
    const counted = {}
    for (const [name, keyward] of [
      ['without', withoutEvents],
      ['with', withEvents],
    ]) {
      await revocation(keyward)
      counted[name] = await revocation(keyward)
    }
    const { sent } = counted.with
    const find = (test) => sent.findIndex(test)
    const begin = find((text) => /^\s*BEGIN/i.test(text))
    const commit = find((text) => /^\s*COMMIT/i.test(text))
    const insert = find((text) => /INSERT INTO "[^"]+"\.webhook_events/.test(text))
    const short = (text) =>
      text
        .replaceAll(`"${schema}".`, '')
        .replace(/\s+/g, ' ')
        .trim()
        .replace(/^(.{40}).+/, '$1...')
    return {
      withoutCount: counted.without.sent.length,
      withCount: sent.length,
      withoutEvents: counted.without.events,
      withEvents: counted.with.events,
      without: counted.without.sent.map(short),
      with: sent.map(short),
      insert: insert + 1,
      sameTransaction: begin >= 0 && begin < insert && insert < commit,
    }
  } finally {
    pg.Client.prototype.query = query
    await store.close()
    await pool.end().catch(() => {})
  }
}
