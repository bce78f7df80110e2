import {
  createKeyward,
  ErrorType,
  isKeywardError,
  type Keyward,
  KeywardError,
  type KeywardEventHook,
  type OwnerKeyPolicies,
  type ProtectionOptions,
  type UsageOptions,
} from '@keyward/core'
import { projectOwner } from './db/projects.js'
import { type ServerStore, type ServerTransaction, sqlOf } from './db/sql.js'

/**
 * The permissions the server declares: an API key may carry them, the generation routes require
 * them (`generations:write` to create, `generations:delete` to delete). A key created without
 * permissions has both.
 */
export const SERVER_PERMISSIONS = ['generations:write', 'generations:delete'] as const

/**
 * The key service over the store, or over an open transaction of it (its key writes then
 * commit or roll back with the transaction, and the store tells the cache when it commits).
 * Projects and their owners come from the server's `projects` table, read on the same
 * connection. The guards' service has the `protection` (throttle, failure reports) and keeps
 * verifications in memory when `cache` is on; services over a transaction never guard, and count
 * no usage. The others count it (`usage`, default every 5 seconds).
 */
export function keywardOver(
  db: ServerStore | ServerTransaction,
  onEvent?: KeywardEventHook,
  protection?: ProtectionOptions,
  cache = false,
  keyPolicies?: OwnerKeyPolicies,
  usage?: UsageOptions,
): Keyward {
  const store = 'store' in db ? db.store : db
  const sql = 'store' in db ? db : sqlOf(db)
  return createKeyward({
    store,
    projectOwner: (projectId) => projectOwner(sql, projectId),
    onEvent,
    permissions: SERVER_PERMISSIONS,
    ...(keyPolicies ? { keyPolicies } : {}),
    cache: cache && store.changes !== undefined && {},
    // ratelimit.exceeded: refusals counted beside the limits' counters, written once a minute.
    webhookAlerts: true,
    usage: 'store' in db ? false : (usage ?? {}),
    ...(protection ? { protection } : {}),
  })
}

/**
 * Runs an operation on the server's own tables. A database failure becomes 503
 * `store_unavailable`, as the key service answers for its own, and is reported to `onEvent`.
 */
export async function database<T>(
  operation: string,
  run: () => Promise<T>,
  onEvent?: KeywardEventHook,
): Promise<T> {
  try {
    return await run()
  } catch (error) {
    if (isKeywardError(error)) throw error
    onEvent?.({ type: 'store.error', operation, error })
    throw new KeywardError(ErrorType.storeUnavailable, 'The database is unavailable. Try again later.', [], {
      cause: error,
    })
  }
}
