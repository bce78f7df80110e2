import { createMysqlKeyStore, type MysqlChangeFeed } from '@keyward/mysql'
import { DEFAULT_REVOCATION_BOUND_MS, type ReplicaEvent } from '@keyward/postgres'
import { createPgKeyStore } from '@keyward/postgres/pg'
import { createPGliteKeyStore } from '@keyward/postgres/pglite'
import { createSqliteKeyStore } from '@keyward/sqlite'
import type { ServerConfig } from './config.js'
import { checkNotBehindPooler } from './db/pooler-probe.js'
import { createAppTables } from './db/schema.js'
import { deleteSetting } from './db/settings.js'
import { type ServerStore, sqlOf } from './db/sql.js'
import { newTokenSecret } from './tokens.js'

/** The opened database: Keyward's store (its tables migrated), the server's tables created. */
export interface Storage {
  readonly store: ServerStore
  /** Where the data is, for the start-up message (never a password). */
  readonly description: string
  /**
   * Whether every verification of this server sees each revocation acknowledged before it
   * began, in any process: PGlite or SQLite (one process holds the data), strict revocation, or
   * every key read from the primary (no cache, no replicas). See {@link AppDependencies.verificationsCurrent}.
   */
  readonly verificationsCurrent: boolean
}

/** Where a database server is, from its URL without its user or password. */
function describeUrl(name: string, url: string, defaultPort: number, setting: string): string {
  try {
    const { hostname, port, pathname } = new URL(url)
    return `${name} at ${hostname}:${port || defaultPort}${pathname}`
  } catch {
    return `${name} (${setting})`
  }
}

/** The acknowledgement of strict revocation, for the start-up message. */
const strictly = (boundMs: number | false, relayed = '') =>
  boundMs === false
    ? ''
    : `; strict revocation: a revocation answers ${boundMs} ms after its commit${relayed}`

/**
 * Opens MySQL (or MariaDB). The cache and strict revocation (on with the cache unless
 * `KEYWARD_REVOCATION_BOUND_MS=off`) need the change feed, which polls the store's change log;
 * a bound set is the feed's freshness bound.
 */
async function openMysql(
  url: string,
  { cache, revocationBoundMs: bound }: Pick<ServerConfig, 'cache' | 'revocationBoundMs'>,
): Promise<Storage> {
  const strict = bound === undefined ? cache : bound !== 'off'
  const feed = cache || strict
  const store = await createMysqlKeyStore(
    { connectionString: url },
    {
      changeFeed: feed && (typeof bound === 'number' ? { freshnessBoundMs: bound } : {}),
      strictRevocation: strict,
    },
  )
  const boundMs = strict ? (store.changes as MysqlChangeFeed).boundMs : false
  return {
    store,
    description: `${describeUrl('MySQL', url, 3306, 'KEYWARD_MYSQL_URL')}${strictly(boundMs)}`,
    verificationsCurrent: strict || !cache,
  }
}

/** Opens the database that the settings name, its server tables not created yet. */
async function openStore(
  config: Parameters<typeof openStorage>[0],
  onReplicaEvent?: (event: ReplicaEvent) => void,
): Promise<Storage> {
  // One process holds a SQLite file: it hears every revocation as it is made.
  if (config.sqlitePath) {
    const store = await createSqliteKeyStore({ path: config.sqlitePath })
    return { store, description: `SQLite in ${config.sqlitePath}`, verificationsCurrent: true }
  }
  if (config.mysqlUrl) return openMysql(config.mysqlUrl, config)
  return openPostgres(config, onReplicaEvent)
}

/**
 * Opens PostgreSQL when `KEYWARD_PG_URL` is set, MySQL when `KEYWARD_MYSQL_URL` is, SQLite when
 * `KEYWARD_SQLITE_PATH` is, else embedded PGlite in the data directory (PGlite and SQLite refuse
 * their data while another process has it open), and creates the server's tables there.
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
    Partial<Pick<ServerConfig, 'feedFreshness' | 'redisUrl' | 'mysqlUrl' | 'sqlitePath'>>,
  onReplicaEvent?: (event: ReplicaEvent) => void,
): Promise<Storage> {
  const storage = await openStore(config, onReplicaEvent)
  try {
    await createAppTables(storage.store)
  } catch (error) {
    await storage.store.close()
    throw error
  }
  return storage
}

/** Opens PostgreSQL, or PGlite. */
async function openPostgres(
  config: Parameters<typeof openStorage>[0],
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
  const readingFrom = replicas.length > 0 ? `, keys read from ${replicas.length} replica(s)` : ''
  const relayed = freshness === 'redis' ? ', the change feed relayed through Redis' : ''
  const boundMs =
    strictRevocation === false
      ? false
      : strictRevocation === true
        ? DEFAULT_REVOCATION_BOUND_MS
        : strictRevocation.boundMs
  return {
    store,
    description: config.pgUrl
      ? `${describeUrl('PostgreSQL', config.pgUrl, 5432, 'KEYWARD_PG_URL')}${readingFrom}${strictly(boundMs, relayed)}`
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
export async function tokenSecret(store: ServerStore, configured: string | undefined): Promise<TokenSecret> {
  await deleteSetting(sqlOf(store), 'access_token_secret')
  return configured ? { secret: configured, ephemeral: false } : { secret: newTokenSecret(), ephemeral: true }
}
