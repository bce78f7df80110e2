import { stat } from 'node:fs/promises'
import type { KeyStore } from '@keyward/core'
import { connectionStringProblem, PG_URL_EXAMPLE } from '@keyward/postgres'
import { usageError } from './exit.js'

/**
 * Where the operator's store is: an embedded PGlite data directory, or a PostgreSQL server;
 * `schema` names the SQL schema of Keyward's tables when it is not the default `keyward`;
 * `preparedStatements: false` for PostgreSQL behind a transaction pooler (PgBouncer in
 * transaction mode, ...); `revocationBoundMs` for strict revocation, as the servers that read
 * the database use it (a revocation returns that long after its commit, once confirmed), with
 * `listenUrl` for its change feed behind a transaction pooler.
 */
export type StoreLocation =
  | { readonly dataDir: string; readonly schema?: string; readonly queryTimeoutMs?: number }
  | {
      readonly pgUrl: string
      readonly schema?: string
      readonly queryTimeoutMs?: number
      readonly preparedStatements?: boolean
      readonly revocationBoundMs?: number
      readonly listenUrl?: string
    }

/** A store the CLI opened; it is closed when the command ends. */
export interface OpenedStore extends KeyStore {
  close(): Promise<void>
}

/** Opens the store at a location. Injectable, so that tests and embedders can bring their own. */
export type OpenStore = (location: StoreLocation) => Promise<OpenedStore>

/**
 * Opens the store at `location` with `@keyward/postgres`: PGlite for `dataDir`, PostgreSQL
 * for `pgUrl`, and brings its schema up to date. This is the only place where the CLI reaches
 * a store driver, and it loads the driver only when called, so that the offline commands never
 * load one. Every operation is bounded by the store's query timeout (`queryTimeoutMs`, else 3
 * seconds), so an unreachable database fails the command instead of hanging it.
 *
 * A PGlite directory belongs to one process: `createPGliteKeyStore` refuses it while another
 * process has it open (`DataDirInUseError`). A directory that does not exist is refused here
 * rather than created, so that a mistyped path cannot become a new, empty store.
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
  const options = {
    ...(location.schema === undefined ? {} : { schema: location.schema }),
    ...(location.queryTimeoutMs === undefined ? {} : { queryTimeoutMs: location.queryTimeoutMs }),
  }
  if ('pgUrl' in location) {
    const { createPgKeyStore } = await import('@keyward/postgres/pg')
    const { preparedStatements, revocationBoundMs, listenUrl } = location
    const strict =
      revocationBoundMs === undefined
        ? {}
        : {
            strictRevocation: { boundMs: revocationBoundMs },
            changeFeed: listenUrl === undefined ? true : { connectionString: listenUrl },
          }
    // One connection: a command runs its operations one after the other.
    return createPgKeyStore(
      { connectionString: location.pgUrl, poolConfig: { max: 1 } },
      { ...options, ...(preparedStatements === undefined ? {} : { preparedStatements }), ...strict },
    )
  }
  await checkDataDir(location.dataDir)
  const { createPGliteKeyStore } = await import('@keyward/postgres/pglite')
  return createPGliteKeyStore({ dataDir: location.dataDir }, options)
}

/** Refuses a PGlite data directory that does not exist. */
async function checkDataDir(dataDir: string): Promise<void> {
  const found = await stat(dataDir).catch(() => null)
  if (!found?.isDirectory()) {
    throw new Error(
      `No PGlite data directory at ${dataDir}. Start the server once to create it, or create an ` +
        'empty directory to start a new store there.',
    )
  }
}

/**
 * The environment variables the CLI reads a store location from: the reference server's
 * `KEYWARD_DATA_DIR` and `KEYWARD_PG_URL`, `KEYWARD_PG_SCHEMA` for a schema other than `keyward`,
 * and `KEYWARD_PG_PREPARED_STATEMENTS=off` behind a transaction pooler. Like the server, it
 * revokes on PostgreSQL under strict revocation (bound 250 ms) unless `KEYWARD_CACHE=off` and no
 * `KEYWARD_PG_REPLICA_URLS` are set, or as `KEYWARD_REVOCATION_BOUND_MS` says (a bound, or `off`),
 * with its change feed on `KEYWARD_PG_LISTEN_URL` when given; it reads no replica.
 *
 * @example
 * ```ts
 * const url = process.env[STORE_ENV.pgUrl]
 * ```
 */
export const STORE_ENV = {
  dataDir: 'KEYWARD_DATA_DIR',
  pgUrl: 'KEYWARD_PG_URL',
  pgSchema: 'KEYWARD_PG_SCHEMA',
  pgPreparedStatements: 'KEYWARD_PG_PREPARED_STATEMENTS',
  pgReplicaUrls: 'KEYWARD_PG_REPLICA_URLS',
  revocationBoundMs: 'KEYWARD_REVOCATION_BOUND_MS',
  pgListenUrl: 'KEYWARD_PG_LISTEN_URL',
  cache: 'KEYWARD_CACHE',
} as const

/**
 * Strict revocation's bound as the server reads it: as set, else 250 where the server keeps
 * verifications anywhere but the primary (its cache, on unless `KEYWARD_CACHE=off`, or replicas),
 * else none.
 */
