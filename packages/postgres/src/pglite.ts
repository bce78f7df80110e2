/**
 * The PGlite (embedded Postgres) driver of the Keyward Postgres store.
 *
 * @packageDocumentation
 */
import { PGlite, type PGliteInterface } from '@electric-sql/pglite'
import { KeyChangeHub } from '@keyward/core'
import { DEFAULT_SCHEMA, type PostgresKeyStore, type PostgresKeyStoreOptions } from './base.js'
import { openLocked } from './data-dir-lock.js'
import {
  checkTimeout,
  DEFAULT_QUERY_TIMEOUT_MS,
  QueryTimeoutError,
  type SqlDriver,
  type SqlQueryable,
  type SqlRow,
  withDeadline,
} from './driver.js'
import { changeOf } from './feed-payload.js'
import { openStore } from './migrate.js'
import { CHANGE_CHANNEL } from './schema.js'

export { DataDirInUseError } from './data-dir-lock.js'

/** Options of {@link pgliteDriver}. */
export interface PGliteDriverOptions {
  /**
   * Bound on the wait for an operation to start, in milliseconds. Default 3000. PGlite runs
   * one operation at a time and cannot stop one that runs, so the bound is on the wait for
   * PGlite's turn: an operation whose time passes while it waits never runs (its caller gets
   * a `QueryTimeoutError`, Keyward answers 503), and one that has started is waited for, and
   * its caller gets its result. A timed-out write therefore never lands later.
   */
  readonly queryTimeoutMs?: number
}

/**
 * What the driver needs of a PGlite database: `query` and `transaction` (a `PGlite`
 * instance, or one of its worker or extension variants).
 *
 * @example
 * ```ts
 * const db: PGliteDatabase = await PGlite.create('./.keyward')
 * ```
 */
export type PGliteDatabase = Pick<PGliteInterface, 'query' | 'transaction'> &
  Partial<Pick<PGliteInterface, 'listen'>>

/**
 * A {@link SqlDriver} over an open PGlite database. PGlite is one connection in this
 * process and runs one query or transaction at a time, which is what makes the active-key
 * limit atomic here (the same SQL takes the same row lock too).
 *
 * Every operation, a single write included, runs in a transaction of its own (so statements
 * that cannot run in one, such as `VACUUM`, go to the database directly); the store's own
 * reads, which have no effect, run as they are. That is how the
 * driver knows when PGlite starts it: an operation whose `queryTimeoutMs` passed while it
 * waited for its turn is rolled back before its first statement, and its caller was told
 * it timed out; one that started before its time passed runs to its end, and its caller
 * gets the result, late if it must.
 *
 * @example
 * ```ts
 * import { PGlite } from '@electric-sql/pglite'
 * import { migrate, PostgresKeyStore } from '@keyward/postgres'
 * import { pgliteDriver } from '@keyward/postgres/pglite'
 *
 * const db = await PGlite.create('./.keyward')
 * const driver = pgliteDriver(db)
 * await migrate(driver)
 * const store = new PostgresKeyStore(driver)
 * ```
 */
export function pgliteDriver(db: PGliteDatabase, options: PGliteDriverOptions = {}): SqlDriver {
  if (typeof db?.query !== 'function' || typeof db.transaction !== 'function') {
    throw new TypeError('pgliteDriver: expected a PGlite database.')
  }
  const timeoutMs = checkTimeout('pgliteDriver', options.queryTimeoutMs, DEFAULT_QUERY_TIMEOUT_MS)
  const queryable = (on: Pick<PGliteDatabase, 'query'>): SqlQueryable => ({
    query: async <R extends SqlRow>(text: string, params?: readonly unknown[]) =>
      (await on.query<R>(text, params as unknown[] | undefined)).rows,
  })
  const inTurn = <T>(fn: (tx: SqlQueryable) => Promise<T>): Promise<T> =>
    new Promise<T>((resolve, reject) => {
      let state: 'waiting' | 'started' | 'expired' = 'waiting'
      const timer = setTimeout(() => {
        if (state !== 'waiting') return
        state = 'expired'
        reject(new QueryTimeoutError(timeoutMs))
      }, timeoutMs)
      db.transaction((tx) => {
        // Too late: the caller has its answer. Throwing rolls back what PGlite began.
        if (state === 'expired') return Promise.reject(new QueryTimeoutError(timeoutMs))
        state = 'started'
        clearTimeout(timer)
        return fn(queryable(tx))
      }).then(resolve, (error: unknown) => {
        clearTimeout(timer)
        reject(error)
      })
    })
  // The store's own reads (named statements that begin with SELECT) have no effect to hide: they
  // skip the transaction that tells when an operation starts, the hot path's lookup included.
  const direct = queryable(db)
  const read = <R extends SqlRow>(text: string, params?: readonly unknown[]): Promise<R[]> =>
    withDeadline(direct.query<R>(text, params), timeoutMs, () => new QueryTimeoutError(timeoutMs))
  return {
    query: (text, params, queryOptions) =>
      queryOptions?.name !== undefined && READ.test(text)
        ? read(text, params)
        : inTurn((tx) => tx.query(text, params)),
    transaction: inTurn,
  }
}

