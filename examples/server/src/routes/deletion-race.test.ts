// Deleting a project while keys, access tokens and generations of it are being created, on two
// server instances with stores of their own (two pools, two change feeds, two verification caches)
// over one database: no creation is left standing for the deleted project, and none answers 5xx.
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createMysqlKeyStore } from '@keyward/mysql'
import { createPgKeyStore } from '@keyward/postgres/pg'
import { createPGliteKeyStore } from '@keyward/postgres/pglite'
import { createSqliteKeyStore } from '@keyward/sqlite'
import { responseChecker } from '@keyward/testkit'
import type { Hono } from 'hono'
import { afterAll, describe, expect, it } from 'vitest'
import { createApp } from '../app.js'
import { registerFirstDeveloper } from '../db/developers.js'
import { createAppTables } from '../db/schema.js'
import type { ServerStore } from '../db/sql.js'
import { keywardOver } from '../service.js'
import { createMysqlDatabase, createPgDatabase, MYSQL_URL, PG_URL } from '../test/databases.js'
import { TEST_SECRET, testRows } from '../test/harness.js'
import { accessTokens } from '../tokens.js'

const CONCURRENT = 30
const GENERATIONS = '/api/v1/generation/generations-v2'

type Creation = 'api_key' | 'access_token' | 'generation'

interface Outcome {
  readonly creation: Creation
  readonly status: number
  readonly type: string | undefined
  readonly msg: string | undefined
  /** Whether the request was sent after the deletion had answered. */
  readonly afterDeletion: boolean
}

/** Two apps over one database, and what the race needs of it. */
interface RaceWorld {
  readonly apps: readonly [Hono, Hono]
  readonly store: ServerStore
  close(): Promise<void>
}

function appsOver(stores: readonly [ServerStore, ServerStore], verificationsCurrent = false) {
  const tokens = accessTokens({ secret: TEST_SECRET, ttlSeconds: 900 })
  return stores.map((store) => createApp({ store, tokens, verificationsCurrent })) as [Hono, Hono]
}

/**
 * Two stores of their own over one new database (`create` makes it, `open` opens a store with its
 * change feed). With strict revocation, a deletion answers only once every process's feed has
 * heard it, so the access-token route trusts the verified key (`verificationsCurrent`) instead of
 * reading the project.
 */
async function twoStores(
  create: () => Promise<{ url: string; drop(): Promise<void> }>,
  open: (url: string) => Promise<ServerStore>,
  strictRevocation: boolean,
): Promise<RaceWorld> {
  const database = await create()
  const first = await open(database.url)
  await createAppTables(first)
  const second = await open(database.url)
  const apps = appsOver([first, second], strictRevocation)
  return {
    apps,
    store: first,
    close: async () => {
      await Promise.all([first.close(), second.close()])
      await database.drop()
    },
  }
}

const pgWorld = (strictRevocation = false) =>
  twoStores(
    createPgDatabase,
    (url) =>
      createPgKeyStore(
        { connectionString: url, poolConfig: { max: 10 } },
        { queryTimeoutMs: 30_000, changeFeed: true, strictRevocation },
      ),
    strictRevocation,
  )

const mysqlWorld = (strictRevocation = false) =>
  twoStores(
    createMysqlDatabase,
    (url) =>
      createMysqlKeyStore(
        { connectionString: url },
        { queryTimeoutMs: 30_000, changeFeed: true, strictRevocation },
      ),
    strictRevocation,
  )

// PGlite is one process's database: two apps, each with its key service and cache, share it.
async function pgliteWorld(): Promise<RaceWorld> {
  const store = await createPGliteKeyStore({}, { queryTimeoutMs: 30_000 })
  await createAppTables(store)
  // One process holds a PGlite database, so the server trusts its verifications (see storage.ts).
  const apps = appsOver([store, store], true)
  return { apps, store, close: () => store.close() }
}