function revocationBound(env: Readonly<Record<string, string | undefined>>): number | undefined {
  const raw = env[STORE_ENV.revocationBoundMs] || undefined
  if (raw === 'off') return undefined
  if (raw === undefined) {
    const cache = env[STORE_ENV.cache] || undefined
    if (cache !== undefined && cache !== 'on' && cache !== 'off') {
      throw usageError(`${STORE_ENV.cache} must be on or off, got ${JSON.stringify(cache)}.`)
    }
    return cache !== 'off' || env[STORE_ENV.pgReplicaUrls]?.trim() ? 250 : undefined
  }
  const value = Number(raw)
  if (!/^\d+$/.test(raw) || value < 1 || value > 60_000) {
    throw usageError(
      `${STORE_ENV.revocationBoundMs} must be an integer from 1 to 60000 or off, got ${JSON.stringify(raw)}.`,
    )
  }
  return value
}

/** `--timeout`: whole seconds from 1 to 3600, or `undefined` when not given. */
function timeoutSeconds(text: string | undefined): number | undefined {
  if (text === undefined) return undefined
  if (!/^\d{1,4}$/.test(text) || Number(text) < 1 || Number(text) > 3600) {
    throw usageError(
      `--timeout must be a whole number of seconds from 1 to 3600, got ${JSON.stringify(text)}.`,
    )
  }
  return Number(text)
}

/**
 * @internal The store location from the options, else from the environment (PostgreSQL
 * first, as the server does). Both options at once, or neither anywhere, is a usage error.
 */
export function resolveStoreLocation(
  options: {
    readonly 'data-dir'?: string | undefined
    readonly 'pg-url'?: string | undefined
    readonly 'pg-schema'?: string | undefined
    readonly timeout?: string | undefined
  },
  env: Readonly<Record<string, string | undefined>>,
  defaultTimeoutSeconds?: number,
): StoreLocation {
  const dataDir = options['data-dir']
  const pgUrl = options['pg-url']
  if (dataDir !== undefined && pgUrl !== undefined) {
    throw usageError('Give either --data-dir or --pg-url, not both.')
  }
  for (const name of ['data-dir', 'pg-url', 'pg-schema'] as const) {
    if (options[name] === '') throw usageError(`--${name} is empty.`)
  }
  const schema = options['pg-schema'] ?? (env[STORE_ENV.pgSchema] || undefined)
  const seconds = timeoutSeconds(options.timeout) ?? defaultTimeoutSeconds
  const where = (location: { dataDir: string } | { pgUrl: string }): StoreLocation => ({
    ...location,
    ...(schema === undefined ? {} : { schema }),
    ...(seconds === undefined ? {} : { queryTimeoutMs: seconds * 1000 }),
  })
  const prepared = env[STORE_ENV.pgPreparedStatements] || undefined
  if (prepared !== undefined && prepared !== 'on' && prepared !== 'off') {
    throw usageError(`${STORE_ENV.pgPreparedStatements} must be on or off, got ${JSON.stringify(prepared)}.`)
  }
  // A URL of the wrong shape is named, with what is wrong and a right one; never echoed.
  const checked = (url: string, name: string) => {
    const problem = connectionStringProblem(url)
    if (problem) throw usageError(`${name} ${problem}: give one such as ${PG_URL_EXAMPLE}.`)
    return url
  }
  const postgres = (url: string, name: string): StoreLocation => {
    checked(url, name)
    const revocationBoundMs = revocationBound(env)
    const listenEnv = env[STORE_ENV.pgListenUrl] || undefined
    const listenUrl = listenEnv === undefined ? undefined : checked(listenEnv, STORE_ENV.pgListenUrl)
    if (revocationBoundMs !== undefined && prepared === 'off' && listenUrl === undefined) {
      throw usageError(
        `Strict revocation (the default with the server's cache or replicas) behind a transaction pooler ` +
          `(${STORE_ENV.pgPreparedStatements}=off) needs ${STORE_ENV.pgListenUrl}, a direct connection to the ` +
          `primary for the change feed, or ${STORE_ENV.revocationBoundMs}=off where the servers run with ` +
          `${STORE_ENV.cache}=off and no replicas.`,
      )
    }
    return {
      ...where({ pgUrl: url }),
      ...(prepared === undefined ? {} : { preparedStatements: prepared === 'on' }),
      ...(revocationBoundMs === undefined ? {} : { revocationBoundMs }),
      ...(revocationBoundMs === undefined || listenUrl === undefined ? {} : { listenUrl }),
    }
  }
  if (dataDir !== undefined) return where({ dataDir })
  if (pgUrl !== undefined) return postgres(pgUrl, '--pg-url')
  const envPgUrl = env[STORE_ENV.pgUrl]
  if (envPgUrl) return postgres(envPgUrl, STORE_ENV.pgUrl)
  const envDataDir = env[STORE_ENV.dataDir]
  if (envDataDir) return where({ dataDir: envDataDir })
  throw usageError(
    `Say which store to use: --data-dir DIR (embedded PGlite, e.g. the server's .keyward) or --pg-url URL ` +
      `(PostgreSQL), or set ${STORE_ENV.dataDir} or ${STORE_ENV.pgUrl}.`,
  )
}
