// HTTP overhead of Keyward per framework: a plain route, the same route behind Keyward
// (a valid API key, memory store), behind a hand-written floor (read the header, SHA-256,
// one Map lookup, compare the project) and behind the framework's bearer-auth peer.
// The server runs in a child process; server and load generator are pinned to separate
// cores where `taskset` exists. Cases are interleaved over rounds; medians are reported.
// Besides req/s, the server's CPU time per request (from /proc) is reported: on a machine
// shared with other work it is the steadier measure of what each route costs. The load comes
// from wrk (./wrk.mjs), which leaves the server the bottleneck on every route.
//
//   pnpm bench http                    (HTTP_BENCH_SECONDS=2 whole seconds, HTTP_BENCH_ROUNDS=10,
//                                       HTTP_BENCH_FRAMEWORKS=express,fastify,hono,
//                                       HTTP_BENCH_CASES=plain,keyward,cached,floor,peer)
//
// After the table, the gap of each Keyward route to the floor: per round, the floor's ratio to
// plain minus the route's, with the median over rounds and a bootstrap 95% interval of that
// median. Windows of the same route move by a quarter on a small shared machine, more than the
// gap, so many short rounds (HTTP_BENCH_ROUNDS=40 HTTP_BENCH_SECONDS=1) are what resolve it.
import { spawn, spawnSync } from 'node:child_process'
import { hash } from 'node:crypto'
import { readFileSync } from 'node:fs'
import { createInterface } from 'node:readline'
import { fileURLToPath } from 'node:url'
import { ensureWrk, wrk } from './wrk.mjs'

const SELF = fileURLToPath(import.meta.url)
const CASES = ['plain', 'keyward', 'cached', 'floor', 'peer']
const PEERS = { express: null, fastify: '@fastify/bearer-auth', hono: 'hono/bearer-auth' }
const TOKEN = 'bench-token-0123456789abcdefghijklmnopqrstuv'

// ---- server side -------------------------------------------------------------------------

async function serve(framework) {
  const { createKeyward, MemoryKeyStore } = await import('@keyward/core')
  const store = new MemoryKeyStore()
  const keyward = createKeyward({ store, projectOwner: () => 'dev-1' })
  // The same store behind a service with the verification cache (the reference server's default).
  const cachedKeyward = createKeyward({ store, projectOwner: () => 'dev-1', cache: {} })
  const { key } = await keyward.issueProjectKey('p1')
  // The floor: what any API-key check must do at the least.
  const floorKeys = new Map([[hash('sha256', key, 'hex'), { projectId: 'p1', active: true }]])
  const floorAllows = (value, projectId) => {
    if (typeof value !== 'string') return false
    const record = floorKeys.get(hash('sha256', value, 'hex'))
    return record?.active === true && record.projectId === projectId
  }
  const body = { ok: true }
  const ready = (port) => process.stdout.write(`${JSON.stringify({ port, key })}\n`)

  if (framework === 'express') {
    const { default: express } = await import('express')
    const { requireProject } = await import('@keyward/express')
    const app = express()
    const handler = (_req, res) => res.json(body)
    app.get('/plain/:project_id', handler)
    app.get('/keyward/:project_id', requireProject(keyward), handler)
    app.get('/cached/:project_id', requireProject(cachedKeyward), handler)
    app.get(
      '/floor/:project_id',
      (req, res, next) =>
        floorAllows(req.headers['x-api-key'], req.params.project_id) ? next() : res.sendStatus(401),
      handler,
    )
    const server = app.listen(0, '127.0.0.1', () => ready(server.address().port))
  } else if (framework === 'fastify') {
    const { default: Fastify } = await import('fastify')
    const { default: bearerAuth } = await import('@fastify/bearer-auth')
    const { keywardPlugin, requireProject } = await import('@keyward/fastify')
    const app = Fastify()
    await app.register(keywardPlugin, { keyward, keyRoutes: false })
    const handler = async () => body
    app.get('/plain/:project_id', handler)
    app.get('/keyward/:project_id', { onRequest: requireProject(keyward) }, handler)
    app.get('/cached/:project_id', { onRequest: requireProject(cachedKeyward) }, handler)
    app.get(
      '/floor/:project_id',
      {
        onRequest: async (request, reply) => {
          if (!floorAllows(request.headers['x-api-key'], request.params.project_id))
            return reply.code(401).send()
        },
      },
      handler,
    )
    await app.register(async (peer) => {
      await peer.register(bearerAuth, { keys: new Set([TOKEN]) })
      peer.get('/peer/:project_id', handler)
    })
    const address = await app.listen({ port: 0, host: '127.0.0.1' })
    ready(Number(new URL(address).port))
  } else {
    const { Hono } = await import('hono')
    const { bearerAuth } = await import('hono/bearer-auth')
    const { serve: serveNode } = await import('@hono/node-server')
    const { requireProject } = await import('@keyward/hono')
    const app = new Hono()
    const handler = (c) => c.json(body)
    app.get('/plain/:project_id', handler)
    app.get('/keyward/:project_id', requireProject(keyward), handler)
    app.get('/cached/:project_id', requireProject(cachedKeyward), handler)
    app.get(
      '/floor/:project_id',
      async (c, next) =>
        floorAllows(c.req.header('x-api-key'), c.req.param('project_id')) ? next() : c.body(null, 401),
      handler,
    )
    app.get('/peer/:project_id', bearerAuth({ token: TOKEN }), handler)
    serveNode({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' }, (info) => ready(info.port))
  }
}

// ---- load side ---------------------------------------------------------------------------

const hasTaskset = spawnSync('taskset', ['--version']).status === 0

function startServer(framework) {
  const args = [SELF, '--serve', framework]
  const child = hasTaskset
    ? spawn('taskset', ['-c', '0', process.execPath, ...args], { stdio: ['ignore', 'pipe', 'inherit'] })
    : spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'inherit'] })
  return new Promise((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`${framework} server exited with ${code}`)))
    createInterface({ input: child.stdout }).once('line', (line) => resolve({ child, ...JSON.parse(line) }))
  })
}

