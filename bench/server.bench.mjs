// The reference server on PostgreSQL, end to end: requests per second of an API-key request
// (POST /api/v1/projects/{id}/access-tokens with X-API-Key), the verification cache off, on without
// strict revocation, and the default (on, under strict revocation), in one run, on a database of its
// own; and, on the default server's process, the verification endpoint (POST /api/v1/keys/verify
// with the developer key, the same API key in the body), reported against the access-token route
// loaded right before or after it. With SERVER_BENCH_BASELINE=<git revision>
// the server as it was at that revision is built beside (in a temporary directory, kept for the
// next run) and measured in the same run, on a database of its own: the figure "before" that the
// others are compared with. Each round starts the server in one mode and loads it with
// autocannon; the modes take turns. Needs KEYWARD_PG_URL and the built server
// (pnpm --filter @keyward/example-server build).
import { execFileSync, spawn } from 'node:child_process'
import { existsSync, mkdirSync, readFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import pg from 'pg'
import { machineLine, table } from './harness.mjs'

const url = process.env.KEYWARD_PG_URL
const MAIN = fileURLToPath(new URL('../examples/server/dist/main.js', import.meta.url))
const ROUNDS = Number(process.env.SERVER_BENCH_ROUNDS ?? 3)
const SECONDS = Number(process.env.SERVER_BENCH_SECONDS ?? 5)
const BASELINE = process.env.SERVER_BENCH_BASELINE
const REPOSITORY = fileURLToPath(new URL('..', import.meta.url))

if (!url || !existsSync(MAIN)) {
  console.log(
    url
      ? 'Skipped: build the reference server first (pnpm --filter @keyward/example-server build).'
      : 'Skipped: set KEYWARD_PG_URL to a PostgreSQL database.',
  )
  process.exit(0)
}

/**
 * The reference server as it was at `revision`: its files exported from git into a temporary
 * directory, installed and built there once (a later run finds it built).
 */
function buildBaseline(revision) {
  const commit = execFileSync('git', ['rev-parse', '--short', `${revision}^{commit}`], {
    cwd: REPOSITORY,
    encoding: 'utf8',
  }).trim()
  const dir = join(tmpdir(), `keyward-bench-server-${commit}`)
  const main = join(dir, 'examples/server/dist/main.js')
  if (!existsSync(main)) {
    console.error(`Building the reference server as of ${commit} in ${dir} ...`)
    mkdirSync(dir, { recursive: true })
    execFileSync('sh', ['-c', `git archive ${commit} | tar -x -C "${dir}"`], { cwd: REPOSITORY })
    const run = (args) => execFileSync('pnpm', args, { cwd: dir, stdio: ['ignore', 'ignore', 'inherit'] })
    run(['install', '--frozen-lockfile', '--prefer-offline'])
    run(['--filter', '@keyward/example-server...', 'build'])
  }
  return { commit, main }
}

/** Starts the server; resolves with its address and what it printed, once it listens. */
function startServer(env, main = MAIN) {
  const child = spawn(process.execPath, [main], {
    env: { ...process.env, HOST: '127.0.0.1', PORT: '0', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let out = ''
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`the server did not start:\n${out}`)), 30_000)
    child.on('exit', (code) => reject(new Error(`the server exited (${code}):\n${out}`)))
    const read = (chunk) => {
      out += chunk
      const listening = /Listening on (http:\/\/\S+)/.exec(out)
      if (listening) {
        clearTimeout(timer)
        resolve({ child, base: listening[1], out })
      }
    }
    child.stdout.on('data', read)
    child.stderr.on('data', read)
  })
}

/**
 * The CPU time a process has used, user and system, in seconds (Linux's /proc; NaN elsewhere): what
 * a request costs the server, which the other load of a shared machine disturbs much less than its
 * throughput.
 */
function cpuSeconds(pid) {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ')
    return (Number(fields[11]) + Number(fields[12])) / 100 // utime, stime in clock ticks of 1/100 s
  } catch {
    return Number.NaN
  }
}

function stopServer({ child }) {
  return new Promise((resolve) => {
    child.removeAllListeners('exit')
    child.on('exit', resolve)
    child.kill('SIGTERM')
  })
}

