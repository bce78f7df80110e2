/**
 * The node-postgres (`pg`) driver of the Keyward Postgres store.
 *
 * @packageDocumentation
 */

import pg from 'pg'
import type { PostgresKeyStore, PostgresKeyStoreOptions } from './base.js'
import { type ClientDriverOptions, clientDriver } from './client-driver.js'
import { checkConnectionString } from './connection-string.js'
import {
  checkTimeout,
  DEFAULT_QUERY_TIMEOUT_MS,
  type SqlDriver,
  type SqlQueryable,
  type SqlQueryOptions,
  type SqlRow,
} from './driver.js'
import { type StrictRevocationOptions, strictSettings } from './fences.js'
import { openStore } from './migrate.js'
import { cancelStatement } from './pg-cancel.js'
import { type PgChangeFeedOptions, pgChangeFeed } from './pg-feed.js'
import { type Acquire, BEGIN, COMMIT, leased, leasesOf, type Query, ROLLBACK, SETTLE_MS } from './pg-lease.js'
import { explainPoolerError } from './pooler.js'

export type { ClientDriverOptions } from './client-driver.js'
export { type PgChangeFeed, type PgChangeFeedOptions, pgChangeFeed } from './pg-feed.js'
export { ClientGivenUpError } from './pg-lease.js'
export type { RelayRedisClient } from './redis-relay.js'
export type { PgChangeFeedRedis } from './relay-feed.js'

/** Options of {@link pgDriver}. */
export interface PgDriverOptions {
  /**
   * Bound on one store operation (a query, or a whole transaction), waiting for a connection
   * included, in milliseconds. Default 3000. When it passes, the operation rejects with a
   * `QueryTimeoutError` (Keyward answers 503 `store_unavailable`) and has no effect: nothing
   * more of it is sent, no COMMIT among it, the statement under way is cancelled and the
   * transaction rolled back, and the connection serves the next operation. Only a COMMIT (or
   * a single statement) already on its way is waited for, up to 1 s more, and its answer is
   * the caller's (see the Postgres guide's "Timeouts").
   */
  readonly queryTimeoutMs?: number
  /**
   * Whether lookups and writes run as named prepared statements, parsed once per connection.
   * Default `true`, the fastest. Set `false` behind a transaction pooler (PgBouncer in
   * transaction mode before 1.21, Supavisor, RDS Proxy, ...), which gives each transaction
   * whichever server connection is free: a statement prepared on one is missing on the next
   * ("prepared statement ... does not exist") or already there ("... already exists").
   * Statements then go unnamed (parsed on every call), which every pooler passes on.
   */
  readonly preparedStatements?: boolean
}

/**
 * A {@link SqlDriver} over node-postgres: a `Pool` (recommended; connections that fail are
 * replaced, so the store recovers by itself when the database returns) or one `Client`
 * (operations then take turns on it, and it does not reconnect). Lookups by hash run as
 * prepared statements (unless `preparedStatements: false`); every operation is bounded by
 * `queryTimeoutMs`, and each transaction on the server too (`SET LOCAL statement_timeout`). It
 * sets nothing on the session, so it works through transaction poolers (see the Postgres guide).
 *
 * After a timeout a connection is left with no transaction open: the driver rolls it back,
 * or, when the database does not answer that within 1 s, closes it (a pool replaces it; a
 * lone Client is then given up, and every later operation rejects with `ClientGivenUpError`).
 *
 * A pool you pass stays yours: give it an `error` listener, as node-postgres asks, and end it.
 *
 * @example
 * ```ts
 * import pg from 'pg'
 * import { migrate, PostgresKeyStore } from '@keyward/postgres'
 * import { pgDriver } from '@keyward/postgres/pg'
 *
 * const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL })
 * const driver = pgDriver(pool, { queryTimeoutMs: 2000 })
 * await migrate(driver)
 * const store = new PostgresKeyStore(driver)
 * ```
 */