const CLOCK_TICKS = Number(spawnSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).stdout) || 100

/** CPU seconds (user + system) a process has used, or NaN where /proc is not available. */
function cpuSeconds(pid) {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ')
    return (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS
  } catch {
    return Number.NaN
  }
}

async function load(server, route, seconds) {
  const { port, key } = server
  const cpuBefore = cpuSeconds(server.child.pid)
  const headers = route === 'peer' ? { authorization: `Bearer ${TOKEN}` } : { 'x-api-key': key }
  const result = await wrk(
    { url: `http://127.0.0.1:${port}/${route}/p1`, connections: 10, seconds, headers },
    1,
  )
  if (result.non2xx > 0 || result.errors > 0 || result.requests === 0) {
    throw new Error(`${route}: ${result.requests} answers, ${result.non2xx} non-2xx, ${result.errors} errors`)
  }
  const cpu = cpuSeconds(server.child.pid) - cpuBefore
  return { rps: result.requests / result.seconds, cpuPerRequest: (cpu / result.requests) * 1e6 }
}

const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b)
  const mid = sorted.length >> 1
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2
}

// A fixed seed, so that the same samples always give the same interval.
function seeded(seed) {
  let state = seed >>> 0
  return () => {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0
    return state / 2 ** 32
  }
}

/** The median of the per-round differences `floor[i] - route[i]`, and a bootstrap 95% interval of it. */
function gapOf(floor, route) {
  const differences = floor.map((f, i) => f - route[i])
  const random = seeded(20261124)
  const medians = []
  for (let draw = 0; draw < 2000; draw++) {
    medians.push(median(differences.map(() => differences[Math.floor(random() * differences.length)])))
  }
  medians.sort((a, b) => a - b)
  return { median: median(differences), low: medians[49], high: medians[1950] }
}

