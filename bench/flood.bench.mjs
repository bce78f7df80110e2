// A flood of 100,000 unknown keys from one client address while normal traffic with a valid key
// comes from another, in one run: how many store lookups the flood causes, and the valid
// traffic's throughput during the flood against its throughput before and after it.
// The server (Hono on @hono/node-server, memory store, throttle counters in memory) believes
// X-Forwarded-For from one trusted proxy, which gives the two load generators two addresses.
// Server on CPU 0; the valid load (wrk) and the flood (a child) share CPU 1. The valid load runs
// without a break for the whole run and the server counts its answers, read every window.
//
//   pnpm bench flood       (FLOOD_REQUESTS=100000, FLOOD_RATE=2000 requests/s while on, 0 = as fast as
//                          the flood's process can send; FLOOD_LIMIT=100, FLOOD_WINDOW_SECONDS=1.5,
//                          FLOOD_WARMUP_WINDOWS=6, FLOOD_MODES=listener,guard,off: the throttle with
//                          throttleListener, the throttle in the guard only, no throttle)
import { spawn, spawnSync } from 'node:child_process'
import { createInterface } from 'node:readline'
import { fileURLToPath } from 'node:url'
import { ensureWrk, startWrk } from './wrk.mjs'

const SELF = fileURLToPath(import.meta.url)
const FLOOD_REQUESTS = Number(process.env.FLOOD_REQUESTS || 100_000)
const RATE = Number(process.env.FLOOD_RATE ?? 2000)
const LIMIT = Number(process.env.FLOOD_LIMIT || 100)
const WINDOW_SECONDS = Number(process.env.FLOOD_WINDOW_SECONDS || 1.5)
const WARMUP_WINDOWS = Number(process.env.FLOOD_WARMUP_WINDOWS || 6)
const ATTACKER = '203.0.113.66'
const CLIENT = '198.51.100.10'

// ---- server side -------------------------------------------------------------------------

async function serve(failedAuthLimit, early) {
  const { createKeyward, MemoryKeyStore, throttleListener } = await import('@keyward/core')
  const { createServer } = await import('node:http')
  const { requireProject } = await import('@keyward/hono')
  const { Hono } = await import('hono')
  const { serve: serveNode } = await import('@hono/node-server')
  const { RateLimiterMemory } = await import('rate-limiter-flexible')
  let unknownLookups = 0
  let validAnswers = 0
  class CountingStore extends MemoryKeyStore {
    async findKeyByHash(hash) {
      const record = await super.findKeyByHash(hash)
      if (record === null) unknownLookups++
      return record
    }
  }
  const keyward = createKeyward({
    store: new CountingStore(),
    projectOwner: () => 'dev-1',
    protection: {
      limiter: (settings) => new RateLimiterMemory(settings),
      failedAuthLimit,
      failedAuthWindowSeconds: 3600,
      trustedProxy: { header: 'x-forwarded-for', hops: 1 },
    },
  })
  const { key } = await keyward.issueProjectKey('p1')
  const app = new Hono()
  app.get('/items/:project_id', requireProject(keyward), (c) => {
    validAnswers++
    return c.json({ ok: true })
  })
  app.get('/stats', (c) => c.json({ unknownLookups, validAnswers }))
  // As the reference server does: a throttled address's requests are answered before Hono sees them.
  const server = serveNode(
    {
      fetch: app.fetch,
      port: 0,
      hostname: '127.0.0.1',
      ...(early && {
        createServer: (options, listener) => createServer(options, throttleListener(keyward, listener)),
      }),
    },
    (info) => process.stdout.write(`${JSON.stringify({ port: info.port, key })}\n`),
  )
  process.on('SIGTERM', () => server.close(() => process.exit(0)))
}

// ---- flood side (a child process) ----------------------------------------------------------

