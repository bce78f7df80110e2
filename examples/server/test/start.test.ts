// Starts that cannot work are refused at once, with a message that names the setting, what is
// wrong with it and a right value; a server that cannot listen shows no key.
import { mkdtemp, rm } from 'node:fs/promises'
import { createServer, type Server } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createPgDatabase, PG_URL } from '../src/test/databases.js'
import { buildServer, freePort, runUntilExit, startServer } from './server-process.js'

const KEY = /ak_[A-Za-z0-9_-]{32}/

let cwd: string
beforeAll(async () => {
  cwd = await mkdtemp(join(tmpdir(), 'keyward-start-'))
  await buildServer()
}, 120_000)
afterAll(() => rm(cwd, { recursive: true, force: true }))

describe('a setting that cannot work stops the server at start', () => {
  it.each([
    [
      'KEYWARD_PG_URL',
      'notaurl',
      /^keyward-server: KEYWARD_PG_URL is not a URL .*such as postgres:\/\/user:password@localhost:5432\/keys\.$/m,
    ],
    [
      'KEYWARD_PG_URL',
      'mysql://root:hunter2@db/keys',
      /^keyward-server: KEYWARD_PG_URL has the scheme mysql:\/\/, not postgres:\/\/ or postgresql:\/\/: .*postgres:\/\//m,
    ],
    [
      'KEYWARD_REDIS_URL',
      'localhost:6379',
      /^keyward-server: KEYWARD_REDIS_URL is not a URL .*such as redis:\/\/127\.0\.0\.1:6379\.$/m,
    ],
  ])(
    '%s=%s',
    async (name, value, message) => {
      const ended = await runUntilExit(cwd, { [name]: value, KEYWARD_DATA_DIR: join(cwd, 'data') })
      expect(ended.code).toBe(1)
      expect(ended.output).toMatch(message)
      expect(ended.output).not.toContain('hunter2')
      // Before the database is opened: no data line, no key. (Timings: see docs/server.md.)
      expect(ended.output).not.toContain('Data:')
    },
    30_000,
  )

  it('KEYWARD_REDIS_URL pointing at a port where nothing listens', async () => {
    const port = await freePort()
    const ended = await runUntilExit(cwd, {
      KEYWARD_REDIS_URL: `redis://127.0.0.1:${port}`,
      KEYWARD_DATA_DIR: join(cwd, 'data'),
    })
    expect(ended.code).toBe(1)
    expect(ended.output).toMatch(
      new RegExp(
        `^keyward-server: KEYWARD_REDIS_URL: Redis at 127\\.0\\.0\\.1:${port} cannot be reached \\(ECONNREFUSED\\): .*redis://127\\.0\\.0\\.1:6379`,
        'm',
      ),
    )
    expect(ended.output).not.toContain('Data:')
  }, 30_000)
})

describe.skipIf(!PG_URL)('a server that cannot listen (set KEYWARD_PG_URL to run)', () => {
  let busy: Server
  const drops: Array<() => Promise<void>> = []
  beforeAll(async () => {
    busy = createServer()
    await new Promise<void>((resolve) => busy.listen(0, '127.0.0.1', resolve))
  })
  afterAll(async () => {
    await new Promise((resolve) => busy.close(resolve))
    for (const drop of drops) await drop()
  })

  it('registers no developer and shows no key; the next start does, the one after says how to get one', async () => {
    const database = await createPgDatabase()
    drops.push(database.drop)
    const env = { KEYWARD_PG_URL: database.url }
    const port = String((busy.address() as { port: number }).port)
    for (const failing of [{ PORT: port }, { HOST: '256.1.1.1' }] as Record<string, string>[]) {
      const ended = await runUntilExit(cwd, { ...env, ...failing })
      expect(ended.code).toBe(1)
      expect(ended.output).toMatch(/^keyward-server: cannot listen on /m)
      expect(ended.output).not.toMatch(KEY)
      expect(ended.output).not.toContain('First start')
      // Its stop logs no bypass of its own: one logged before, while a feed late under load
      // (its fences not back in time) skipped the cache, is the only kind there may be.
      const bypasses = ended.output.split('\n').filter((line) => line.includes('cache.bypassed'))
      expect(bypasses.filter((line) => !line.includes('The change feed is late'))).toEqual([])
    }
    const first = await startServer(cwd, env)
    expect(first.stdout()).toMatch(/^ {2}Developer key {2}ak_/m)
    expect(await first.stop()).toBe(0)
    const again = await startServer(cwd, env)
    expect(again.stdout()).not.toMatch(KEY)
    expect(again.stdout()).toContain(
      'Developers are registered already: no key is printed. For a new developer, run `keyward developers register <developer-id>` with KEYWARD_PG_URL as here',
    )
    expect(await again.stop()).toBe(0)
    // A clean stop is quiet: closing the change feed on purpose is no fault.
    expect(again.output().split('SIGTERM: closing')[1]).not.toContain('cache.bypassed')
  }, 120_000)
})
