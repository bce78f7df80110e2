/**
 * The PGlite (embedded Postgres) driver of the Keyward Postgres store.
 *
 * @packageDocumentation
 */
import { PGlite, type PGliteInterface } from '@electric-sql/pglite'
import type { PostgresKeyStore, PostgresKeyStoreOptions } from './base.js'
import {
  checkTimeout,
  DEFAULT_QUERY_TIMEOUT_MS,
  type SqlDriver,
  type SqlQueryable,
  type SqlRow,
  withTimeout,
} from './driver.js'
import { openStore } from './migrate.js'

/** Options of {@link pgliteDriver}. */
export interface PGliteDriverOptions {
  /**
   * Bound on the wait for an operation, in milliseconds. Default 3000. PGlite runs one
   * operation at a time, so the wait is mostly for the ones before it.
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
export type PGliteDatabase = Pick<PGliteInterface, 'query' | 'transaction'>

/**
 * A {@link SqlDriver} over an open PGlite database. PGlite is one connection in this
 * process and runs one query or transaction at a time, which is what makes the active-key
 * limit atomic here (the same SQL takes the same row lock too).
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
  const direct = queryable(db)
  return {
    query: (text, params) => withTimeout(direct.query(text, params), timeoutMs),
    transaction: (fn) =>
      withTimeout(
        db.transaction((tx) => fn(queryable(tx))),
        timeoutMs,
      ),
  }
}

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
}

/**
 * Builds a {@link PostgresKeyStore} on embedded PGlite and, unless `migrate: false`, brings
 * its schema up to date. With `dataDir` (or nothing, for memory) it opens the database
 * itself and `store.close()` closes it; a `db` you pass stays yours.
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
  if ('db' in source && source.db) {
    driver = pgliteDriver(source.db, driverOptions)
  } else {
    const dataDir = (source as { dataDir?: string }).dataDir
    if (dataDir !== undefined && typeof dataDir !== 'string') {
      throw new TypeError('createPGliteKeyStore: option `dataDir` must be a directory path.')
    }
    checkTimeout('createPGliteKeyStore', options.queryTimeoutMs, DEFAULT_QUERY_TIMEOUT_MS)
    const db = await PGlite.create(dataDir)
    driver = { ...pgliteDriver(db, driverOptions), close: () => db.close() }
  }
  return openStore(driver, options)
}
