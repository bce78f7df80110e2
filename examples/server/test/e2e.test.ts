// The whole flow through @keyward/client against the built server, started as a real process
// (PGlite in a temporary directory; PostgreSQL in a database of its own when KEYWARD_PG_URL is set),
// then restarted to find everything where it was.
import { mkdtemp, readdir, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createClient, KeywardApiError, type KeywardClient } from '@keyward/client'
import { startSecretScanningSender } from '@keyward/testkit'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type Backend, createPgDatabase, describeBackends, pgBouncer } from '../src/test/databases.js'
import { buildServer, type ServerEnv, type ServerProcess, startServer } from './server-process.js'

const KEY = /ak_[A-Za-z0-9_-]{32}/g
const TOKEN_SECRET = 'e2e-token-secret-of-at-least-32-characters'

/** Expects `call` to fail with this status and error type. */
async function refused(call: Promise<unknown>, status: number, type: string): Promise<void> {
  const error = await call.then(
    () => null,
    (e: unknown) => e,
  )
  expect(error).toBeInstanceOf(KeywardApiError)
  expect([(error as KeywardApiError).status, (error as KeywardApiError).type]).toEqual([status, type])
}

beforeAll(buildServer, 120_000)

describeBackends('the reference server, end to end (%s)', (backend: Backend) => {
  let cwd: string
  let env: ServerEnv
  let dropDatabase = async () => {}
  const servers: ServerProcess[] = []
  const start = async () => {
    const server = await startServer(cwd, env)
    servers.push(server)
    return server
  }

  beforeAll(async () => {
    cwd = await mkdtemp(join(tmpdir(), 'keyward-server-'))
    env = { KEYWARD_DATA_DIR: join(cwd, 'data'), KEYWARD_TOKEN_SECRET: TOKEN_SECRET }
    if (backend === 'postgres') {
      const database = await createPgDatabase()
      env = { KEYWARD_PG_URL: database.url, KEYWARD_TOKEN_SECRET: TOKEN_SECRET }
      dropDatabase = database.drop
    }
    if (backend === 'pgbouncer') {
      // As an operator sets it behind PgBouncer in transaction mode: the change feed listens directly.
      const database = await createPgDatabase()
      env = {
        KEYWARD_PG_URL: (await pgBouncer()).through(database.url),
        KEYWARD_PG_LISTEN_URL: database.url,
        KEYWARD_PG_PREPARED_STATEMENTS: 'off',
        KEYWARD_TOKEN_SECRET: TOKEN_SECRET,
      }
      dropDatabase = database.drop
    }
  })
  afterAll(async () => {
    for (const server of servers) await server.stop()
    await dropDatabase()
    await rm(cwd, { recursive: true, force: true })
  })

  it('registers, manages keys and projects, issues tokens, and keeps it all across a restart', async () => {
    // First start: one developer, whose key is printed once.
    const first = await start()
    const developerKey = /Developer key {2}(ak_[A-Za-z0-9_-]{32})\n/.exec(first.stdout())?.[1]
    expect(developerKey).toBeDefined()
    expect(first.stdout()).toContain('This key will not be shown again')
    const issued = new Set<string>([developerKey!])

    const client: KeywardClient = createClient({ baseUrl: first.baseUrl, developerKey })
    expect(await client.health()).toEqual({ status: 'ok' })

    // A project comes with its default API key.
    const { project, api_key: defaultKey } = await client.projects.create({ name: 'Shop' })
    expect(project).toMatchObject({ name: 'Shop' })
    expect(defaultKey).toMatchObject({ name: 'default', project_id: project.id, active: true })
    issued.add(defaultKey.key)

    // Developer keys up to the limit of 10 active, and one past it.
    for (let i = 2; i <= 10; i++) issued.add((await client.developerKeys.create({ name: `key ${i}` })).key)
    await refused(client.developerKeys.create({ name: 'eleventh' }), 409, 'limit_exceeded')

    // Listings: prefixes, never a key.
    const developerKeys = await client.developerKeys.list()
    expect(developerKeys.keys).toHaveLength(10)
    const second = await client.apiKeys.create(project.id, { name: 'second' })
    issued.add(second.key)
    const apiKeys = await client.apiKeys.list(project.id)
    expect(apiKeys.keys.map((k) => k.name).sort()).toEqual(['default', 'second'])
    for (const listing of [developerKeys, apiKeys]) {
      for (const key of listing.keys) expect(key).not.toHaveProperty('key')
      expect(JSON.stringify(listing).match(KEY)).toBeNull()
    }

    // An access token, a generation created and deleted.
    const shop = client.withProjectKey(defaultKey.key)
    const token = await shop.accessTokens.create(project.id)
    expect(token).toMatchObject({ token_type: 'bearer', expires_in: 900 })
    const bearer = { accessToken: token.access_token }
    const generation = await client.generations.create({ prompt: 'a cat' }, bearer)
    expect(generation.project_id).toBe(project.id)
    expect(await client.generations.delete(generation.id, bearer)).toEqual({
      id: generation.id,
      deleted: true,
    })
    await refused(client.generations.delete(generation.id, bearer), 404, 'not_found')
    await refused(client.generations.delete('not-a-uuid', bearer), 422, 'uuid_parsing')

    // Another project's generation is not found with this project's token.
    const other = await client.projects.create({ name: 'Other' })
    issued.add(other.api_key.key)
    const otherToken = await client.withProjectKey(other.api_key.key).accessTokens.create(other.project.id)
    const theirs = await client.generations.create(
      { prompt: 'a dog' },
      { accessToken: otherToken.access_token },
    )
    await refused(client.generations.delete(theirs.id, bearer), 404, 'not_found')

    // Revoked keys are refused: an API key, and a developer key.
    expect((await client.apiKeys.deactivate(project.id, second.id)).active).toBe(false)
    await refused(client.withProjectKey(second.key).accessTokens.create(project.id), 401, 'key_invalid')
    const spare = developerKeys.keys.find((k) => k.name === 'key 10')!
    expect((await client.developerKeys.deactivate(spare.id)).active).toBe(false)

    // A generation kept across the restart.
    const kept = await client.generations.create({ prompt: 'kept' }, bearer)

    if (backend === 'pglite') {
      // One PGlite directory, one process: a second server on it refuses to start.
      await expect(start()).rejects.toThrow(
        new RegExp(`exited with code 1:[\\s\\S]*is open in process ${first.pid}:`),
      )
    }

    expect(await first.stop()).toBe(0)
    const firstOutput = first.output()
    const restarted = await start()
    expect(restarted.output()).not.toContain('Developer key')

    const again = createClient({ baseUrl: restarted.baseUrl, developerKey })
    const afterRestart = (await again.developerKeys.list()).keys
    expect(afterRestart.map(({ last_used_at: _, ...k }) => k)).toEqual(
      developerKeys.keys.map(({ last_used_at: _, ...k }) =>
        k.id === spare.id ? { ...k, active: false, revoked_reason: 'revoked' as const } : k,
      ),
    )
    // The server wrote the pending last uses before it closed the database: the developer key
    // it was called with has one, the keys never used have none.
    const used = afterRestart.find((k) => k.key_prefix === developerKey?.slice(0, 8))
    expect(used?.last_used_at).toEqual(expect.stringMatching(/^\d{4}-\d\d-\d\dT/))
    expect(afterRestart.filter((k) => k.last_used_at !== null)).toHaveLength(1)
    const afterKeys = (await again.apiKeys.list(project.id)).keys.map((k) => [k.name, k.active])
    expect(afterKeys.sort()).toEqual([
      ['default', true],
      ['second', false],
    ])
    await refused(again.withProjectKey(second.key).accessTokens.create(project.id), 401, 'key_invalid')
    // The token from before the restart still verifies: the signing secret comes from the environment.
    expect(await again.generations.delete(kept.id, bearer)).toEqual({ id: kept.id, deleted: true })

    // Deleting a project (elevated) ends its keys and tokens.
    expect(await again.withProjectKey(other.api_key.key).projects.delete(other.project.id)).toEqual({
      id: other.project.id,
      deleted: true,
    })
    await refused(
      again.withProjectKey(other.api_key.key).accessTokens.create(other.project.id),
      401,
      'key_invalid',
    )
    // A token of a deleted project: the project is not found.
    await refused(
      again.generations.delete(theirs.id, { accessToken: otherToken.access_token }),
      404,
      'not_found',
    )

    // Nothing printed a full key but the one first-start key.
    const printed = [...`${firstOutput}${restarted.output()}`.matchAll(KEY)].map((m) => m[0])
    expect(printed).toEqual([developerKey])
    expect(issued.size).toBe(13)
  }, 120_000) // two PGlite starts: about 30 s on a small machine busy with other work
})