const baseline = BASELINE ? buildBaseline(BASELINE) : undefined
const admin = new pg.Client({ connectionString: url })
await admin.connect()
const databases = []
/** A database of its own for one server build; dropped at the end. */
async function databaseFor(name) {
  const database = `kw_bench_server_${name}_${process.pid}`
  await admin.query(`CREATE DATABASE ${database}`)
  databases.push(database)
  const databaseUrl = new URL(url)
  databaseUrl.pathname = `/${database}`
  return databaseUrl.href
}

/** First start on an empty database: the server registers a developer and prints the key; make a project with it. */
async function projectOn(env, main) {
  const first = await startServer(env, main)
  const developerKey = /Developer key {2}(ak_[A-Za-z0-9_-]{32})/.exec(first.out)?.[1]
  const created = await fetch(`${first.base}/api/v1/projects`, {
    method: 'POST',
    headers: { 'x-developer-key': developerKey, 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'bench' }),
  }).then((response) => response.json())
  await stopServer(first)
  return { projectId: created.project.id, apiKey: created.api_key.key, developerKey }
}

/** The request a mode loads the server with: the access-token route, or the verification endpoint. */
function requestOf(mode, setup, base) {
  if (mode === 'verify') {
    return {
      url: `${base}/api/v1/keys/verify`,
      method: 'POST',
      headers: { 'x-developer-key': setup.developerKey, 'content-type': 'application/json' },
      body: JSON.stringify({ key: setup.apiKey, project_id: setup.projectId }),
    }
  }
  return {
    url: `${base}/api/v1/projects/${setup.projectId}/access-tokens`,
    method: 'POST',
    headers: { 'x-api-key': setup.apiKey },
  }
}

