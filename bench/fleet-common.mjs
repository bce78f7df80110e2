// What the fleet benches share, whatever the database: the split of the cores, the steady write
// load, the process of N feeds (its side and the bench's), the revocations and the percentiles.
import { execFileSync, fork, spawnSync } from 'node:child_process'
import { availableParallelism, setPriority } from 'node:os'

export const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms))
/** One clock for every process of the bench (same host). */
export const clock = () => performance.timeOrigin + performance.now()

/** The cores of each side (taskset's lists), or undefined when they are not split. */
export const PIN = (() => {
  const cores = availableParallelism()
  if (process.env.FLEET_BENCH_PIN === '0' || cores < 2) return undefined
  if (spawnSync('taskset', ['-V']).status !== 0) return undefined
  const half = Math.floor(cores / 2)
  const range = (first, last) => (first === last ? `${first}` : `${first}-${last}`)
  return { primary: range(0, half - 1), fleet: range(half, cores - 1) }
})()

/** Moves a process and its threads to `cpus`, and its children with `children`. */
export function pin(pid, cpus, { children = false } = {}) {
  execFileSync('taskset', ['-a', '-p', '-c', cpus, String(pid)], { stdio: 'ignore' })
  if (!children) return
  const found = spawnSync('pgrep', ['-P', String(pid)], { encoding: 'utf8' }).stdout.split('\n')
  for (const child of found.filter(Boolean)) pin(Number(child), cpus)
}

/** The p-th percentile of a list, or NaN when it is empty. */
export function pct(values, p) {
  if (values.length === 0) return Number.NaN
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]
}

/** Milliseconds with one decimal, or `-`. */
export const ms = (value) => (Number.isNaN(value) ? '-' : value.toFixed(1))

/** Runs `write()` every `everyMs` for `seconds`, without waiting for the one before; resolves with the latencies. */
export async function writeLoad(write, seconds, everyMs) {
  const latencies = []
  const pending = []
  const end = performance.now() + seconds * 1000
  for (let next = performance.now(); next < end; next += everyMs) {
    const wait = next - performance.now()
    if (wait > 0) await sleep(wait)
    const started = performance.now()
    pending.push(write().then(() => latencies.push(performance.now() - started)))
  }
  await Promise.all(pending)
  return latencies
}

/** One write of the load, on a pool of pg or mysql2: an update of the row of the table `fleet_bench`. */
export function update(pool) {
  return () => pool.query('UPDATE fleet_bench SET n = n + 1 WHERE id = 1')
}

/**
 * Forks `file` with `env` added, on the fleet's cores (and at FLEET_BENCH_NICE); `next(type)`
 * resolves with the child's next message of that type, `exited` once it has ended.
 */
export function forkChild(file, env) {
  const child = fork(file, { env: { ...process.env, ...env }, stdio: 'inherit' })
  if (PIN) pin(child.pid, PIN.fleet)
  if (process.env.FLEET_BENCH_NICE) setPriority(child.pid, Number(process.env.FLEET_BENCH_NICE))
  const messages = []
  const waiters = []
  let ended
  child.on('message', (message) => {
    const waiter = waiters.findIndex((w) => w.type === message.type)
    if (waiter >= 0) waiters.splice(waiter, 1)[0].resolve(message)
    else messages.push(message)
  })
  // 'close', not 'exit': a large last message may still be on its way when the process exits.
  child.once('close', (code, signal) => {
    ended = `the ${file.split('/').pop()} child exited (${signal ?? code})`
    for (const waiter of waiters.splice(0)) waiter.reject(new Error(`${ended} before ${waiter.type}`))
  })
  const next = (type) =>
    new Promise((resolve, reject) => {
      const found = messages.findIndex((m) => m.type === type)
      if (found >= 0) return resolve(messages.splice(found, 1)[0])
      if (ended) return reject(new Error(`${ended} before ${type}`))
      waiters.push({ type, resolve, reject })
    })
  const exited = new Promise((resolve) => child.once('exit', resolve))
  return { child, next, exited }
}

/**
 * The process of the fleet: starts `feeds`, answers `ready`, then measures between `measure` and
 * `stop` (how often they count as fresh, when each heard each revocation, what `counts` grew by
 * and the process's CPU), answers `result` and closes them.
 */