describe('the reference server on a PGlite directory, stopped by Ctrl-C or killed', () => {
  it('closes the directory on SIGINT, and starts again at once after kill -9 with its keys', async () => {
    const cwd = await mkdtemp(join(tmpdir(), 'keyward-server-'))
    const dataDir = join(cwd, 'data')
    const env = { KEYWARD_DATA_DIR: dataDir, KEYWARD_TOKEN_SECRET: TOKEN_SECRET }
    const servers: ServerProcess[] = []
    const start = async () => {
      const server = await startServer(cwd, env)
      servers.push(server)
      return server
    }
    try {
      const first = await start()
      const developerKey = /Developer key {2}(ak_[A-Za-z0-9_-]{32})\n/.exec(first.stdout())![1]!
      const { api_key: projectKey } = await createClient({
        baseUrl: first.baseUrl,
        developerKey,
      }).projects.create({
        name: 'Shop',
      })
      // Ctrl-C: the server closes the database and leaves no lock behind.
      expect(await first.kill('SIGINT')).toBe(0)
      expect(first.stdout()).toContain('SIGINT: closing (at most 10000 ms).')
      const left = await readdir(dataDir)
      for (const mark of ['keyward.lock', 'postmaster.pid']) expect(left).not.toContain(mark)

      // kill -9, and the next start right away (as a watcher restarts): the lock of a dead
      // process does not hold it, and the keys are there.
      const second = await start()
      expect(await second.kill('SIGKILL')).toBe('SIGKILL')
      const third = await start()
      const client = createClient({ baseUrl: third.baseUrl, developerKey })
      expect((await client.developerKeys.list()).keys).toHaveLength(1)
      expect((await client.apiKeys.list(projectKey.project_id)).keys.map((k) => k.active)).toEqual([true])
      expect(third.output()).not.toContain('Developer key')
    } finally {
      for (const server of servers) await server.stop()
      await rm(cwd, { recursive: true, force: true })
    }
  }, 120_000) // three PGlite starts
})