// A SQLite file is one process's database, as PGlite's: two apps share its store.
async function sqliteWorld(): Promise<RaceWorld> {
  const dir = await mkdtemp(join(tmpdir(), 'keyward-race-'))
  const store = await createSqliteKeyStore({ path: join(dir, 'keys.db') })
  await createAppTables(store)
  const apps = appsOver([store, store], true)
  return {
    apps,
    store,
    close: async () => {
      await store.close()
      await rm(dir, { recursive: true, force: true })
    },
  }
}

/**
 * `rounds` rounds; the deletion starts 0 to 4 times `delayMs` after the first half of the creations
 * (PGlite answers one query at a time, so it needs longer for the first half to get anywhere).
 */
function raceSuite(name: string, rounds: number, delayMs: number, makeWorld: () => Promise<RaceWorld>) {
  let world: RaceWorld | undefined
  afterAll(() => world?.close())

  it(`${rounds} rounds of ${CONCURRENT} concurrent creations racing one project deletion leave no active key, no generation and no 5xx`, async () => {
    world = await makeWorld()
    const { apps, store } = world
    const checker = responseChecker(await (await apps[0].request('/openapi.json')).json())
    const first = await registerFirstDeveloper(store, (tx) => keywardOver(tx))
    const developer = { 'x-developer-key': first!.key }

    const call = async (
      app: Hono,
      method: string,
      path: string,
      headers: Record<string, string>,
      body?: unknown,
    ) => {
      const response = await app.request(path, {
        method,
        headers: body === undefined ? headers : { 'content-type': 'application/json', ...headers },
        body: body === undefined ? undefined : JSON.stringify(body),
      })
      const text = await response.text()
      const conformsTo = checker.check(method, path, response.status, text)
      expect(conformsTo, `${method} ${path} ${response.status} ${text}`).toMatchObject({
        documented: true,
        problems: [],
      })
      return { status: response.status, body: text === '' ? undefined : JSON.parse(text) }
    }

    const outcomes: Outcome[] = []
    for (let round = 0; round < rounds; round++) {
      const created = await call(apps[round % 2]!, 'POST', '/api/v1/projects', developer, {
        name: `race ${round}`,
      })
      expect(created.status).toBe(201)
      const projectId: string = created.body.project.id
      const apiKey = { 'x-api-key': created.body.api_key.key as string }
      // A token from the other instance: its cache now holds the API key as active.
      const issued = await call(
        apps[(round + 1) % 2]!,
        'POST',
        `/api/v1/projects/${projectId}/access-tokens`,
        apiKey,
      )
      const bearer = { authorization: `Bearer ${issued.body.access_token}` }

      let deletedAt = Number.POSITIVE_INFINITY
      const creation = async (index: number): Promise<Outcome> => {
        const app = apps[index % 2]!
        const kind: Creation = (['api_key', 'access_token', 'generation'] as const)[index % 3]!
        const sentAt = performance.now()
        const answer =
          kind === 'api_key'
            ? await call(app, 'POST', `/api/v1/projects/${projectId}/api-keys`, developer, { name: 'racing' })
            : kind === 'access_token'
              ? await call(app, 'POST', `/api/v1/projects/${projectId}/access-tokens`, apiKey)
              : await call(app, 'POST', GENERATIONS, bearer, { round })
        return {
          creation: kind,
          status: answer.status,
          type: answer.body?.detail?.[0]?.type,
          msg: answer.body?.detail?.[0]?.msg,
          afterDeletion: sentAt > deletedAt,
        }
      }
      const racing = Array.from({ length: CONCURRENT / 2 }, (_, i) => creation(i))
      // The deletion starts while the first half is under way; the second half follows it.
      await new Promise((resolve) => setTimeout(resolve, (round % 5) * delayMs))
      const deletion = call(apps[(round + 1) % 2]!, 'DELETE', `/api/v1/projects/${projectId}`, {
        ...developer,
        ...apiKey,
      }).then((answer) => {
        deletedAt = performance.now()
        return answer
      })
      for (let i = CONCURRENT / 2; i < CONCURRENT; i++) {
        racing.push(creation(i))
        if (i % 3 === 0) await new Promise((resolve) => setTimeout(resolve, 1))
      }
      const deleted = await deletion
      expect([deleted.status, deleted.body]).toEqual([200, { id: projectId, deleted: true }])
      // And one of each after the deletion answered, on either instance.
      for (let i = 0; i < 3; i++) racing.push(creation(round + i))
      outcomes.push(...(await Promise.all(racing)))

      const rows = testRows(store)
      const left = [
        ...(await rows('SELECT count(*) AS n FROM keyward.api_keys WHERE project_id = ? AND active', [
          projectId,
        ])),
        ...(await rows('SELECT count(*) AS n FROM app.generations WHERE project_id = ?', [projectId])),
      ]
      expect(left, `round ${round}`).toEqual([{ n: 0 }, { n: 0 }])
    }

    const count = (where: (outcome: Outcome) => boolean) => outcomes.filter(where).length
    const statuses = (kind: Creation) => {
      const byStatus: Record<number, number> = {}
      for (const o of outcomes.filter((o) => o.creation === kind))
        byStatus[o.status] = (byStatus[o.status] ?? 0) + 1
      return byStatus
    }
    const summary = {
      requests: outcomes.length,
      created201: count((o) => o.status === 201),
      notFound404: count((o) => o.status === 404),
      keyInvalid401: count((o) => o.status === 401),
      server5xx: count((o) => o.status >= 500),
      // Key creations that passed the guard and were refused by the store's closed owner.
      refusedByStore: count((o) => o.msg?.includes('it was deleted') === true),
      apiKeys: statuses('api_key'),
      accessTokens: statuses('access_token'),
      generations: statuses('generation'),
    }
    console.info(`deletion race on ${name}: ${JSON.stringify(summary)}`)
    expect(summary.server5xx).toBe(0)
    // Every refusal is the spec's project-not-found error, or (an access token asked with the
    // project's API key once the deletion deactivated it) the key's own refusal.
    for (const o of outcomes.filter((o) => o.status !== 201)) {
      if (o.status === 404) expect(o.type).toBe('not_found')
      else expect([o.creation, o.status, o.type]).toEqual(['access_token', 401, 'key_invalid'])
    }
    // Requests were sent after the deletion answered, of every kind, and none was created.
    for (const kind of ['api_key', 'access_token', 'generation'] as const) {
      expect(
        count((o) => o.afterDeletion && o.creation === kind),
        kind,
      ).toBeGreaterThan(0)
    }
    expect(outcomes.filter((o) => o.afterDeletion && o.status === 201)).toEqual([])
    // Both outcomes happened: the race was real.
    expect(summary.created201).toBeGreaterThan(0)
    expect(summary.notFound404).toBeGreaterThan(0)
  }, 60_000)
}

