// The app in process, on a database of its own, as main.ts builds it.
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { KeywardEvent, OwnerKeyPolicies, ProtectionOptions, SecretScanningOptions } from '@keyward/core'
import { createMysqlKeyStore } from '@keyward/mysql'
import { createPgKeyStore } from '@keyward/postgres/pg'
import { createPGliteKeyStore } from '@keyward/postgres/pglite'
import { createSqliteKeyStore } from '@keyward/sqlite'
import { responseChecker } from '@keyward/testkit'
import type { Hono } from 'hono'
import mysql from 'mysql2/promise'
import { createApp } from '../app.js'
import { registerFirstDeveloper } from '../db/developers.js'
import { createAppTables } from '../db/schema.js'
import { dialectOf, isSqlStore, type ServerStore, type Sql, sqlOf } from '../db/sql.js'
import { keywardOver } from '../service.js'
import { openStorage } from '../storage.js'
import { accessTokens } from '../tokens.js'
import { type Backend, createMysqlDatabase, createPgDatabase, pgBouncer } from './databases.js'

export const TEST_SECRET = 'test-secret-of-at-least-32-characters'

/** A store on a database of its own: both closed and dropped by `drop()`. */
function withDatabase(store: ServerStore, database: { url: string; drop(): Promise<void> }) {
  return {
    store,
    url: database.url,
    drop: async () => {
      await store.close()
      await database.drop()
    },
  }
}

/**
 * An opened store with the server's tables, and how to throw it away. With `serverDefaults`,
 * PostgreSQL is opened as the server opens it (`openStorage`: a pool of 10, the default
 * timeout, the change feed) rather than with the tests' patient timeout.
 */
export async function openTestStore(
  backend: Backend,
  serverDefaults = false,
): Promise<{ store: ServerStore; drop(): Promise<void>; url?: string }> {
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
    return withDatabase(store, database)
  }
  if (backend === 'sqlite') {
    const dir = await mkdtemp(join(tmpdir(), 'keyward-server-'))
    const store = await createSqliteKeyStore({ path: join(dir, 'keys.db') })
    await createAppTables(store)
    return {
      store,
      drop: async () => {
        await store.close()
        await rm(dir, { recursive: true, force: true })
      },
    }
  }
  if (backend === 'mysql') {
    const database = await createMysqlDatabase()
    // As the server opens it: the change feed (the cache needs it) and strict revocation.
    const store = await createMysqlKeyStore(
      { connectionString: database.url },
      { changeFeed: true, strictRevocation: true, queryTimeoutMs: 30_000 },
    ).catch(async (error: unknown) => {
      await database.drop()
      throw error
    })
    await createAppTables(store)
    return withDatabase(store, database)
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
  return withDatabase(store, database)
}

/** Keyward's table `name` (`api_keys`, `audit_log`, ...) in `store`'s database. */
export function keywardTable(store: ServerStore, name: string): string {
  return isSqlStore(store) ? store.tables.keys.replace(/api_keys$/, name) : `"${store.schema}".${name}`
}

/**
 * A query written once for the tests' checks: `?` parameters, the server's tables as `app.name`
 * and Keyward's as `keyward.name`, named as in `store`'s database. A column `n` (a count) is read
 * as a number and `active` as a boolean, as every database has its own.
 */
export function testRows(store: ServerStore) {
  const sql = sqlOf(store)
  return async <R = Record<string, unknown>>(text: string, params: readonly unknown[] = []): Promise<R[]> => {
    const named = text
      .replace(/\bapp\.(\w+)/g, (_, name: string) => sql.dialect.table(name))
      .replace(/\bkeyward\.(\w+)/g, (_, name: string) => keywardTable(store, name))
    const rows = await sql.query(named, params)
    return rows.map(
      (row) =>
        Object.fromEntries(
          Object.entries(row).map(([column, value]) => [
            column,
            column === 'n' ? Number(value) : column === 'active' ? Boolean(value) : value,
          ]),
        ) as R,
    )
  }
}

/**
 * Runs `fn` while the database refuses every insert into Keyward's table `table` whose new row
 * meets `when` (SQL on `NEW`): an injected trigger, dropped after.
 */
export async function withFailingInserts(
  t: { store: ServerStore; url?: string },
  table: string,
  when: string,
  fn: () => Promise<void>,
): Promise<void> {
  const { store } = t
  const target = keywardTable(store, table)
  const name = dialectOf(store).name
  const run = async (statements: readonly string[]) => {
    if (name !== 'mysql') {
      for (const statement of statements) await sqlOf(store).execute(statement)
      return
    }
    // A trigger's body is not a prepared statement: a connection of its own runs it as text.
    const connection = await mysql.createConnection({ uri: t.url as string })
    try {
      for (const statement of statements) await connection.query(statement)
    } finally {
      await connection.end()
    }
  }
  const trigger =
    name === 'postgres' ? `"${(store as { schema: string }).schema}".fail_insert` : 'fail_insert'
  await run(
    name === 'postgres'
      ? [
          `CREATE OR REPLACE FUNCTION ${trigger}() RETURNS trigger LANGUAGE plpgsql AS $$
            BEGIN IF ${when} THEN RAISE EXCEPTION 'injected'; END IF; RETURN NEW; END $$`,
          `CREATE TRIGGER fail_insert BEFORE INSERT ON ${target} FOR EACH ROW EXECUTE FUNCTION ${trigger}()`,
        ]
      : name === 'sqlite'
        ? [
            `CREATE TRIGGER fail_insert BEFORE INSERT ON ${target} WHEN ${when} BEGIN SELECT RAISE(ABORT, 'injected'); END`,
          ]
        : [
            `CREATE TRIGGER fail_insert BEFORE INSERT ON ${target} FOR EACH ROW BEGIN
              IF ${when} THEN SIGNAL SQLSTATE '45000' SET MESSAGE_TEXT = 'injected'; END IF; END`,
          ],
  )
  try {
    await fn()
  } finally {
    await run([name === 'postgres' ? `DROP TRIGGER fail_insert ON ${target}` : 'DROP TRIGGER fail_insert'])
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
  readonly store: ServerStore
  /** The server's SQL on the store's database (`?` parameters, its tables by `sql.dialect.table`). */
  readonly sql: Sql
  /** Runs a check's query on the database (see {@link testRows}). */
  rows<R = Record<string, unknown>>(text: string, params?: readonly unknown[]): Promise<R[]>
  /** The database's URL, on PostgreSQL and MySQL. */
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
    sql: sqlOf(store),
    rows: testRows(store),
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
