// The app in process, on a database of its own, as main.ts builds it.
import type { KeywardEvent, OwnerKeyPolicies, ProtectionOptions, SecretScanningOptions } from '@keyward/core'
import type { PostgresKeyStore } from '@keyward/postgres'
import { createPgKeyStore } from '@keyward/postgres/pg'
import { createPGliteKeyStore } from '@keyward/postgres/pglite'
import { responseChecker } from '@keyward/testkit'
import type { Hono } from 'hono'
import { createApp } from '../app.js'
import { registerFirstDeveloper } from '../db/developers.js'
import { createAppTables } from '../db/schema.js'
import { keywardOver } from '../service.js'
import { openStorage } from '../storage.js'
import { accessTokens } from '../tokens.js'
import { type Backend, createPgDatabase, pgBouncer } from './databases.js'

export const TEST_SECRET = 'test-secret-of-at-least-32-characters'

/**
 * An opened store with the server's tables, and how to throw it away. With `serverDefaults`,
 * PostgreSQL is opened as the server opens it (`openStorage`: a pool of 10, the default
 * timeout, the change feed) rather than with the tests' patient timeout.
 */
export async function openTestStore(
  backend: Backend,
  serverDefaults = false,
): Promise<{ store: PostgresKeyStore; drop(): Promise<void>; url?: string }> {
  if (backend === 'postgres' && serverDefaults) {
    const database = await createPgDatabase()
    const { store } = await openStorage({
      pgUrl: database.url,
      pgReplicaUrls: [],
      revocationBoundMs: undefined,
      pgListenUrl: undefined,
      pgPreparedStatements: true,
      cache: true,
      dataDir: '',
      keywardSchema: undefined,
    })
    return {
      store,
      url: database.url,
      drop: async () => {
        await store.close()
        await database.drop()
      },
    }
  }
  if (backend === 'pglite') {
    const store = await createPGliteKeyStore({}, { queryTimeoutMs: 30_000 })
    await createAppTables(store)
    return { store, drop: () => store.close() }
  }
  const database = await createPgDatabase()
  const store =
    backend === 'pgbouncer'
      ? await createPgKeyStore(
          { connectionString: (await pgBouncer()).through(database.url) },
          { queryTimeoutMs: 30_000, preparedStatements: false },
        )
      : await createPgKeyStore({ connectionString: database.url }, { queryTimeoutMs: 30_000 })
  await createAppTables(store)
  return {
    store,
    drop: async () => {
      await store.close()
      await database.drop()
    },
  }
}

export interface Answer {
  readonly status: number
  readonly headers: Headers
  // biome-ignore lint/suspicious/noExplicitAny: a JSON body, read by the assertions
  readonly body: any
  readonly text: string
}

export interface TestApp {
  readonly app: Hono
  readonly store: PostgresKeyStore
  /** The database's URL, on PostgreSQL. */
  readonly url?: string
  readonly events: KeywardEvent[]
  /** The developer registered on first start, and their key. */
  readonly developerId: string
  readonly developerKey: string
  /** The clock of the access tokens. */
  readonly clock: { now: Date }
  /**
   * Sends a request to the app; `body` is sent as JSON unless it is a string, with
   * `Content-Type: application/json` unless `headers` name one. `address` is the socket's.
   */
  call(
    method: string,
    path: string,
    init?: { headers?: Record<string, string>; body?: unknown; address?: string },
  ): Promise<Answer>
  /** Issues a developer key for another developer. */
  developer(id: string): Promise<string>
  /** Creates a project through the API: its id and its default API key. */
  project(
    name?: string,
    developerKey?: string,
  ): Promise<{ projectId: string; apiKey: string; apiKeyId: string }>
  /** An access token for a project, through the API. */
  token(projectId: string, apiKey: string): Promise<string>
  close(): Promise<void>
}

/** The app over a fresh database, with its first developer registered. */
export async function openTestApp(
  backend: Backend,
  options: {
    protection?: ProtectionOptions
    secretScanning?: SecretScanningOptions
    /** The SHA-256 digests of the verification endpoint's service tokens. */
    verifyTokens?: readonly string[]
    keyPolicies?: OwnerKeyPolicies
    /** Open the store as the server does (see `openTestStore`). */
    serverDefaults?: boolean
  } = {},
): Promise<TestApp> {
  const { serverDefaults, ...appOptions } = options
  const { store, drop, url } = await openTestStore(backend, serverDefaults)
  const events: KeywardEvent[] = []
  const onEvent = (event: KeywardEvent) => events.push(event)
  const clock = { now: new Date() }
  const tokens = accessTokens({ secret: TEST_SECRET, ttlSeconds: 900, now: () => clock.now })
  const app = createApp({ store, tokens, onEvent, ...appOptions })
  // Every answer of the app is checked against the OpenAPI document the app itself serves.
  const checker = responseChecker(await (await app.request('/openapi.json')).json())
  const first = await registerFirstDeveloper(store, (tx) => keywardOver(tx, onEvent))
  if (!first) throw new Error('A fresh database has no developer yet.')
  const t: TestApp = {
    app,
    store,
    ...(url ? { url } : {}),
    events,
    developerId: first.developerId,
    developerKey: first.key,
    clock,
    async call(method, path, { headers = {}, body, address = '192.0.2.1' } = {}) {
      const typed = Object.keys(headers).some((name) => name.toLowerCase() === 'content-type')
      const response = await app.request(
        path,
        {
          method,
          headers: body === undefined || typed ? headers : { 'content-type': 'application/json', ...headers },
          body: body === undefined || typeof body === 'string' ? body : JSON.stringify(body),
        },
        // What @hono/node-server passes: the request's socket, with the client's address.
        { incoming: { socket: { remoteAddress: address } } },
      )
      const text = await response.text()
      const conformsTo = checker.check(method, path, response.status, text)
      if (conformsTo.documented && conformsTo.problems.length > 0) {
        throw new Error(
          `${conformsTo.operation} answered ${response.status} against the OpenAPI document: ${conformsTo.problems.join('; ')}: ${text}`,
        )
      }
      let json: unknown
      try {
        json = JSON.parse(text)
      } catch {
        json = undefined
      }
      return { status: response.status, headers: response.headers, body: json, text }
    },
    developer: async (id) => (await keywardOver(store, onEvent).issueDeveloperKey(id)).key,
    async project(name = 'Shop', developerKey = first.key) {
      const answer = await t.call('POST', '/api/v1/projects', {
        headers: { 'x-developer-key': developerKey },
        body: { name },
      })
      if (answer.status !== 201) throw new Error(`project creation answered ${answer.text}`)
      const { project, api_key } = answer.body
      return { projectId: project.id, apiKey: api_key.key, apiKeyId: api_key.id }
    },
    async token(projectId, apiKey) {
      const answer = await t.call('POST', `/api/v1/projects/${projectId}/access-tokens`, {
        headers: { 'x-api-key': apiKey },
      })
      if (answer.status !== 201) throw new Error(`access token answered ${answer.text}`)
      return answer.body.access_token
    },
    close: drop,
  }
  return t
}