describe.skipIf(!PG_URL)(
  'project deletion racing creations on PostgreSQL, two server instances, two pools (set KEYWARD_PG_URL to run)',
  () => raceSuite('PostgreSQL', 50, 1, () => pgWorld()),
)

describe.skipIf(!PG_URL)(
  'project deletion racing creations on PostgreSQL under strict revocation, tokens issued from the verified key alone (set KEYWARD_PG_URL to run)',
  () => raceSuite('PostgreSQL, strict revocation', 10, 1, () => pgWorld(true)),
)

describe('project deletion racing creations on PGlite, two key services in process', () =>
  raceSuite('PGlite', 10, 25, pgliteWorld))

describe.skipIf(!MYSQL_URL)(
  'project deletion racing creations on MySQL, two server instances, two pools (set KEYWARD_MYSQL_URL to run)',
  () => raceSuite('MySQL', 10, 1, () => mysqlWorld()),
)

describe.skipIf(!MYSQL_URL)(
  'project deletion racing creations on MySQL under strict revocation, tokens issued from the verified key alone (set KEYWARD_MYSQL_URL to run)',
  () => raceSuite('MySQL, strict revocation', 10, 1, () => mysqlWorld(true)),
)

describe('project deletion racing creations on SQLite, two key services in process', () =>
  raceSuite('SQLite', 10, 25, sqliteWorld))