export function pgDriver(db: pg.Pool | pg.ClientBase, options: PgDriverOptions = {}): SqlDriver {
  if (typeof db?.query !== 'function' || typeof db.connect !== 'function') {
    throw new TypeError('pgDriver: expected a pg Pool or Client.')
  }
  const timeoutMs = checkTimeout('pgDriver', options.queryTimeoutMs, DEFAULT_QUERY_TIMEOUT_MS)
  const prepared = options.preparedStatements ?? true
  if (typeof prepared !== 'boolean') {
    throw new TypeError(
      `pgDriver: option \`preparedStatements\` must be true or false, got ${String(prepared)}.`,
    )
  }
  const acquire = explained(leasesOf(db))
  const explain: (query: Query) => Query = prepared ? explainedQuery : unnamedQuery
  // One statement, one round trip: the transaction's statements are bounded on the server too,
  // without touching the session (a pooler hands the connection to others after COMMIT).
  const begin = `${BEGIN}; SET LOCAL statement_timeout = ${timeoutMs}`
  const pool = db instanceof pg.Pool ? db : undefined
  return {
    ...(pool
      ? { poolStats: () => ({ total: pool.totalCount, idle: pool.idleCount, waiting: pool.waitingCount }) }
      : {}),
    query: <R extends SqlRow>(text: string, params?: readonly unknown[], queryOptions?: SqlQueryOptions) =>
      leased<SqlRow[]>(acquire, timeoutMs, (query, done) =>
        explain(query)(text, params, queryOptions?.name, done),
      ) as Promise<R[]>,
    transaction: <T>(fn: (tx: SqlQueryable) => Promise<T>) =>
      leased<T>(acquire, timeoutMs, (query, done) => {
        inTransaction(explain(query), begin, fn).then((value) => done(undefined, value), done)
      }),
  }
}

/**
 * A {@link SqlDriver} on a node-postgres client inside a transaction that your application
 * opened (`BEGIN` on a client of `pool.connect()`, or a lone `Client`): everything the store
 * does joins that transaction, so the key commits with your rows, or neither does. The store's
 * own transactions run inside yours; COMMIT and ROLLBACK stay yours. A statement that outlives
 * `queryTimeoutMs` is cancelled on the server and rejects with `QueryTimeoutError`: roll your
 * transaction back then. On a pool of Keyward's, `store.transaction` does the same for you.
 *
 * @example
 * ```ts
 * const client = await pool.connect()
 * try {
 *   await client.query('BEGIN')
 *   await client.query('INSERT INTO app.projects (id, name) VALUES ($1, $2)', [id, name])
 *   const store = new PostgresKeyStore(pgTransactionDriver(client))
 *   const { key } = await createKeyward({ store }).issueProjectKey(id, { name: 'default' })
 *   await client.query('COMMIT')
 * } catch (error) {
 *   await client.query('ROLLBACK')
 *   throw error
 * } finally {
 *   client.release()
 * }
 * ```
 */
export function pgTransactionDriver(client: pg.ClientBase, options: ClientDriverOptions = {}): SqlDriver {
  if (typeof client?.query !== 'function' || typeof (client as unknown as pg.Pool).totalCount === 'number') {
    throw new TypeError('pgTransactionDriver: expected a pg client in a transaction (not a Pool).')
  }
  return clientDriver<pg.ClientBase>(
    'pgTransactionDriver',
    client,
    {
      query: (on, text, values) => ({
        rows: on.query<SqlRow>({ text, values }).then((result) => result.rows),
        cancel: () => void cancelStatement(on, SETTLE_MS),
      }),
      transaction: undefined,
    },
    options,
  )
}

/** Runs statements as given (named ones prepared); refusals are explained (see `PoolerError`). */
const explainedQuery =
  (query: Query): Query =>
  (text, values, name, done) =>
    query(text, values, name, (error, rows) =>
      error ? done(explainPoolerError(error, name)) : done(undefined, rows),
    )

/** Runs every statement unnamed: nothing is prepared on the server connection. */
const unnamedQuery =
  (query: Query): Query =>
  (text, values, _name, done) =>
    query(text, values, undefined, (error, rows) =>
      error ? done(explainPoolerError(error)) : done(undefined, rows),
    )

/** Connections whose refusal by a pooler (a startup parameter) is explained. */
const explained =
  (acquire: Acquire): Acquire =>
  (done) =>
    acquire((error, lease) => (error ? done(explainPoolerError(error)) : done(undefined, lease)))

async function inTransaction<T>(
  query: Query,
  begin: string,
  fn: (tx: SqlQueryable) => Promise<T>,
): Promise<T> {
  const run = <R extends SqlRow>(text: string, params?: readonly unknown[], options?: SqlQueryOptions) =>
    new Promise<R[]>((resolve, reject) =>
      query(text, params, options?.name, (error, rows) => (error ? reject(error) : resolve(rows as R[]))),
    )
  await run(begin)
  try {
    const result = await fn({ query: run })
    await run(COMMIT)
    return result
  } catch (error) {
    // On a broken connection there is nothing to roll back: closing it aborts the transaction.
    // After a timeout the lease has rolled back already.
    await run(ROLLBACK).catch(() => {})
    throw error
  }
}

/** Where {@link createPgKeyStore} finds the database: your pool, or a connection string. */
export type PgKeyStoreSource =
  | { readonly pool: pg.Pool }
  | {
      readonly connectionString: string
      /** More settings of the pool the store makes (size, TLS, ...). */
      readonly poolConfig?: Omit<pg.PoolConfig, 'connectionString'>
    }

