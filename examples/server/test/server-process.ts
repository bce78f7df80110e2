// The built reference server as a real process, as `pnpm start` runs it.
import { type ChildProcess, execFile, spawn } from 'node:child_process'
import { once } from 'node:events'
import { mkdtemp, readdir, rm, stat } from 'node:fs/promises'
import { createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { lock } from 'proper-lockfile'
import { afterAll, beforeAll } from 'vitest'

const SERVER_DIR = fileURLToPath(new URL('..', import.meta.url))
const MAIN = fileURLToPath(new URL('../dist/main.js', import.meta.url))
// PGlite's WebAssembly compiles in seconds on a quiet machine and in more than a minute on a busy
// one: the bound is for a hang, not for speed.
const START_TIMEOUT_MS = 150_000

// What the build reads: newer than dist/main.js means the build is due.
const BUILD_INPUTS = ['src', 'package.json', 'tsup.config.ts', 'tsconfig.json']

async function newestInput(path: string): Promise<number> {
  const info = await stat(path)
  if (!info.isDirectory()) return path.endsWith('.test.ts') ? 0 : info.mtimeMs
  const entries = await readdir(path)
  const times = await Promise.all(entries.map((entry) => newestInput(join(path, entry))))
  return Math.max(0, ...times)
}

async function built(): Promise<boolean> {
  const output = await stat(MAIN).catch(() => null)
  if (output === null) return false
  const inputs = await Promise.all(BUILD_INPUTS.map((input) => newestInput(join(SERVER_DIR, input))))
  return output.mtimeMs >= Math.max(...inputs)
}

/**
 * Builds the server, unless it is built from its sources as they are (the packages it imports are
 * built by `pnpm test` before the tests run). Test files run at once, and tsup empties dist/
 * before it writes: one file's build would remove the server another file is starting. So one
 * builds, under a lock across processes, and the others find the build done.
 */
export async function buildServer(): Promise<void> {
  const release = await lock(SERVER_DIR, {
    lockfilePath: join(SERVER_DIR, '.build.lock'),
    retries: { retries: 1200, minTimeout: 100, maxTimeout: 200 },
  })
  try {
    if (!(await built())) await promisify(execFile)('pnpm', ['run', 'build'], { cwd: SERVER_DIR })
  } finally {
    await release()
  }
}

/** The server's settings: everything from the environment of the tests is left out. */
export type ServerEnv = Record<string, string>

export interface ServerProcess {
  /** `http://127.0.0.1:<port>`, from the line the server prints when it listens. */
  readonly baseUrl: string
  /** What it printed to stdout so far. */
  stdout(): string
  /** Everything it printed so far, stdout and stderr. */
  output(): string
  /** Sends SIGTERM and resolves to the exit code. */
  stop(): Promise<number | null>
  /** The process id. */
  readonly pid: number
  /** Sends a signal and resolves to how the process ended: its exit code, or the signal. */
  kill(signal: NodeJS.Signals): Promise<number | NodeJS.Signals | null>
}

/** A port on 127.0.0.1 that nothing listens on (taken, then given back). */
export async function freePort(): Promise<number> {
  const server = createServer()
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as { port: number }
  await new Promise((resolve) => server.close(resolve))
  return port
}

/** How a server that was expected to stop on its own ended: its exit code, output and time. */
export interface EndedServer {
  readonly code: number | null
  readonly output: string
  /** From the spawn to the exit, in milliseconds. */
  readonly ms: number
}

/** Runs `node dist/main.js` in `cwd` until it exits by itself (a start that is refused). */
export async function runUntilExit(cwd: string, env: ServerEnv, timeoutMs = 60_000): Promise<EndedServer> {
  const started = performance.now()
  const child = spawn(process.execPath, [MAIN], {
    cwd,
    env: { PATH: process.env.PATH ?? '', HOST: '127.0.0.1', PORT: '0', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let output = ''
  for (const stream of [child.stdout!, child.stderr!]) {
    stream.setEncoding('utf8').on('data', (chunk: string) => {
      output += chunk
    })
  }
  const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs)
  const [code] = (await once(child, 'close')) as [number | null]
  clearTimeout(timer)
  return { code, output, ms: performance.now() - started }
}

/** Starts `node dist/main.js` in `cwd` and waits until it listens. */
export async function startServer(cwd: string, env: ServerEnv): Promise<ServerProcess> {
  const child: ChildProcess = spawn(process.execPath, [MAIN], {
    cwd,
    env: { PATH: process.env.PATH ?? '', HOST: '127.0.0.1', PORT: '0', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let output = ''
  let stdout = ''
  child.stdout!.setEncoding('utf8').on('data', (chunk: string) => {
    stdout += chunk
    output += chunk
  })
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => {
    output += chunk
  })
  const ended = once(child, 'exit') as Promise<[number | null, NodeJS.Signals | null]>
  const exited = ended.then(([code]) => code)

  const baseUrl = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`The server did not listen in time:\n${output}`)),
      START_TIMEOUT_MS,
    )
    const check = () => {
      const listening = /Listening on (http:\/\/\S+)/.exec(stdout)
      if (!listening) return
      clearTimeout(timer)
      child.stdout!.off('data', check)
      resolve(listening[1]!)
    }
    child.stdout!.on('data', check)
    exited.then((code) => {
      clearTimeout(timer)
      reject(new Error(`The server exited with code ${code}:\n${output}`))
    })
  })

  return {
    baseUrl,
    pid: child.pid!,
    async kill(signal) {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal)
      const [code, by] = await ended
      return code ?? by
    },
    stdout: () => stdout,
    output: () => output,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM')
      return exited
    },
  }
}

