// `pnpm start` as a user runs it, from the repository's root: it builds only what changed, so a
// built checkout starts at once; Ctrl-C stops it with no failure reported; and a second start
// never rebuilds the files of a server that runs. (In `pnpm test:builds`: one file at a time, so
// no other test rebuilds a package meanwhile.)
import { type ChildProcess, execFile, spawn } from 'node:child_process'
import { once } from 'node:events'
import { existsSync, mkdtempSync, rmSync, statSync, utimesSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'

const ROOT = fileURLToPath(new URL('../../..', import.meta.url))
const run = promisify(execFile)
const dataDir = mkdtempSync(join(tmpdir(), 'keyward-start-'))
const started: ChildProcess[] = []

/** Starts `command` from the root in a process group of its own, as a terminal would. */
function start(command: string, args: string[]) {
  const child = spawn(command, args, {
    cwd: ROOT,
    env: {
      ...process.env,
      PORT: '0',
      KEYWARD_DATA_DIR: dataDir,
      KEYWARD_PG_URL: '',
      KEYWARD_REDIS_URL: '',
      KEYWARD_MYSQL_URL: '',
      KEYWARD_SQLITE_PATH: '',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  })
  started.push(child)
  let output = ''
  child.stdout!.setEncoding('utf8').on('data', (chunk: string) => (output += chunk))
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (output += chunk))
  const exited = once(child, 'exit') as Promise<[number | null, NodeJS.Signals | null]>
  const listening = new Promise<void>((resolve, reject) => {
    const timer = setInterval(() => {
      if (output.includes('Listening on')) resolve()
      else if (child.exitCode !== null) reject(new Error(`It ended before listening:\n${output}`))
      else return
      clearInterval(timer)
    }, 50)
  })
  listening.catch(() => {}) // a start expected to fail is awaited through `exited`
  return { child, exited, listening, output: () => output }
}

beforeAll(async () => {
  // Whatever this checkout lacks is built once here; every start below finds it built.
  const first = start(process.execPath, ['scripts/start.mjs'])
  await first.listening
  process.kill(-first.child.pid!, 'SIGTERM')
  expect((await first.exited)[0]).toBe(0)
}, 600_000)

afterAll(() => {
  for (const child of started) if (child.exitCode === null) process.kill(-child.pid!, 'SIGKILL')
  rmSync(dataDir, { recursive: true, force: true })
})

describe('pnpm start', () => {
  it('builds nothing on a built, unchanged checkout', async () => {
    const { stdout } = await run(process.execPath, ['scripts/start.mjs', '--check'], { cwd: ROOT })
    expect(stdout.trim()).toBe('Up to date.')
  })

  it('listens without building, and Ctrl-C ends it with code 0 and no failure line', async () => {
    const server = start('pnpm', ['start'])
    await server.listening
    expect(server.output()).not.toContain('Building')
    process.kill(-server.child.pid!, 'SIGINT') // the whole group, as a terminal's Ctrl-C
    const [code, signal] = await server.exited
    expect([code, signal]).toEqual([0, null])
    expect(server.output()).toContain('SIGINT: closing')
    expect(server.output()).not.toMatch(/ELIFECYCLE|Command failed/)
  }, 120_000)

  it('rebuilds what changed, but never under a server that runs: it says why instead', async () => {
    const source = join(ROOT, 'packages/hono/src/index.ts')
    const { atime, mtime } = statSync(source)
    const server = start(process.execPath, ['scripts/start.mjs'])
    try {
      await server.listening
      const later = new Date(Date.now() + 1000)
      utimesSync(source, later, later) // as an edit would leave it
      const check = await run(process.execPath, ['scripts/start.mjs', '--check'], { cwd: ROOT })
      expect(check.stdout).toMatch(
        /^To build: @keyward\/hono, @keyward\/console, .*@keyward\/example-server$/m,
      )
      const second = start(process.execPath, ['scripts/start.mjs'])
      const [code] = await second.exited
      expect(code).toBe(1)
      expect(second.output()).toMatch(/still running \(pid \d+\), and @keyward\/hono, .* changed/s)
      expect(existsSync(join(ROOT, 'packages/hono/dist/index.js'))).toBe(true)
      expect(existsSync(join(ROOT, 'examples/server/dist/main.js'))).toBe(true)
    } finally {
      utimesSync(source, atime, mtime)
      process.kill(-server.child.pid!, 'SIGTERM')
      await server.exited
    }
    const { stdout } = await run(process.execPath, ['scripts/start.mjs', '--check'], { cwd: ROOT })
    expect(stdout.trim()).toBe('Up to date.')
  }, 120_000)
})
