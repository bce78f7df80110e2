// The reference server on PostgreSQL, end to end: requests per second of an API-key request
// (POST /api/v1/projects/{id}/access-tokens with X-API-Key), the verification cache off (as
// before it existed) and on (the default), in one run, on a database of its own. Each round
// starts the server in one mode and loads it with autocannon; rounds alternate. Needs
// KEYWARD_PG_URL and the built server (pnpm --filter @keyward/example-server build).
import { spawn } from 'node:child_process'
import { existsSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import pg from 'pg'
import { machineLine, table } from './harness.mjs'

const url = process.env.KEYWARD_PG_URL
const MAIN = fileURLToPath(new URL('../examples/server/dist/main.js', import.meta.url))
const ROUNDS = Number(process.env.SERVER_BENCH_ROUNDS ?? 3)
const SECONDS = Number(process.env.SERVER_BENCH_SECONDS ?? 5)

if (!url || !existsSync(MAIN)) {
  console.log(
    url
      ? 'Skipped: build the reference server first (pnpm --filter @keyward/example-server build).'
      : 'Skipped: set KEYWARD_PG_URL to a PostgreSQL database.',
  )
  process.exit(0)
}

/** Starts the server; resolves with its address and what it printed, once it listens. */
function startServer(env) {
  const child = spawn(process.execPath, [MAIN], {
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

function stopServer({ child }) {
  return new Promise((resolve) => {
    child.removeAllListeners('exit')
    child.on('exit', resolve)
    child.kill('SIGTERM')
  })
}

const database = `kw_bench_server_${process.pid}`
const admin = new pg.Client({ connectionString: url })
await admin.connect()
await admin.query(`CREATE DATABASE ${database}`)
const databaseUrl = new URL(url)
databaseUrl.pathname = `/${database}`

const { default: autocannon } = await import('autocannon')
const samples = { off: [], on: [] }
try {
  const env = (cache) => ({ KEYWARD_PG_URL: databaseUrl.href, KEYWARD_CACHE: cache })
  // First start: the server registers a developer and prints the key; make a project with it.
  const first = await startServer(env('off'))
  const developerKey = /Developer key {2}(ak_[A-Za-z0-9_-]{32})/.exec(first.out)?.[1]
  const created = await fetch(`${first.base}/api/v1/projects`, {
    method: 'POST',
    headers: { 'x-developer-key': developerKey, 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'bench' }),
  }).then((response) => response.json())
  await stopServer(first)
  const projectId = created.project.id
  const apiKey = created.api_key.key

  for (let round = 0; round < ROUNDS * 2; round++) {
    const mode = (round + Math.floor(round / 2)) % 2 === 0 ? 'off' : 'on' // off on on off off on ...
    const server = await startServer(env(mode))
    const options = {
      url: `${server.base}/api/v1/projects/${projectId}/access-tokens`,
      method: 'POST',
      connections: 10,
      headers: { 'x-api-key': apiKey },
    }
    await autocannon({ ...options, duration: 1 }) // warm up
    const result = await autocannon({ ...options, duration: SECONDS })
    await stopServer(server)
    if (result.non2xx > 0 || result.errors > 0 || result.requests.total === 0) {
      throw new Error(
        `${mode}: ${result.requests.total} answers, ${result.non2xx} non-2xx, ${result.errors} errors`,
      )
    }
    samples[mode].push({ rps: result.requests.average, p99: result.latency.p99 })
  }
} finally {
  await admin.query(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`)
  await admin.end()
}

const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]
const summary = (mode) => ({
  rps: median(samples[mode].map((s) => s.rps)),
  p99: median(samples[mode].map((s) => s.p99)),
  all: samples[mode].map((s) => Math.round(s.rps)).join(', '),
})
const off = summary('off')
const on = summary('on')
table(
  ['verification cache', 'req/s (median)', 'p99 latency (ms)', 'rounds (req/s)', 'vs off'],
  [
    ['off (KEYWARD_CACHE=off, as before)', Math.round(off.rps), off.p99, off.all, '1.00x'],
    ['on (the default)', Math.round(on.rps), on.p99, on.all, `${(on.rps / off.rps).toFixed(2)}x`],
  ],
)
console.log(
  `\n${machineLine()} ${ROUNDS} rounds of ${SECONDS} s per mode, alternating; autocannon, 10 connections,` +
    ' in this process; the server and PostgreSQL on the same machine. Request: POST' +
    ' /api/v1/projects/{id}/access-tokens with X-API-Key (verification, then a signed token).',
)
