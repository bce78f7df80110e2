import type { KeyStore } from '@keyward/core'
import { usageError } from './exit.js'

/**
 * Where the operator's store is: an embedded PGlite data directory, or a PostgreSQL server.
 */
export type StoreLocation = { readonly dataDir: string } | { readonly pgUrl: string }

/** A store the CLI opened; it is closed when the command ends. */
export interface OpenedStore extends KeyStore {
  close(): Promise<void>
}

/** Opens the store at a location. Injectable, so that tests and embedders can bring their own. */
export type OpenStore = (location: StoreLocation) => Promise<OpenedStore>

/**
 * Opens the store at `location`: PGlite for `dataDir`, PostgreSQL for `pgUrl`. This is the
 * only place where the CLI reaches a store driver.
 *
 * @example
 * ```ts
 * const store = await openStore({ dataDir: '.keyward' })
 * try {
 *   await createKeyward({ store }).listKeys({ type: 'developer', id: 'dev_1' })
 * } finally {
 *   await store.close()
 * }
 * ```
 */
export async function openStore(location: StoreLocation): Promise<OpenedStore> {
  const which = 'dataDir' in location ? 'PGlite (--data-dir)' : 'PostgreSQL (--pg-url)'
  throw new Error(`The ${which} store is not wired into this build of keyward yet.`)
}

/** The environment variables the CLI reads a store location from, as the reference server does. */
export const STORE_ENV = { dataDir: 'KEYWARD_DATA_DIR', pgUrl: 'KEYWARD_PG_URL' } as const

/**
 * @internal The store location from the options, else from the environment (PostgreSQL
 * first, as the server does). Both options at once, or neither anywhere, is a usage error.
 */
export function resolveStoreLocation(
  options: { readonly 'data-dir'?: string | undefined; readonly 'pg-url'?: string | undefined },
  env: Readonly<Record<string, string | undefined>>,
): StoreLocation {
  const dataDir = options['data-dir']
  const pgUrl = options['pg-url']
  if (dataDir !== undefined && pgUrl !== undefined) {
    throw usageError('Give either --data-dir or --pg-url, not both.')
  }
  if (dataDir === '' || pgUrl === '')
    throw usageError(`${dataDir === '' ? '--data-dir' : '--pg-url'} is empty.`)
  if (dataDir !== undefined) return { dataDir }
  if (pgUrl !== undefined) return { pgUrl }
  const envPgUrl = env[STORE_ENV.pgUrl]
  if (envPgUrl) return { pgUrl: envPgUrl }
  const envDataDir = env[STORE_ENV.dataDir]
  if (envDataDir) return { dataDir: envDataDir }
  throw usageError(
    `Say which store to use: --data-dir DIR (embedded PGlite, e.g. the server's .keyward) or --pg-url URL ` +
      `(PostgreSQL), or set ${STORE_ENV.dataDir} or ${STORE_ENV.pgUrl}.`,
  )
}