// The flood is sent over raw keep-alive sockets, requests written back to back and paced by the
// clock, its answers only counted: a sender much cheaper than the server's work on each request,
// so that what the valid traffic loses is what the server spends on the flood, not the CPU the
// flood's own sender takes from the valid load's sender on this machine's second core.
async function flood(port) {
  const { connect } = await import('node:net')
  const CONNECTIONS = 10
  let sent = 0
  let answered = 0
  const statuses = {}
  // Sending only while switched on (a line `on` or `off` on stdin), paced by the time spent on.
  let on = false
  let onSince = 0
  let onBefore = 0
  const onSeconds = () => (onBefore + (on ? performance.now() - onSince : 0)) / 1000
  const commands = createInterface({ input: process.stdin })
  commands.on('line', (line) => {
    if (line === 'on' && !on) {
      on = true
      onSince = performance.now()
    } else if (line === 'off' && on) {
      on = false
      onBefore += performance.now() - onSince
    }
  })
  const requestFor = (n) =>
    `GET /items/p1 HTTP/1.1\r\nhost: 127.0.0.1:${port}\r\nx-forwarded-for: 10.9.9.9, ${ATTACKER}\r\n` +
    `x-api-key: ak_${String(n).padStart(32, 'F')}\r\n\r\n`
  const STATUS = /HTTP\/1\.1 (\d{3}) /g
  await new Promise((resolve, reject) => {
    const sockets = Array.from({ length: CONNECTIONS }, () => {
      const socket = connect(port, '127.0.0.1')
      socket.setNoDelay(true)
      socket.setEncoding('latin1')
      let carry = ''
      socket.on('data', (chunk) => {
        const text = carry + chunk
        let end = 0
        for (const match of text.matchAll(STATUS)) {
          statuses[match[1]] = (statuses[match[1]] ?? 0) + 1
          answered++
          end = match.index + match[0].length
        }
        carry = text.slice(Math.max(end, text.length - 16))
        if (answered >= FLOOD_REQUESTS) {
          for (const s of sockets) s.destroy()
          resolve()
        }
      })
      socket.on('error', reject)
      return socket
    })
    let next = 0
    const tick = () => {
      if (sent >= FLOOD_REQUESTS) return
      // Paced: as many as the rate allows by now (unpaced: 50 per connection and tick).
      const due = !on
        ? sent
        : RATE > 0
          ? Math.min(FLOOD_REQUESTS, Math.floor(onSeconds() * RATE))
          : Math.min(FLOOD_REQUESTS, sent + 50 * CONNECTIONS)
      const batches = Array.from({ length: CONNECTIONS }, () => '')
      while (sent < due && sent - answered < 200 * CONNECTIONS) {
        batches[next] += requestFor(sent++)
        next = (next + 1) % CONNECTIONS
      }
      batches.forEach((batch, i) => {
        if (batch) sockets[i].write(batch)
      })
      setTimeout(tick, 5)
    }
    tick()
  })
  commands.close()
  process.stdout.write(`${JSON.stringify({ statuses, seconds: onSeconds(), errors: 0 })}\n`, () =>
    process.exit(0),
  )
}

// ---- load side ---------------------------------------------------------------------------

const hasTaskset = spawnSync('taskset', ['--version']).status === 0
const pinned = (cpu, args) =>
  hasTaskset
    ? spawn('taskset', ['-c', String(cpu), process.execPath, ...args], {
        stdio: ['pipe', 'pipe', 'inherit'],
      })
    : spawn(process.execPath, args, { stdio: ['pipe', 'pipe', 'inherit'] })

function firstLine(child, what) {
  return new Promise((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`${what} exited with ${code} before answering`)))
    createInterface({ input: child.stdout }).once('line', (line) => resolve(JSON.parse(line)))
  })
}

const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b)
  const mid = sorted.length >> 1
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2
}

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms))