/** Options of {@link createPgKeyStore}. */
export interface PgKeyStoreOptions extends PostgresKeyStoreOptions, PgDriverOptions {
  /** Whether to bring the schema up to date first (see `migrate`). Default `true`. */
  readonly migrate?: boolean
  /**
   * Listen for changes to key records ({@link pgChangeFeed}), so that a verification cache
   * (`createKeyward({ store, cache: {} })`) hears every write, from any process. `true`
   * listens on the store's `connectionString`; behind a transaction pooler, or with a
   * `pool` of your own, give `{ connectionString }` of a direct connection (required with
   * `preparedStatements: false`). Default: no feed, unless there are `replicas`, which need it.
   */
  readonly changeFeed?: boolean | StoreChangeFeedOptions
  /**
   * Streaming standbys for lookups by hash: connection strings (a pool is made for each, with
   * the settings of `poolConfig`, and `store.close()` ends it) or pools of yours. Writes, the
   * limit and the change feed stay on the primary; a store with replicas has a change feed.
   * See the Postgres guide's "Read replicas".
   */
  readonly replicas?: readonly (string | pg.Pool)[]
  /**
   * Strict revocation (see `PostgresKeyStoreOptions.strictRevocation`): `true`, `false`, or
   * `{ boundMs }` (default 250). Default: on when there are `replicas`. The store's change feed
   * then sends fences, and a revocation's confirmation waits at most `queryTimeoutMs`.
   *
   * @example
   * ```ts
   * // A cache without replicas, whose revocations are refused everywhere once acknowledged:
   * const store = await createPgKeyStore(source, { strictRevocation: { boundMs: 250 } })
   * const keyward = createKeyward({ store, cache: {} })
   * ```
   */
  readonly strictRevocation?: boolean | StrictRevocationOptions
  /**
   * Bound on one lookup on a replica, in milliseconds; past it the lookup goes to the primary.
   * Default 1000 (or `queryTimeoutMs` if smaller).
   */
  readonly replicaQueryTimeoutMs?: number
}

/** How events name a database: host, port and database, never a password. */
function describeDatabase(source: string | pg.Pool): string {
  if (typeof source !== 'string') {
    const { host, port, database } = source.options
    return `${host ?? 'localhost'}:${port ?? 5432}/${database ?? ''}`
  }
  try {
    const { hostname, port, pathname } = new URL(source)
    return `${hostname}:${port || 5432}${pathname}`
  } catch {
    return 'replica'
  }
}

/**
 * The change feed settings of {@link createPgKeyStore}: those of {@link pgChangeFeed}, the URL optional.
 *
 * @example
 * ```ts
 * const changeFeed: StoreChangeFeedOptions = { connectionString: process.env.DIRECT_URL!, heartbeatMs: 2000 }
 * const store = await createPgKeyStore({ connectionString: process.env.POOLER_URL! }, { changeFeed })
 * ```
 */
export type StoreChangeFeedOptions = Omit<PgChangeFeedOptions, 'schema' | 'connectionString'> & {
  /** A direct URL to the primary. Default: the store's `connectionString`. */
  readonly connectionString?: string
}

/**
 * Builds a {@link PostgresKeyStore} on node-postgres and, unless `migrate: false`, brings
 * its schema up to date. From a connection string it makes a pool of its own (10
 * connections unless `poolConfig.max` says otherwise, with a connection timeout of
 * `queryTimeoutMs`) that `store.close()` ends. It sends no startup parameters and keeps no
 * session state, so it works through PgBouncer in transaction mode and other transaction
 * poolers: there, set `preparedStatements: false` and give the change feed a direct URL.
 *
 * @example
 * ```ts
 * import { createKeyward } from '@keyward/core'
 * import { createPgKeyStore } from '@keyward/postgres/pg'
 *
 * const store = await createPgKeyStore({ connectionString: process.env.DATABASE_URL! })
 * const keyward = createKeyward({ store })
 * // ...
 * await store.close()
 * ```
 */
