// The reference server at its edges, as a process: how long a start with an unusable setting takes
// to be refused; how long a keyed request takes while the throttle's Redis is stopped (SIGSTOP);
// how many of 20 uploads of 200 MB through Node's http client read their 413; and, on PostgreSQL
// (KEYWARD_PG_URL), how many requests fail and how long the exit takes when SIGTERM comes under
// load. Needs the built server (pnpm --filter @keyward/example-server build); the Redis part needs
// redis-server.
import { spawn, spawnSync } from 'node:child_process'
import { once } from 'node:events'
import { mkdtempSync, rmSync } from 'node:fs'
import { Agent, request } from 'node:http'
import { createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import pg from 'pg'
import { machineLine, median, table } from './harness.mjs'

const MAIN = fileURLToPath(new URL('../examples/server/dist/main.js', import.meta.url))
const PG_URL = process.env.KEYWARD_PG_URL
const MB = 1024 * 1024
const cwd = mkdtempSync(join(tmpdir(), 'keyward-bench-edges-'))
process.on('exit', () => rmSync(cwd, { recursive: true, force: true }))
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms))

async function freePort() {
  const server = createServer()
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address()
  await new Promise((resolve) => server.close(resolve))
  return port
}

/** Runs the server until it exits by itself; resolves with its time and last line. */
async function refusal(env) {
  const started = performance.now()
  const child = spawn(process.execPath, [MAIN], {
    cwd,
    env: { PATH: process.env.PATH, PORT: '0', KEYWARD_DATA_DIR: join(cwd, 'refused'), ...env },
    stdio: ['ignore', 'ignore', 'pipe'],
  })
  let stderr = ''
  child.stderr.setEncoding('utf8').on('data', (chunk) => {
    stderr += chunk
  })
  const [code] = await once(child, 'close')
  return { ms: performance.now() - started, code, line: stderr.trim().split('\n').at(-1) }
}

