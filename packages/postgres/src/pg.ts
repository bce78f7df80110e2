/**
 * The node-postgres (`pg`) driver of the Keyward Postgres store.
 *
 * @packageDocumentation
 */
import pg from 'pg'
import type { PostgresKeyStore, PostgresKeyStoreOptions } from './base.js'
import {
  checkTimeout,
  DEFAULT_QUERY_TIMEOUT_MS,
  QueryTimeoutError,
  type SqlDriver,
  type SqlQueryable,
  type SqlRow,
} from './driver.js'
import { openStore } from './migrate.js'

/** Options of {@link pgDriver}. */
export interface PgDriverOptions {
  /**
   * Bound on one store operation (a query, or a whole transaction), waiting for a connection
   * included, in milliseconds. Default 3000. When it passes, the operation rejects (Keyward
   * answers 503 `store_unavailable`) and the connection it held is closed.
   */
  readonly queryTimeoutMs?: number
}

/** A connection checked out for one operation. */
interface Lease {
  readonly client: pg.ClientBase
  /**
   * Whether an operation that timed out gives the connection up at once (a pool's: it is
   * closed and replaced) or keeps it until the operation ends (a lone client: the next
   * operation must not start in the middle of this one).
   */
  readonly closeOnTimeout: boolean
  /** Gives the connection back; with `broken`, a pool closes it instead of reusing it. */
  release(broken?: Error): void
}

const isPool = (db: pg.Pool | pg.ClientBase): db is pg.Pool => typeof (db as pg.Pool).totalCount === 'number'

function poolLeases(pool: pg.Pool): () => Promise<Lease> {
  return async () => {
    const client = await pool.connect()
    return { client, closeOnTimeout: true, release: (broken) => client.release(broken) }
  }
}

// One connection runs one operation at a time: a lookup must never run inside another
// caller's open transaction. Operations take turns, in order.
function clientLeases(client: pg.ClientBase): () => Promise<Lease> {
  let tail: Promise<void> = Promise.resolve()
  return () => {
    const previous = tail
    let release!: () => void
    tail = new Promise<void>((resolve) => {
      release = resolve
    })
    return previous.then(() => ({ client, closeOnTimeout: false, release }))
  }
}

type Run = (text: string, values?: readonly unknown[], name?: string) => Promise<SqlRow[]>

// Errors the server reports carry a severity; after any other error (a lost connection,
// a reset, a timeout) the connection is not reused.
const reportedByServer = (error: unknown) => typeof (error as { severity?: unknown })?.severity === 'string'

/**
 * Runs `use` on a leased connection, bounded by `timeoutMs` from the start (waiting for the
 * connection included). When the time passes first, the caller gets a
 * {@link QueryTimeoutError} at once.
 */
function leased<T>(
  acquire: () => Promise<Lease>,
  timeoutMs: number,
  use: (run: Run) => Promise<T>,
): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    let lease: Lease | undefined
    let broken: Error | undefined
    let expired: QueryTimeoutError | undefined
    let released = false
    const onError = (error: Error) => {
      broken ??= error
    }
    const release = () => {
      if (released || !lease) return
      released = true
      lease.client.removeListener('error', onError)
      lease.release(broken)
    }
    const timer = setTimeout(() => {
      expired = new QueryTimeoutError(timeoutMs)
      reject(expired)
      if (lease?.closeOnTimeout) {
        broken ??= expired
        release()
      }
    }, timeoutMs)
    const run: Run = async (text, values, name) => {
      if (expired || broken) throw expired ?? broken
      try {
        return (await lease!.client.query({ text, values: values as unknown[] | undefined, name })).rows
      } catch (error) {
        if (!reportedByServer(error)) broken ??= error as Error
        throw error
      }
    }
    const settle = (outcome: () => void) => {
      clearTimeout(timer)
      release()
      outcome()
    }
    acquire().then(
      (acquired) => {
        lease = acquired
        // Too late: the caller has its answer. The connection itself is fine.
        if (expired) return release()
        lease.client.on('error', onError)
        use(run).then(
          (value) => settle(() => resolve(value)),
          (error: unknown) => settle(() => reject(error)),
        )
      },
      (error: unknown) => settle(() => reject(error)),
    )
  })
}

/**
 * A {@link SqlDriver} over node-postgres: a `Pool` (recommended; connections that fail are
 * replaced, so the store recovers by itself when the database returns) or one `Client`
 * (operations then take turns on it, and it does not reconnect). Lookups by hash run as
 * prepared statements; every operation is bounded by `queryTimeoutMs`.
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
  const acquire = isPool(db) ? poolLeases(db) : clientLeases(db)
  return {
    query: <R extends SqlRow>(text: string, params?: readonly unknown[], queryOptions?: { name?: string }) =>
      leased(acquire, timeoutMs, (run) => run(text, params, queryOptions?.name) as Promise<R[]>),
    transaction: <T>(fn: (tx: SqlQueryable) => Promise<T>) =>
      leased(acquire, timeoutMs, async (run) => {
        await run('BEGIN ISOLATION LEVEL READ COMMITTED')
        const tx: SqlQueryable = {
          query: <R extends SqlRow>(text: string, params?: readonly unknown[], o?: { name?: string }) =>
            run(text, params, o?.name) as Promise<R[]>,
        }
        try {
          const result = await fn(tx)
          await run('COMMIT')
          return result
        } catch (error) {
          // On a broken connection there is nothing to roll back: closing it aborts the transaction.
          await run('ROLLBACK').catch(() => {})
          throw error
        }
      }),
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
}

/**
 * Builds a {@link PostgresKeyStore} on node-postgres and, unless `migrate: false`, brings
 * its schema up to date. From a connection string it makes a pool of its own (10
 * connections unless `poolConfig.max` says otherwise, with connection and statement
 * timeouts of `queryTimeoutMs`) that `store.close()` ends.
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
  let driver: SqlDriver
  if ('pool' in source && source.pool) {
    driver = pgDriver(source.pool, { queryTimeoutMs: timeoutMs })
  } else if ('connectionString' in source && typeof source.connectionString === 'string') {
    const pool = new pg.Pool({
      max: 10,
      connectionTimeoutMillis: timeoutMs,
      statement_timeout: timeoutMs,
      ...source.poolConfig,
      connectionString: source.connectionString,
    })
    // An idle connection that breaks (the database restarts, say) is dropped by the pool and
    // replaced on the next operation; the failure reaches the caller of that operation.
    pool.on('error', () => {})
    driver = { ...pgDriver(pool, { queryTimeoutMs: timeoutMs }), close: () => pool.end() }
  } else {
    throw new TypeError('createPgKeyStore: pass `{ pool }` or `{ connectionString }`.')
  }
  return openStore(driver, options)
}