export async function createPgKeyStore(
  source: PgKeyStoreSource,
  options: PgKeyStoreOptions = {},
): Promise<PostgresKeyStore> {
  const timeoutMs = checkTimeout('createPgKeyStore', options.queryTimeoutMs, DEFAULT_QUERY_TIMEOUT_MS)
  const replicaTimeoutMs = checkTimeout(
    'createPgKeyStore',
    options.replicaQueryTimeoutMs,
    Math.min(1000, timeoutMs),
  )
  const replicas = options.replicas ?? []
  if (!Array.isArray(replicas) || replicas.some((r) => typeof r !== 'string' && !(r instanceof pg.Pool))) {
    throw new TypeError(
      'createPgKeyStore: option `replicas` must be an array of connection strings or pg Pools.',
    )
  }
  if (options.preparedStatements !== undefined && typeof options.preparedStatements !== 'boolean') {
    throw new TypeError(
      `createPgKeyStore: option \`preparedStatements\` must be true or false, got ${String(options.preparedStatements)}.`,
    )
  }
  if ('connectionString' in source && source.connectionString !== undefined) {
    checkConnectionString('createPgKeyStore', 'connectionString', source.connectionString)
  }
  replicas.forEach((replica, i) => {
    if (typeof replica === 'string') checkConnectionString('createPgKeyStore', `replicas[${i}]`, replica)
  })
  const feedUrl = typeof options.changeFeed === 'object' ? options.changeFeed.connectionString : undefined
  if (feedUrl !== undefined) checkConnectionString('createPgKeyStore', 'changeFeed.connectionString', feedUrl)
  const strictRevocation = strictOf(options, timeoutMs)
  const changes = changeFeedOf(source, options, strictRevocation)
  const poolConfig = 'poolConfig' in source ? source.poolConfig : undefined
  const { preparedStatements } = options
  const driverOf = (db: string | pg.Pool, queryTimeoutMs: number): SqlDriver => {
    if (typeof db !== 'string') return pgDriver(db, { queryTimeoutMs, preparedStatements })
    // No startup parameters (a pooler refuses them): transactions set their timeout themselves.
    const pool = new pg.Pool({
      max: 10,
      connectionTimeoutMillis: queryTimeoutMs,
      ...poolConfig,
      connectionString: db,
    })
    // An idle connection that breaks (the database restarts, say) is dropped by the pool and
    // replaced on the next operation; the failure reaches the caller of that operation.
    pool.on('error', () => {})
    return { ...pgDriver(pool, { queryTimeoutMs, preparedStatements }), close: () => pool.end() }
  }
  let driver: SqlDriver
  if ('pool' in source && source.pool) {
    driver = driverOf(source.pool, timeoutMs)
  } else if ('connectionString' in source && typeof source.connectionString === 'string') {
    driver = driverOf(source.connectionString, timeoutMs)
  } else {
    throw new TypeError('createPgKeyStore: pass `{ pool }` or `{ connectionString }`.')
  }
  const readReplicas = replicas.map((replica) => ({
    name: describeDatabase(replica),
    driver: driverOf(replica, replicaTimeoutMs),
  }))
  return openStore(driver, { ...options, changes, readReplicas, strictRevocation })
}

/** Strict revocation: on by default with replicas; its confirmation waits `queryTimeoutMs`. */
function strictOf(options: PgKeyStoreOptions, timeoutMs: number): false | StrictRevocationOptions {
  const settings = strictSettings(
    'createPgKeyStore',
    options.strictRevocation ?? (options.replicas?.length ?? 0) > 0,
  )
  return settings ? { confirmTimeoutMs: timeoutMs, ...settings } : false
}

function changeFeedOf(
  source: PgKeyStoreSource,
  options: PgKeyStoreOptions,
  strict: false | StrictRevocationOptions,
) {
  const needed = (options.replicas?.length ?? 0) > 0 || strict !== false
  const wanted = options.changeFeed ?? (needed ? true : undefined)
  if (wanted === undefined || wanted === false) {
    if (options.replicas?.length) {
      throw new TypeError(
        'createPgKeyStore: option `replicas` needs the change feed (`changeFeed` must not be false).',
      )
    }
    if (strict !== false) {
      throw new TypeError(
        'createPgKeyStore: option `strictRevocation` needs the change feed (`changeFeed` must not be false).',
      )
    }
    return undefined
  }
  const settings: StoreChangeFeedOptions = wanted === true ? {} : wanted
  if (options.preparedStatements === false && settings.connectionString === undefined) {
    // Notifications reach the session that listens; a transaction pooler hands it to others.
    throw new TypeError(
      'createPgKeyStore: with `preparedStatements: false` (a transaction pooler), option `changeFeed` ' +
        'needs `{ connectionString }` of a direct connection to the primary: LISTEN does not work ' +
        'through a transaction pooler.',
    )
  }
  const connectionString =
    settings.connectionString ?? ('connectionString' in source ? source.connectionString : undefined)
  if (typeof connectionString !== 'string') {
    throw new TypeError(
      'createPgKeyStore: option `changeFeed` needs `{ connectionString }` (a direct URL) when the store is given a pool.',
    )
  }
  return pgChangeFeed({
    ...(options.telemetry ? { telemetry: options.telemetry } : {}),
    ...settings,
    connectionString,
    schema: options.schema,
    ...(strict === false ? {} : { freshnessBoundMs: strict.boundMs }),
  })
}
