import type { PostgresKeyStore, ReplicaEvent } from '@keyward/postgres'
import { createPgKeyStore } from '@keyward/postgres/pg'
import { createPGliteKeyStore } from '@keyward/postgres/pglite'
import type { ServerConfig } from './config.js'
import { createAppTables } from './db/schema.js'
import { settingOrCreate } from './db/settings.js'
import { newTokenSecret } from './tokens.js'

/** The opened database: Keyward's store (its tables migrated), the server's tables created. */
export interface Storage {
  readonly store: PostgresKeyStore
  /** Where the data is, for the start-up message (never a password). */
  readonly description: string
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
    'pgUrl' | 'pgReplicaUrls' | 'pgListenUrl' | 'cache' | 'dataDir' | 'keywardSchema'
  >,
  onReplicaEvent?: (event: ReplicaEvent) => void,
): Promise<Storage> {
  const options = { schema: config.keywardSchema }
  const replicas = config.pgReplicaUrls
  // The cache and the replicas need the change feed; PGlite has one in process.
  const changeFeed = (config.cache || replicas.length > 0) && {
    connectionString: config.pgListenUrl ?? config.pgUrl,
  }
  const replicaOptions = replicas.length > 0 ? { replicas, onEvent: onReplicaEvent } : {}
  const store = config.pgUrl
    ? await createPgKeyStore(
        { connectionString: config.pgUrl },
        { ...options, changeFeed, ...replicaOptions },
      )
    : await createPGliteKeyStore({ dataDir: config.dataDir }, options)
  try {
    await createAppTables(store)
  } catch (error) {
    await store.close()
    throw error
  }
  const readingFrom = replicas.length > 0 ? `, keys read from ${replicas.length} replica(s)` : ''
  return {
    store,
    description: config.pgUrl ? `${describePg(config.pgUrl)}${readingFrom}` : `PGlite in ${config.dataDir}`,
  }
}

/** The configured signing secret, else the one kept in the database (made on first start). */
export function tokenSecret(store: PostgresKeyStore, configured: string | undefined): Promise<string> {
  return configured
    ? Promise.resolve(configured)
    : settingOrCreate(store, 'access_token_secret', newTokenSecret)
}
