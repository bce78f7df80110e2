import { DEFAULT_BODY_LIMIT, type KeywardEventHook, type ProtectionOptions } from '@keyward/core'
import { keywardOnError } from '@keyward/hono'
import type { PostgresKeyStore } from '@keyward/postgres'
import { Hono } from 'hono'
import { routeFallback } from './http/fallback.js'
import { accessTokenRoutes } from './routes/access-tokens.js'
import type { RouteContext } from './routes/context.js'
import { generationRoutes } from './routes/generations.js'
import { healthRoutes } from './routes/health.js'
import { projectRoutes } from './routes/projects.js'
import { database, keywardOver } from './service.js'
import type { AccessTokens } from './tokens.js'

/** What the server's app is built from. */
export interface AppDependencies {
  /** Keyward's key store; the server's own tables are in the same database. */
  readonly store: PostgresKeyStore
  readonly tokens: AccessTokens
  /** Receives key events and database failures (key prefixes only, never a full key). */
  readonly onEvent?: KeywardEventHook
  /** The largest request body read, in bytes. Default 16 KiB. */
  readonly bodyLimit?: number
  /** The guards' abuse protection: the throttle of failed verifications, failure reports. */
  readonly protection?: ProtectionOptions
  /** Keep verifications in memory (needs the store's change feed). Default `true`. */
  readonly cache?: boolean
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
}: AppDependencies): Hono {
  const context: RouteContext = {
    store,
    keyward: keywardOver(store, onEvent, protection, cache),
    keywardIn: (tx) => keywardOver(tx, onEvent),
    tokens,
    bodyLimit,
    database: (operation, run) => database(operation, run, onEvent),
  }
  const app = new Hono()
    .route('/', projectRoutes(context))
    .route('/', accessTokenRoutes(context))
    .route('/', generationRoutes(context))
    .route('/', healthRoutes(context))
  app.notFound(routeFallback(app))
  app.onError(keywardOnError)
  return app
}