/** The first start's developer key, as the server printed it, and a project it created with it. */
export interface FirstProject {
  readonly developerKey: string
  readonly project: { readonly id: string }
  readonly apiKey: { readonly key: string; readonly key_prefix: string }
}

/** Reads the first start's developer key from the server's output and creates a project with it. */
export async function firstProject(server: ServerProcess, name: string): Promise<FirstProject> {
  const developerKey = /Developer key {2}(ak_\S+)/.exec(server.stdout())?.[1]
  if (!developerKey) throw new Error(`The server printed no developer key:\n${server.output()}`)
  const created = await fetch(`${server.baseUrl}/api/v1/projects`, {
    method: 'POST',
    headers: { 'x-developer-key': developerKey, 'content-type': 'application/json' },
    body: JSON.stringify({ name }),
  })
  const { project, api_key: apiKey } = (await created.json()) as Omit<
    FirstProject,
    'developerKey' | 'apiKey'
  > & {
    api_key: FirstProject['apiKey']
  }
  return { developerKey, project, apiKey }
}

/** What {@link serverScope} gives a `describe` block. */
export interface ServerScope {
  /** The temporary working directory of its servers. */
  cwd(): string
  /** A step for after the block (a server to kill, a database to drop), run last added first. */
  onCleanup(step: () => Promise<unknown>): void
}

/**
 * For a `describe` block of tests on the built server: builds it and makes a temporary working
 * directory before them; after them runs the cleanup steps, then removes the directory.
 */
export function serverScope(prefix: string): ServerScope {
  let cwd = ''
  const steps: Array<() => Promise<unknown>> = []
  beforeAll(async () => {
    cwd = await mkdtemp(join(tmpdir(), prefix))
    await buildServer()
  }, 120_000)
  afterAll(async () => {
    for (const step of steps.reverse()) await step()
    await rm(cwd, { recursive: true, force: true })
  })
  return { cwd: () => cwd, onCleanup: (step) => void steps.push(step) }
}

const REDIS_BIN = process.env.KEYWARD_REDIS_BIN || 'redis-server'

/** A redis-server of this test only, on a spare port, without persistence. */
export async function startRedis(): Promise<{ process: ChildProcess; url: string }> {
  const port = await freePort()
  const redis = spawn(
    REDIS_BIN,
    ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
    {
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  )
  let output = ''
  redis.stdout!.setEncoding('utf8').on('data', (chunk: string) => {
    output += chunk
  })
  for (let i = 0; i < 100 && !/Ready to accept connections/i.test(output); i++) {
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
  if (!/Ready to accept connections/i.test(output)) throw new Error(`redis-server did not start:\n${output}`)
  return { process: redis, url: `redis://127.0.0.1:${port}` }
}

/** Whether redis-server is missing (the tests that need one of their own are skipped). */
export const redisMissing = await new Promise<boolean>((resolve) => {
  const probe = spawn(REDIS_BIN, ['--version'], { stdio: 'ignore' })
  probe.on('error', () => resolve(true))
  probe.on('exit', (code) => resolve(code !== 0))
})

/** Stops a redis-server of {@link startRedis}, stalled or not. */
export async function stopRedis(redis: ChildProcess | undefined): Promise<void> {
  if (!redis || redis.exitCode !== null) return
  redis.kill('SIGCONT')
  redis.kill('SIGTERM')
  await once(redis, 'exit')
}