/** Starts the server; resolves once it listens. */
async function start(env) {
  const child = spawn(process.execPath, [MAIN], {
    cwd,
    env: { PATH: process.env.PATH, HOST: '127.0.0.1', PORT: '0', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let stdout = ''
  child.stdout.setEncoding('utf8').on('data', (chunk) => {
    stdout += chunk
  })
  child.stderr.resume()
  while (!/Listening on (\S+)/.test(stdout)) {
    if (child.exitCode !== null) throw new Error(`the server exited:\n${stdout}`)
    await sleep(50)
  }
  const base = /Listening on (\S+)/.exec(stdout)[1]
  const developerKey = /Developer key {2}(ak_\S+)/.exec(stdout)[1]
  const created = await fetch(`${base}/api/v1/projects`, {
    method: 'POST',
    headers: { 'x-developer-key': developerKey, 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'bench' }),
  })
  const { project, api_key: apiKey } = await created.json()
  const exited = once(child, 'exit').then(([code]) => code)
  return {
    child,
    base,
    developerKey,
    projectId: project.id,
    apiKey: apiKey.key,
    exited,
    stdout: () => stdout,
  }
}

async function keyedRequest(server) {
  const started = performance.now()
  const answer = await fetch(`${server.base}/api/v1/projects/${server.projectId}/access-tokens`, {
    method: 'POST',
    headers: { 'x-api-key': server.apiKey },
  })
  await answer.arrayBuffer()
  return { status: answer.status, ms: performance.now() - started }
}

console.log(machineLine())

// 1. Refused settings.
const port = await freePort()
const cases = [
  ['KEYWARD_PG_URL=notaurl', { KEYWARD_PG_URL: 'notaurl' }],
  ['KEYWARD_PG_URL=mysql://...', { KEYWARD_PG_URL: 'mysql://root:secret@db/keys' }],
  ['KEYWARD_REDIS_URL=localhost:6379', { KEYWARD_REDIS_URL: 'localhost:6379' }],
  [
    `KEYWARD_REDIS_URL=redis://127.0.0.1:${port} (nothing there)`,
    { KEYWARD_REDIS_URL: `redis://127.0.0.1:${port}` },
  ],
]
const refusals = []
for (const [name, env] of cases) {
  const runs = []
  for (let i = 0; i < 3; i++) runs.push(await refusal(env))
  refusals.push([
    name,
    String(runs[0].code),
    `${median(runs.map((r) => r.ms)).toFixed(0)} ms`,
    runs[0].line.slice(0, 60),
  ])
}
console.log('\nA start with an unusable setting (median of 3, from spawn to exit):\n')
table(['setting', 'exit', 'refused after', 'message'], refusals)

// 2. A stalled Redis.
if (spawnSync('redis-server', ['--version']).status === 0) {
  const redisPort = await freePort()
  const redis = spawn(
    'redis-server',
    ['--port', String(redisPort), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
    {
      stdio: 'ignore',
    },
  )
  await sleep(500)
  const server = await start({
    KEYWARD_DATA_DIR: join(cwd, 'stall'),
    KEYWARD_REDIS_URL: `redis://127.0.0.1:${redisPort}`,
  })
  for (let i = 0; i < 20; i++) await keyedRequest(server)
  const usual = []
  for (let i = 0; i < 30; i++) usual.push((await keyedRequest(server)).ms)
  redis.kill('SIGSTOP')
  const stalled = []
  for (let i = 0; i < 30; i++) stalled.push(await keyedRequest(server))
  redis.kill('SIGCONT')
  await sleep(2_000)
  const after = []
  for (let i = 0; i < 30; i++) after.push((await keyedRequest(server)).ms)
  server.child.kill('SIGTERM')
  await server.exited
  redis.kill('SIGTERM')
  const row = (name, ms) => [name, `${median(ms).toFixed(1)} ms`, `${Math.max(...ms).toFixed(1)} ms`]
  console.log(
    "\nAn API-key request (POST .../access-tokens) while the throttle's Redis is stopped (30 each, one at a time):\n",
  )
  table(
    ['Redis', 'median', 'max'],
    [
      row('answering', usual),
      row(
        'stopped (SIGSTOP)',
        stalled.map((s) => s.ms),
      ),
      row('answering again', after),
    ],
  )
  console.log(`\nStatuses while stopped: ${[...new Set(stalled.map((s) => s.status))].join(', ')}`)
}

// 3. A 413 that streaming clients read.
{
  const server = await start({ KEYWARD_DATA_DIR: join(cwd, 'upload') })
  const chunk = Buffer.alloc(64 * 1024, 'a')
  const upload = () =>
    new Promise((resolve) => {
      let answered = false
      const req = request(
        new URL('/api/v1/auth/developer-keys', server.base),
        {
          method: 'POST',
          headers: {
            'x-developer-key': server.developerKey,
            'content-type': 'application/json',
            'transfer-encoding': 'chunked',
          },
        },
        (res) => {
          answered = true
          res.resume()
          res.on('end', () => {
            req.destroy()
            resolve(res.statusCode)
          })
        },
      )
      req.on('error', (error) => answered || resolve(error.code))
      let sent = 0
      const pump = () => {
        while (!answered && sent < 200 * MB) {
          sent += chunk.length
          if (!req.write(chunk)) return void req.once('drain', pump)
        }
        if (!answered) req.end()
      }
      pump()
    })
  const outcomes = []
  for (let i = 0; i < 20; i++) outcomes.push(await upload())
  server.child.kill('SIGTERM')
  await server.exited
  const tally = new Map()
  for (const outcome of outcomes) tally.set(outcome, (tally.get(outcome) ?? 0) + 1)
  const counts = [...tally].map(([outcome, n]) => `${outcome}: ${n}`)
  console.log(`\n20 uploads of 200 MB (chunked) through Node's http client: ${counts.join(', ')}`)
}

// 4. SIGTERM under load, on PostgreSQL.
if (PG_URL) {
  const name = `kw_bench_edges_${process.pid}`
  const admin = new pg.Client({ connectionString: PG_URL })
  await admin.connect()
  await admin.query(`CREATE DATABASE "${name}"`)
  const url = new URL(PG_URL)
  url.pathname = `/${name}`
  const server = await start({ KEYWARD_PG_URL: url.toString() })
  const agent = new Agent({ keepAlive: true, maxSockets: 16 })
  const outcomes = []
  let stopped = false
  const once_ = () =>
    new Promise((resolve) => {
      const req = request(
        new URL(`/api/v1/projects/${server.projectId}/access-tokens`, server.base),
        { method: 'POST', agent, headers: { 'x-api-key': server.apiKey } },
        (res) => {
          res.resume()
          res.on('end', () => resolve(res.statusCode))
        },
      )
      req.on('error', (error) => resolve(error.code))
      req.end()
    })
  const workers = Array.from({ length: 16 }, async () => {
    while (!stopped) outcomes.push(await once_())
  })
  await sleep(3_000)
  const signalled = performance.now()
  stopped = true
  server.child.kill('SIGTERM')
  await Promise.all(workers)
  const code = await server.exited
  const exitMs = performance.now() - signalled
  agent.destroy()
  await admin.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`)
  await admin.end()
  const failed = outcomes.filter((status) => status !== 201).length
  console.log(
    `\nSIGTERM after 3 s of 16 clients on keep-alive connections (PostgreSQL): ${outcomes.length} requests, ${failed} failed, exit code ${code}, exit ${exitMs.toFixed(0)} ms after the signal`,
  )
}