describe('the reference server revokes leaked keys (as a process, KEYWARD_SECRET_SCANNING_KEYS_URL)', () => {
  it('takes a signed alert at POST /api/v1/secret-scanning/github and the key stops working', async () => {
    const cwd = await mkdtemp(join(tmpdir(), 'keyward-server-'))
    const sender = await startSecretScanningSender()
    let server: ServerProcess | undefined
    try {
      server = await startServer(cwd, {
        KEYWARD_DATA_DIR: join(cwd, 'data'),
        KEYWARD_SECRET_SCANNING_KEYS_URL: sender.keysUrl,
      })
      const developerKey = /Developer key {2}(ak_[A-Za-z0-9_-]{32})\n/.exec(server.stdout())![1]!
      const body = JSON.stringify([
        { token: developerKey, type: 'keyward_api_key', url: 'https://example.com/a.env', source: 'content' },
      ])
      const response = await fetch(`${server.baseUrl}/api/v1/secret-scanning/github`, {
        method: 'POST',
        headers: [['content-type', 'application/json'], ...sender.headers(body)],
        body,
      })
      expect(response.status).toBe(200)
      expect(await response.json()).toMatchObject([{ label: 'true_positive', token_type: 'keyward_api_key' }])
      expect(sender.fetches).toBe(1)
      const client = createClient({ baseUrl: server.baseUrl, developerKey })
      await refused(client.developerKeys.list(), 401, 'key_invalid')
      expect(server.stdout()).toMatch(
        /key\.leaked ak_\S{5}\.\.\. developer .* found at "https:\/\/example\.com\/a\.env" \(content\): revoked/,
      )
      expect([...server.output().matchAll(KEY)].map((m) => m[0])).toEqual([developerKey])
    } finally {
      await server?.stop()
      await sender.close()
      await rm(cwd, { recursive: true, force: true })
    }
  }, 120_000)
})

describe('the reference server throttles guessing before its routes (as a process)', () => {
  it('answers every credentialed request of a throttled address 429, on any path, and only those', async () => {
    const cwd = await mkdtemp(join(tmpdir(), 'keyward-server-'))
    const env = {
      KEYWARD_DATA_DIR: join(cwd, 'data'),
      KEYWARD_TOKEN_SECRET: TOKEN_SECRET,
      KEYWARD_FAILED_AUTH_PER_MINUTE: '3',
      KEYWARD_TRUSTED_PROXY: 'x-forwarded-for:1',
    }
    const server = await startServer(cwd, env)
    try {
      const developerKey = /Developer key {2}(ak_[A-Za-z0-9_-]{32})\n/.exec(server.stdout())![1]!
      const from = (address: string, headers: Record<string, string> = {}) => ({
        headers: { 'x-forwarded-for': address, ...headers },
      })
      const guess = (i: number) => `ak_${String(i).padStart(32, 'Q')}`
      const keys = `${server.baseUrl}/api/v1/auth/developer-keys`
      for (let i = 0; i < 3; i++) {
        const response = await fetch(keys, from('203.0.113.9', { 'x-developer-key': guess(i) }))
        expect(response.status).toBe(401)
      }
      // The route's guard refuses the next one, and the address is known to be throttled: from
      // then on its credentialed requests are answered before any route, even a path that has none.
      expect((await fetch(keys, from('203.0.113.9', { 'x-developer-key': developerKey }))).status).toBe(429)
      const early = await fetch(
        `${server.baseUrl}/no/such/path`,
        from('203.0.113.9', { 'x-api-key': guess(9) }),
      )
      expect(early.status).toBe(429)
      expect(early.headers.get('retry-after')).toMatch(/^\d+$/)
      expect(((await early.json()) as { detail: Array<{ type: string }> }).detail[0]!.type).toBe(
        'rate_limited',
      )
      // Without a credential, or from another address, nothing is refused.
      expect((await fetch(`${server.baseUrl}/no/such/path`, from('203.0.113.9'))).status).toBe(404)
      expect((await fetch(`${server.baseUrl}/healthz`, from('203.0.113.9'))).status).toBe(200)
      expect((await fetch(keys, from('198.51.100.4', { 'x-developer-key': developerKey }))).status).toBe(200)
    } finally {
      await server.stop()
      await rm(cwd, { recursive: true, force: true })
    }
  }, 60_000)
})
