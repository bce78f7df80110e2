import { DEFAULT_REVOCATION_BOUND_MS, type PostgresKeyStore, type ReplicaEvent } from '@keyward/postgres'
import { createPgKeyStore } from '@keyward/postgres/pg'
import { createPGliteKeyStore } from '@keyward/postgres/pglite'
import type { ServerConfig } from './config.js'
import { checkNotBehindPooler } from './db/pooler-probe.js'
import { createAppTables } from './db/schema.js'
import { deleteSetting } from './db/settings.js'
import { newTokenSecret } from './tokens.js'

/** The opened database: Keyward's store (its tables migrated), the server's tables created. */
export interface Storage {
  readonly store: PostgresKeyStore
  /** Where the data is, for the start-up message (never a password). */
  readonly description: string
  /**
   * Whether every verification of this server sees each revocation acknowledged before it
   * began, in any process: PGlite (one process holds the data), strict revocation, or every key
   * read from the primary (no cache, no replicas). See {@link AppDependencies.verificationsCurrent}.
   */
  readonly verificationsCurrent: boolean
}

function describePg(url: string): string {
  try {
    const { hostname, port, pathname } = new URL(url)
    return `PostgreSQL at ${hostname}:${port || 5432}${pathname}`
  } catch {
    return 'PostgreSQL (KEYWARD_PG_URL)'
  }
}

/**
 * Opens PostgreSQL when `KEYWARD_PG_URL` is set, else embedded PGlite in the data directory,
 * which `createPGliteKeyStore` refuses while another process has it open.
 */
export async function openStorage(
  config: Pick<
    ServerConfig,
    | 'pgUrl'
    | 'pgReplicaUrls'
    | 'revocationBoundMs'
    | 'pgListenUrl'
    | 'pgPreparedStatements'
    | 'cache'
    | 'dataDir'
    | 'keywardSchema'
  > &
    Partial<Pick<ServerConfig, 'feedFreshness' | 'redisUrl'>>,
  onReplicaEvent?: (event: ReplicaEvent) => void,
): Promise<Storage> {
  const options = { schema: config.keywardSchema }
  const replicas = config.pgReplicaUrls
  const bound = config.revocationBoundMs
  // Strict revocation: on by default wherever a verification may be answered from somewhere other
  // than the primary (the cache, replicas), or as the bound says.
  const strictRevocation =
    bound === undefined ? config.cache || replicas.length > 0 : bound !== 'off' && { boundMs: bound }
  // The cache, the replicas and strict revocation need the change feed; PGlite has one in process.
  const freshness = config.feedFreshness
  const changeFeed = (config.cache || replicas.length > 0 || strictRevocation !== false) && {
    connectionString: config.pgListenUrl ?? config.pgUrl,
    ...(freshness === undefined ? {} : { freshnessSource: freshness }),
    ...(freshness === 'redis' && config.redisUrl ? { redis: { url: config.redisUrl } } : {}),
  }
  // Named prepared statements through a transaction pooler fail at random: refuse at start.
  if (config.pgUrl && config.pgPreparedStatements) await checkNotBehindPooler(config.pgUrl)
  const store = config.pgUrl
    ? await createPgKeyStore(
        { connectionString: config.pgUrl },
        {
          ...options,
          changeFeed,
          replicas,
          strictRevocation,
          onEvent: onReplicaEvent,
          preparedStatements: config.pgPreparedStatements,
        },
      )
    : await createPGliteKeyStore({ dataDir: config.dataDir }, options)
  try {
    await createAppTables(store)
  } catch (error) {
    await store.close()
    throw error
  }
  const readingFrom = replicas.length > 0 ? `, keys read from ${replicas.length} replica(s)` : ''
  const relayed = freshness === 'redis' ? ', the change feed relayed through Redis' : ''
  const strictly =
    strictRevocation === false
      ? ''
      : `; strict revocation: a revocation answers ${strictRevocation === true ? DEFAULT_REVOCATION_BOUND_MS : strictRevocation.boundMs} ms after its commit${relayed}`
  return {
    store,
    description: config.pgUrl
      ? `${describePg(config.pgUrl)}${readingFrom}${strictly}`
      : `PGlite in ${config.dataDir}`,
    verificationsCurrent:
      !config.pgUrl || strictRevocation !== false || (!config.cache && replicas.length === 0),
  }
}

/** The access tokens' signing secret, and whether it lives and dies with this process. */
export interface TokenSecret {
  readonly secret: string
  readonly ephemeral: boolean
}

/**
 * The signing secret: `KEYWARD_TOKEN_SECRET`, else a random one of this process only (its
 * tokens end when it stops). It is never written to the database: a secret kept next to the
 * data it protects goes with every copy or dump of that data. A secret that an earlier version
 * kept in the settings table is deleted.
 */
export async function tokenSecret(
  store: PostgresKeyStore,
  configured: string | undefined,
): Promise<TokenSecret> {
  await deleteSetting(store, 'access_token_secret')
  return configured ? { secret: configured, ephemeral: false } : { secret: newTokenSecret(), ephemeral: true }
}