export async function serveFleet(feeds, counts) {
  const n = feeds.length
  // Connected in waves, as a fleet rolls out: 25 at a time.
  for (let i = 0; i < n; i += 25) {
    for (const feed of feeds.slice(i, i + 25)) void feed.start()
    await sleep(50)
  }
  const deadline = performance.now() + 20_000
  while (performance.now() < deadline && feeds.some((feed) => !feed.connected)) await sleep(50)

  // Per feed: when it heard each change, and when it was sampled stale. The refusal times are
  // computed at the end, once the start of every revocation is known (the change may arrive
  // before the message that names it).
  const heard = feeds.map(() => new Map())
  const staleAt = feeds.map(() => [])
  for (const [index, feed] of feeds.entries()) {
    feed.subscribe((event) => {
      if (event.type === 'changed' && !heard[index].has(event.hash)) heard[index].set(event.hash, clock())
    })
  }
  let fresh = 0
  let samples = 0
  let sampling = false
  let before
  const sample = async () => {
    while (sampling) {
      const at = clock()
      for (let i = 0; i < feeds.length; i++) {
        samples++
        // A stale feed bypasses its cache: it refuses every key revoked before now.
        if (feeds[i].connected) fresh++
        else staleAt[i].push(at)
      }
      await sleep(10)
    }
  }
  const revocations = new Map()
  const refusalsOf = () => {
    const refusals = []
    let missing = 0
    for (const [hash, startedAt] of revocations) {
      for (let i = 0; i < feeds.length; i++) {
        const stale = staleAt[i].find((at) => at >= startedAt) ?? Number.POSITIVE_INFINITY
        const refusedAt = Math.min(heard[i].get(hash) ?? Number.POSITIVE_INFINITY, stale)
        if (refusedAt === Number.POSITIVE_INFINITY) missing++
        else refusals.push(refusedAt - startedAt)
      }
    }
    return { refusals, unheard: missing }
  }
  // Where the bench says when a revocation was acknowledged: the feeds that, once the message is
  // here (after the acknowledgement), count as fresh and have not heard the change. Their caches
  // would accept the key: strict revocation says there are none.
  let wrong = 0
  let sampler
  process.on('message', async (message) => {
    if (message.type === 'measure') {
      before = { ...counts, cpu: process.cpuUsage(), at: performance.now() }
      sampling = true
      sampler = sample()
    } else if (message.type === 'revoking') {
      revocations.set(message.hash, message.at)
    } else if (message.type === 'acknowledged') {
      for (let i = 0; i < feeds.length; i++) if (feeds[i].connected && !heard[i].has(message.hash)) wrong++
    } else if (message.type === 'stop') {
      sampling = false
      await sampler
      const { refusals, unheard } = refusalsOf()
      const used = Object.fromEntries(Object.entries(counts).map(([k, v]) => [k, v - before[k]]))
      const cpu = process.cpuUsage(before.cpu)
      used.cpu = (cpu.user + cpu.system) / 10 / (performance.now() - before.at)
      await new Promise((sent) =>
        process.send(
          { type: 'result', fresh: fresh / samples, refusals, unheard, wrong, counts: used },
          sent,
        ),
      )
      for (let i = 0; i < n; i += 50) await Promise.all(feeds.slice(i, i + 50).map((feed) => feed.close()))
      process.disconnect()
    }
  })
  process.send({ type: 'ready' })
}

/**
 * Revokes one of `keys` (records issued by `writer`) every `everyMs` for `seconds`, telling the
 * fleet's process when each revocation started; resolves with how many were made, how many
 * failed, and how long each acknowledged one took.
 */
export async function revokeLoop(writer, keys, child, seconds, everyMs) {
  const end = performance.now() + seconds * 1000
  let failed = 0
  let made = 0
  const took = []
  while (performance.now() < end && keys.length > 0) {
    const record = keys.pop()
    const at = clock()
    child.send({ type: 'revoking', hash: record.hash, at })
    made++
    const call = writer.deactivateKey(record.id).then(
      () => {
        const acknowledged = clock()
        took.push(acknowledged - at)
        child.send({ type: 'acknowledged', hash: record.hash, at: acknowledged })
      },
      () => failed++,
    )
    await Promise.all([call, sleep(everyMs)])
  }
  return { made, failed, took }
}

/** The revocations column: how many, and what went wrong. */
export const revocationsCell = (r) =>
  `${r.made}${r.failed ? `, ${r.failed} unconfirmed` : ''}${r.unheard ? `, ${r.unheard} refusals missing` : ''}`