const { default: autocannon } = await import('autocannon')
const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]
const modes = [...(baseline ? ['before'] : []), 'off', 'window', 'default']
const samples = Object.fromEntries([...modes, 'verify'].map((mode) => [mode, []]))
try {
  const currentUrl = await databaseFor('current')
  const current = await projectOn({ KEYWARD_PG_URL: currentUrl, KEYWARD_CACHE: 'off' })
  const setups = {
    off: { env: { KEYWARD_PG_URL: currentUrl, KEYWARD_CACHE: 'off' }, ...current },
    window: { env: { KEYWARD_PG_URL: currentUrl, KEYWARD_REVOCATION_BOUND_MS: 'off' }, ...current },
    // Nothing but the database: the cache, under strict revocation (bound 250 ms).
    default: { env: { KEYWARD_PG_URL: currentUrl }, ...current },
  }
  if (baseline) {
    const env = { KEYWARD_PG_URL: await databaseFor('before') }
    setups.before = { env, main: baseline.main, ...(await projectOn(env, baseline.main)) }
  }

  /**
   * Loads the server with each of `loaded` (modes) for SECONDS, after a second of warm-up each: in
   * slices of one second taking turns, so that a change in the machine's other load falls on all of
   * them alike. Keeps one sample per mode: requests per second, the median slice's p99 latency, and
   * the server's CPU time per request.
   */
  async function load(loaded, setup, { base, child }) {
    const options = Object.fromEntries(
      loaded.map((mode) => [mode, { ...requestOf(mode, setup, base), connections: 10 }]),
    )
    if (options.verify) {
      // A verification answers 200 whatever the verdict: the key must be found valid.
      const answer = await fetch(options.verify.url, options.verify).then((response) => response.json())
      if (answer.valid !== true) throw new Error(`verify: ${JSON.stringify(answer)}`)
    }
    const totals = Object.fromEntries(loaded.map((mode) => [mode, { requests: 0, cpu: 0, p99: [] }]))
    for (const mode of loaded) await autocannon({ ...options[mode], duration: 1 }) // warm up
    for (let slice = 0; slice < SECONDS; slice++) {
      for (const mode of slice % 2 ? [...loaded].reverse() : loaded) {
        const cpuBefore = cpuSeconds(child.pid)
        const result = await autocannon({ ...options[mode], duration: 1 })
        totals[mode].cpu += cpuSeconds(child.pid) - cpuBefore
        if (result.non2xx > 0 || result.errors > 0 || result.requests.total === 0) {
          throw new Error(
            `${mode}: ${result.requests.total} answers, ${result.non2xx} non-2xx, ${result.errors} errors`,
          )
        }
        totals[mode].requests += result.requests.total
        totals[mode].p99.push(result.latency.p99)
      }
    }
    for (const mode of loaded) {
      const { requests, cpu, p99 } = totals[mode]
      samples[mode].push({ rps: requests / SECONDS, p99: median(p99), cpuUs: (cpu * 1e6) / requests })
    }
  }

  for (let round = 0; round < ROUNDS; round++) {
    // The modes take turns, each round in another order, so no mode always runs first or last.
    const order = modes.map((_, i) => modes[(i + round) % modes.length])
    for (const mode of round % 2 ? order.reverse() : order) {
      const setup = setups[mode]
      const server = await startServer(setup.env, setup.main)
      try {
        // The verification endpoint is loaded on the default server's process too, taking turns with
        // its access tokens: their ratio is of one process at one time.
        await load(
          mode === 'default' ? (round % 2 ? ['verify', mode] : [mode, 'verify']) : [mode],
          setup,
          server,
        )
      } finally {
        await stopServer(server)
      }
    }
  }
} finally {
  for (const database of databases) await admin.query(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`)
  await admin.end()
}

const summary = (mode) => ({
  rps: median(samples[mode].map((s) => s.rps)),
  p99: median(samples[mode].map((s) => s.p99)),
  all: samples[mode].map((s) => Math.round(s.rps)).join(', '),
  cpuUs: median(samples[mode].map((s) => s.cpuUs)),
})
const reference = summary(baseline ? 'before' : 'off')
const label = {
  before: `before (the server as of ${baseline?.commit}, built beside)`,
  off: 'cache off (KEYWARD_CACHE=off)',
  window: 'cache on, strict revocation off (KEYWARD_REVOCATION_BOUND_MS=off)',
  default: 'the default: cache on, strict revocation (bound 250 ms)',
  verify: 'the default, POST /api/v1/keys/verify (developer key, the API key in the body)',
}
table(
  [
    'server',
    'req/s (median)',
    'p99 latency (ms)',
    'rounds (req/s)',
    `vs ${baseline ? 'before' : 'off'}`,
    'server CPU per request (µs)',
  ],
  [...modes, 'verify'].map((mode) => {
    const m = summary(mode)
    return [
      label[mode],
      Math.round(m.rps),
      m.p99,
      m.all,
      `${(m.rps / reference.rps).toFixed(2)}x`,
      Math.round(m.cpuUs),
    ]
  }),
)
const ratios = samples.verify.map((sample, i) => sample.rps / samples.default[i].rps)
// The throughput a CPU-bound server would have: the inverse of what each request costs it.
const cpuRatios = samples.verify.map((sample, i) => samples.default[i].cpuUs / sample.cpuUs)
const listed = (values) => values.map((r) => r.toFixed(2)).join(', ')
console.log(
  '\nThe verification endpoint against the access-token route, on the same default server process in' +
    ` each round: ${median(ratios).toFixed(2)}x the requests per second (median; rounds: ${listed(ratios)});` +
    ` by the server's CPU time per request, ${median(cpuRatios).toFixed(2)}x (rounds: ${listed(cpuRatios)}).`,
)
console.log(
  `\n${machineLine()} ${ROUNDS} rounds of ${SECONDS} s per mode, taking turns (the verification endpoint and the access tokens of the default server in slices of 1 s, in turn); autocannon, 10 connections,` +
    ' in this process; the server and PostgreSQL on the same machine. Request: POST' +
    ' /api/v1/projects/{id}/access-tokens with X-API-Key (verification, the project read unless verifications see' +
    ' every revocation at once, then a signed token); and POST /api/v1/keys/verify with X-Developer-Key and' +
    ' {"key", "project_id"} (the developer key verified, the body read, the API key verified and its owner checked).',
)