async function main() {
  ensureWrk()
  const seconds = Math.max(1, Math.round(Number(process.env.HTTP_BENCH_SECONDS ?? 2)))
  const rounds = Number(process.env.HTTP_BENCH_ROUNDS ?? 10)
  if (hasTaskset) spawnSync('taskset', ['-p', '-c', '1', String(process.pid)], { stdio: 'ignore' })
  const rows = []
  const frameworks = (process.env.HTTP_BENCH_FRAMEWORKS ?? 'express,fastify,hono').split(',')
  const chosen = process.env.HTTP_BENCH_CASES ? process.env.HTTP_BENCH_CASES.split(',') : CASES
  for (const c of chosen) if (!CASES.includes(c)) throw new Error(`HTTP_BENCH_CASES: no case ${c} (${CASES})`)
  if (!chosen.includes('plain'))
    throw new Error('HTTP_BENCH_CASES must include plain: ratios are taken to it')
  const gaps = []
  for (const framework of frameworks) {
    const cases = chosen.filter((c) => c !== 'peer' || PEERS[framework])
    const server = await startServer(framework)
    try {
      for (const route of cases) await load(server, route, 1) // warm-up
      const samples = Object.fromEntries(cases.map((c) => [c, []]))
      for (let round = 0; round < rounds; round++) {
        // Rotate the order each round, so no case always runs first or last.
        const order = cases.map((_, i) => cases[(i + round) % cases.length])
        for (const route of order) samples[route].push(await load(server, route, seconds))
      }
      // Ratios are taken round by round (each case against the plain route of its own round),
      // which cancels most of the drift of a shared machine; the median and the range are shown.
      const perRound = (route, field, invert) =>
        samples[route].map((sample, i) =>
          invert ? samples.plain[i][field] / sample[field] : sample[field] / samples.plain[i][field],
        )
      if (cases.includes('floor')) {
        for (const route of cases.filter((c) => c === 'keyward' || c === 'cached')) {
          const floor = perRound('floor', 'rps', false)
          const floorCpu = perRound('floor', 'cpuPerRequest', true)
          const cpu = perRound(route, 'cpuPerRequest', true)
          gaps.push({
            framework,
            route,
            rps: gapOf(floor, perRound(route, 'rps', false)),
            cpu: gapOf(floorCpu, cpu),
          })
        }
      }
      for (const route of cases) {
        const ratios = perRound(route, 'rps', false)
        rows.push({
          framework,
          route,
          rps: median(samples[route].map((s) => s.rps)),
          ratio: median(ratios),
          low: Math.min(...ratios),
          high: Math.max(...ratios),
          cpu: median(samples[route].map((s) => s.cpuPerRequest)),
          cpuRatio: median(perRound(route, 'cpuPerRequest', true)),
        })
      }
    } finally {
      server.child.removeAllListeners('exit')
      server.child.kill()
    }
  }
  const label = (framework, route) =>
    ({
      plain: 'plain route',
      keyward: 'Keyward (valid API key, memory store)',
      cached: 'Keyward with the verification cache (valid API key, memory store)',
      floor: 'hand-written floor (SHA-256 + Map lookup)',
      peer: `peer: ${PEERS[framework]} (bearer token)`,
    })[route]
  console.log(
    `Node ${process.version}, ${seconds} s x ${rounds} interleaved rounds per case, wrk with 10 connections, ` +
      `${hasTaskset ? 'server on CPU 0, wrk on CPU 1' : 'no taskset: processes not pinned'}; medians.\n`,
  )
  console.log(
    '| framework | route | req/s | vs plain | range over rounds | server CPU µs/req | vs plain (CPU) |',
  )
  console.log('| --- | --- | ---: | ---: | :---: | ---: | ---: |')
  for (const r of rows) {
    console.log(
      `| ${r.framework} | ${label(r.framework, r.route)} | ${Math.round(r.rps)} | ${r.ratio.toFixed(3)} | ` +
        `${r.low.toFixed(2)}-${r.high.toFixed(2)} | ${r.cpu.toFixed(1)} | ${r.cpuRatio.toFixed(3)} |`,
    )
  }
  console.log(
    '\n"vs plain" is the median over rounds of req/s divided by the plain route\'s of the same round; ' +
      '"vs plain (CPU)" the plain route\'s server CPU time per request divided by this route\'s.',
  )
  if (gaps.length > 0) {
    console.log(
      `\nGap to the floor: per round, the floor's ratio to plain minus the route's; the median over the ${rounds} rounds, ` +
        'with a bootstrap 95% interval of that median. A gap below 0 means the route beat the floor.\n',
    )
    console.log('| framework | route | gap (req/s) | 95% interval | gap (CPU) | 95% interval |')
    console.log('| --- | --- | ---: | :---: | ---: | :---: |')
    const range = ({ low, high }) => `${low.toFixed(3)} to ${high.toFixed(3)}`
    for (const g of gaps) {
      console.log(
        `| ${g.framework} | ${label(g.framework, g.route)} | ${g.rps.median.toFixed(3)} | ${range(g.rps)} | ` +
          `${g.cpu.median.toFixed(3)} | ${range(g.cpu)} |`,
      )
    }
  }
  console.log(
    '\nExpress has no maintained API-key or bearer-auth middleware to compare with; the floor stands in.',
  )
}

if (process.argv[2] === '--serve') await serve(process.argv[3])
else await main()