async function run(failedAuthLimit, early) {
  const server = pinned(0, [SELF, '--serve', String(failedAuthLimit), early ? 'early' : 'guard'])
  const { port, key } = await firstLine(server, 'server')
  let load
  try {
    const stats = async () => (await fetch(`http://127.0.0.1:${port}/stats`)).json()
    // The valid traffic: wrk, without a break from here to the end of the run; the server counts
    // what it answers, and each window is read from its counter.
    load = startWrk(
      {
        url: `http://127.0.0.1:${port}/items/p1`,
        connections: 8,
        headers: { 'x-forwarded-for': `10.9.9.9, ${CLIENT}`, 'x-api-key': key },
      },
      1,
    )
    let last = { at: performance.now(), answers: (await stats()).validAnswers }
    const validWindow = async () => {
      await sleep(WINDOW_SECONDS * 1000)
      const now = { at: performance.now(), answers: (await stats()).validAnswers }
      const perSecond = (now.answers - last.answers) / ((now.at - last.at) / 1000)
      last = now
      return perSecond
    }
    // Warm-up: the server's throughput climbs for several seconds (JIT) before it settles.
    for (let i = 0; i < WARMUP_WINDOWS; i++) await validWindow()
    const flooder = pinned(1, [SELF, '--flood', String(port)])
    const floodDone = firstLine(flooder, 'flood')
    let floodOver = false
    floodDone.then(() => {
      floodOver = true
    })
    // Windows without and with the flood, in turn, until the flood has sent all its requests:
    // the server's throughput drifts over a run, so each flooded window is compared with the
    // unflooded windows on either side of it.
    const quiet = [await validWindow()]
    const flooded = []
    while (!floodOver) {
      flooder.stdin.write('on\n')
      const perSecond = await validWindow()
      flooder.stdin.write('off\n')
      if (floodOver) break // the flood ended inside this window: it counts as neither
      flooded.push(perSecond)
      quiet.push(await validWindow())
    }
    const floodResult = await floodDone
    const { unknownLookups } = await stats()
    const report = await load.stop()
    load = undefined
    if (report.non2xx > 0 || report.errors > 0) {
      throw new Error(`valid traffic: ${report.non2xx} non-2xx, ${report.errors} socket errors`)
    }
    const ratios = flooded.map((perSecond, i) => perSecond / ((quiet[i] + quiet[i + 1]) / 2))
    return {
      failedAuthLimit,
      unflooded: median(quiet),
      flooded: median(flooded),
      ratio: median(ratios),
      windows: flooded.length,
      flood: floodResult,
      lookups: unknownLookups,
    }
  } finally {
    await load?.stop().catch(() => {})
    server.kill('SIGTERM')
  }
}

async function main() {
  ensureWrk()
  if (hasTaskset) spawnSync('taskset', ['-p', '-c', '1', String(process.pid)], { stdio: 'ignore' })
  const rows = []
  // The throttle as the reference server runs it (throttleListener in front of Hono, and the
  // guard), the guard alone, and no throttle.
  const modes = {
    listener: [LIMIT, true],
    guard: [LIMIT, false],
    off: [0, false],
  }
  const wanted = (process.env.FLOOD_MODES ?? 'listener,guard,off').split(',')
  for (const [limit, early] of wanted.map((name) => modes[name])) {
    const r = await run(limit, early)
    const fmt = (n) => Math.round(n).toLocaleString('en-US')
    const statuses = Object.entries(r.flood.statuses)
      .map(([status, count]) => `${fmt(count)} x ${status}`)
      .join(', ')
    rows.push(
      `| ${limit ? `${limit} per address, ${early ? 'throttleListener and guard' : 'guard only'}` : 'off'} | ${fmt(FLOOD_REQUESTS)} in ${r.flood.seconds.toFixed(1)} s: ${statuses} | ${fmt(r.lookups)} | ${fmt(r.unflooded)} | ${fmt(r.flooded)} (${r.windows} windows) | ${r.ratio.toFixed(2)}x |`,
    )
  }
  console.log(
    [
      '| throttle | flood (unknown keys, one address) | store lookups caused by the flood | valid req/s unflooded | valid req/s during the flood | ratio (paired) |',
      '| --- | --- | --- | --- | --- | --- |',
      ...rows,
    ].join('\n'),
  )
  console.log(
    `\nNode ${process.version}, ${process.platform}/${process.arch}; ${hasTaskset ? 'server on CPU 0, valid load and flood on CPU 1' : 'no taskset: processes not pinned'}; flood ${RATE > 0 ? `paced at ${RATE} requests/s` : 'unpaced'} over 10 raw keep-alive connections; valid load: wrk, 8 connections, without a break, answers counted by the server in ${WINDOW_SECONDS} s windows after ${WARMUP_WINDOWS} warm-up windows, the flood on in every other window; req/s are medians of the windows, the ratio is the median over flooded windows of each one against the mean of the unflooded windows on either side.`,
  )
}

const [mode, arg, variant] = process.argv.slice(2)
if (mode === '--serve') await serve(Number(arg), variant === 'early')
else if (mode === '--flood') await flood(Number(arg))
else await main()
