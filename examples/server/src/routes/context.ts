import type { Keyward, SecretScanningOptions, WebhookEndpointsOptions } from '@keyward/core'
import type { ServerStore, ServerTransaction, Sql } from '../db/sql.js'
import type { AccessTokens } from '../tokens.js'

/** What the routes share: the store, the key service over it or a transaction, the tokens. */
export interface RouteContext {
  readonly store: ServerStore
  /** The server's SQL on the store's database. */
  readonly sql: Sql
  readonly keyward: Keyward
  /** The key service over an open transaction. */
  readonly keywardIn: (tx: ServerTransaction) => Keyward
  readonly tokens: AccessTokens
  readonly bodyLimit: number
  /** The settings of `POST /api/v1/secret-scanning/github`. */
  readonly secretScanning: SecretScanningOptions
  /** The webhook endpoints' settings: which URLs are allowed. */
  readonly webhooks: WebhookEndpointsOptions
  /** The SHA-256 digests of the service tokens of `POST /api/v1/keys/verify`. */
  readonly verifyTokens: readonly string[]
  /** Whether a verified key proves its owner exists (see `AppDependencies.verificationsCurrent`). */
  readonly verificationsCurrent: boolean
  /** Runs an operation on the server's tables; a database failure answers 503. */
  readonly database: <T>(operation: string, run: () => Promise<T>) => Promise<T>
}