const READ = /^\s*SELECT\b/i

/** Where {@link createPGliteKeyStore} keeps its data: a directory, or your open database. */
export type PGliteKeyStoreSource =
  | {
      /** A directory for the data (created if missing); in memory when omitted. */
      readonly dataDir?: string
    }
  | { readonly db: PGliteDatabase }

/** Options of {@link createPGliteKeyStore}. */
export interface PGliteKeyStoreOptions extends PostgresKeyStoreOptions, PGliteDriverOptions {
  /** Whether to bring the schema up to date first (see `migrate`). Default `true`. */
  readonly migrate?: boolean
  /**
   * How long to wait, in milliseconds, for another live process to close the data directory
   * (the old process of a watch-mode restart) before refusing it with `DataDirInUseError`.
   * Default 3000. A directory whose process is gone (killed, crashed) is taken over at once.
   */
  readonly dataDirWaitMs?: number
}

/**
 * Builds a {@link PostgresKeyStore} on embedded PGlite and, unless `migrate: false`, brings
 * its schema up to date. With `dataDir` (or nothing, for memory) it opens the database
 * itself and `store.close()` closes it; a `db` you pass stays yours. A `dataDir` is locked
 * while the store is open: one that another live process (or this one) has open is refused
 * with {@link DataDirInUseError}, after waiting up to `dataDirWaitMs` for it to be closed; one
 * left locked by a process that is gone (`kill -9`, a crash) is taken over.
 *
 * @example
 * ```ts
 * import { createKeyward } from '@keyward/core'
 * import { createPGliteKeyStore } from '@keyward/postgres/pglite'
 *
 * const store = await createPGliteKeyStore({ dataDir: './.keyward' })
 * const keyward = createKeyward({ store })
 * ```
 */
export async function createPGliteKeyStore(
  source: PGliteKeyStoreSource = {},
  options: PGliteKeyStoreOptions = {},
): Promise<PostgresKeyStore> {
  const driverOptions = { queryTimeoutMs: options.queryTimeoutMs }
  let driver: SqlDriver
  let database: PGliteDatabase
  if ('db' in source && source.db) {
    database = source.db
    driver = pgliteDriver(database, driverOptions)
  } else {
    const dataDir = (source as { dataDir?: string }).dataDir
    if (dataDir !== undefined && typeof dataDir !== 'string') {
      throw new TypeError('createPGliteKeyStore: option `dataDir` must be a directory path.')
    }
    checkTimeout('createPGliteKeyStore', options.queryTimeoutMs, DEFAULT_QUERY_TIMEOUT_MS)
    const { db, close } = await openLocked(dataDir, options.dataDirWaitMs, () => PGlite.create(dataDir))
    driver = { ...pgliteDriver(db, driverOptions), close }
    database = db
  }
  let changes: Awaited<ReturnType<typeof pgliteChangeFeed>>
  try {
    changes = await pgliteChangeFeed(database, options.schema ?? DEFAULT_SCHEMA)
  } catch (error) {
    await driver.close?.()
    throw error
  }
  return openStore(driver, { ...options, changes })
}

// PGlite is one process: the trigger's notifications arrive in this process, for writes made
// by any connection to it (the store, your SQL, a transaction). The feed stays connected.
async function pgliteChangeFeed(db: PGliteDatabase, schema: string) {
  if (typeof db.listen !== 'function') return undefined
  const feed = new KeyChangeHub()
  const unlisten = await db.listen(CHANGE_CHANNEL, (payload) => {
    const change = changeOf(payload, schema)
    if (change) feed.publish(change)
  })
  feed.publish({ type: 'connected' })
  return Object.assign(feed, {
    close: async () => {
      await unlisten().catch(() => {})
      feed.publish({ type: 'disconnected' })
    },
  })
}
