import { createConsole } from '@keyward/console'
import { consoleMiddleware } from '@keyward/console/hono'
import {
  DEFAULT_BODY_LIMIT,
  ErrorType,
  errorResponse,
  type Keyward,
  KeywardError,
  type KeywardEventHook,
  type OwnerKeyPolicies,
  type ProtectionOptions,
  type SecretScanningOptions,
} from '@keyward/core'
import { send } from '@keyward/hono'
import { checkWebhookAddress } from '@keyward/webhooks'
import { Hono } from 'hono'
import { dialectOf, type ServerStore, sqlOf } from './db/sql.js'
import { routeFallback } from './http/fallback.js'
import type { CountersHealth } from './protection.js'
import { accessTokenRoutes } from './routes/access-tokens.js'
import type { RouteContext } from './routes/context.js'
import { generationRoutes } from './routes/generations.js'
import { healthRoutes } from './routes/health.js'
import { openApiRoutes, WEBHOOKS_PATH } from './routes/openapi.js'
import { projectRoutes } from './routes/projects.js'
import { database, keywardOver } from './service.js'
import type { AccessTokens } from './tokens.js'

/** What the server's app is built from. */
export interface AppDependencies {
  /** Keyward's key store; the server's own tables are in the same database. */
  readonly store: ServerStore
  readonly tokens: AccessTokens
  /** Receives key events and database failures (key prefixes only, never a full key). */
  readonly onEvent?: KeywardEventHook
  /** The largest request body read, in bytes. Default 16 KiB. */
  readonly bodyLimit?: number
  /** The guards' abuse protection: the throttle of failed verifications, failure reports. */
  readonly protection?: ProtectionOptions
  /** Keep verifications in memory (needs the store's change feed). Default `true`; unused with `keyward`. */
  readonly cache?: boolean
  /** The key service over `store`; by default the app builds one. Pass it to flush its `last_used_at` on shutdown. */
  readonly keyward?: Keyward
  /** The secret-scanning endpoint's settings (where the sender's public keys are). Default GitHub's. */
  readonly secretScanning?: SecretScanningOptions
  /**
   * The webhook endpoints' development switches: `http://` URLs, and hosts that resolve to
   * loopback or private addresses. Default both off.
   */
  readonly webhooks?: { readonly allowHttp?: boolean; readonly allowPrivate?: boolean }
  /**
   * Whether every verification sees each revocation acknowledged before it began, in any
   * process (`openStorage` tells): then a verified API key proves its project exists (a
   * project's deletion deactivates its keys in the same transaction), and an access token is
   * issued without reading the project. Default `false`: the project is read from the database,
   * because another process's cache may not have heard of a deletion yet.
   */
  readonly verificationsCurrent?: boolean
  /**
   * The administrative console at `/console`: sessions end after `idleTimeoutMinutes` without a
   * request. Default `{}` (30 minutes); `false` for no console.
   */
  readonly console?: { readonly idleTimeoutMinutes?: number } | false
  /**
   * How the throttle's shared counters are doing, for `/healthz` (`degraded` while Redis does
   * not answer). Default: always `ok`.
   */
  readonly throttleHealth?: () => CountersHealth
  /**
   * The SHA-256 digests (hex) of the service tokens that may call `POST /api/v1/keys/verify`
   * for keys of any project. Default none.
   */
  readonly verifyTokens?: readonly string[]
  /** Policies of every key of an owner type, e.g. `{ project: { maxLifetimeDays: 90 } }`; unused with `keyward`. */
  readonly keyPolicies?: OwnerKeyPolicies
}

/**
 * The reference server's HTTP API, every endpoint of the design's table, as a Hono app
 * (serve it with `@hono/node-server`, or call `app.request` in tests).
 */
export function createApp({
  store,
  tokens,
  onEvent,
  bodyLimit = DEFAULT_BODY_LIMIT,
  protection,
  cache = true,
  keyPolicies,
  keyward = keywardOver(store, onEvent, protection, cache, keyPolicies),
  secretScanning = {},
  webhooks = {},
  verifyTokens = [],
  verificationsCurrent = false,
  console: consoleOptions = {},
  throttleHealth = () => 'ok',
}: AppDependencies): Hono {
  const context: RouteContext = {
    store,
    sql: sqlOf(store),
    keyward,
    keywardIn: (tx) => keywardOver(tx, onEvent, undefined, false, keyPolicies),
    tokens,
    bodyLimit,
    secretScanning,
    webhooks: {
      allowHttp: webhooks.allowHttp === true,
      checkAddress: (url) => checkWebhookAddress(url, { allowPrivate: webhooks.allowPrivate === true }),
    },
    verifyTokens,
    verificationsCurrent,
    database: (operation, run) => database(operation, run, onEvent),
  }
  const app = new Hono()
  // Only the PostgreSQL stores keep webhooks: elsewhere their routes say so, in the errors' format.
  const keepsWebhooks = 'webhooks' in store && store.webhooks !== undefined
  if (!keepsWebhooks) app.all(`${WEBHOOKS_PATH}*`, () => webhooksUnavailable(store))
  // The console's pages and sessions; its page's API calls reach the routes below authenticated.
  if (consoleOptions) app.use(consoleMiddleware(createConsole(keyward, consoleOptions)))
  app
    .route('/', projectRoutes(context))
    .route('/', accessTokenRoutes(context))
    .route('/', generationRoutes(context))
    .route('/', healthRoutes(context, throttleHealth))
    .route('/', openApiRoutes(keepsWebhooks))
  app.notFound(routeFallback(app))
  // Keyward's errors in the specification's format; anything unexpected as a bare 500
  // `internal_error` that says nothing of it.
  app.onError((error, c) => send(c, errorResponse(error)))
  return app
}

const STORE_NAMES = { postgres: 'PostgreSQL', mysql: 'MySQL', sqlite: 'SQLite' } as const

/** 404 `not_found`: the store keeps no webhook endpoints. */
function webhooksUnavailable(store: ServerStore): never {
  throw new KeywardError(
    ErrorType.notFound,
    `Webhooks are not available on this server: its store (${STORE_NAMES[dialectOf(store).name]}) keeps no webhook endpoints. They need PostgreSQL or PGlite.`,
    [],
  )
}
