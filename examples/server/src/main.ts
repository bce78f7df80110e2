import type { Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { getRequestListener } from '@hono/node-server'
import { ErrorType, isKeywardError, type Keyward, type KeywardEvent, throttleListener } from '@keyward/core'
import type { PostgresKeyStore } from '@keyward/postgres'
import { createWebhookDispatcher, type WebhookDispatcher } from '@keyward/webhooks'
import { createApp } from './app.js'
import { readConfig, type ServerConfig } from './config.js'
import { registerFirstDeveloper } from './db/developers.js'
import { projectOwner } from './db/projects.js'
import { type ServerStore, sqlOf } from './db/sql.js'
import { closeGracefully, createBoundedServer } from './http/node-server.js'
import { formatCountersEvent, formatEvent, formatReplicaEvent } from './log.js'
import { createMetrics, type Metrics } from './metrics.js'
import { type Counters, openCounters, protectionOf } from './protection.js'
import { keywardOver } from './service.js'
import { openStorage, tokenSecret } from './storage.js'
import { type StoreErrorLog, storeErrorLog } from './store-errors.js'
import { accessTokens } from './tokens.js'

// A clean stop closes the change feed on purpose: the cache's notice of it is no fault.
let stopping = false

// The database's failures, summed up once it is open: an outage makes a line per interval.
let storeErrors: StoreErrorLog | undefined

// Prometheus metrics, on a port of their own when KEYWARD_METRICS_PORT is set.
let metrics: Metrics | undefined
// Delivers the webhook outbox; stopped before the database closes.
let dispatcher: WebhookDispatcher | undefined

// How the log names the change feed: its Redis relay with KEYWARD_FEED_FRESHNESS=redis.
let feedName = 'the change feed'

const onEvent = (event: KeywardEvent) => {
  metrics?.onEvent(event)
  if (stopping && event.type === 'cache.bypassed') return
  if (event.type === 'store.error') {
    // The counters tell of their outage themselves, once when it starts and once when it ends
    // (`throttle.degraded`, `throttle.restored`).
    if (/^(?:throttle|rate_limit)\./.test(event.operation)) return
    // A revocation committed but not confirmed: the feed is late, not the database (logged below).
    const unconfirmed = isKeywardError(event.error) && event.error.type === ErrorType.revocationUnconfirmed
    if (storeErrors && !unconfirmed) return storeErrors.report(event)
  }
  const line = formatEvent(event, feedName)
  if (line !== undefined) console.log(line)
}

/**
 * Ends the process once the database is closed, so that PGlite's data stays whole; writes
 * the pending `last_used_at` uses and usage counts, and gives back the credits leased and not spent
 * first (`keyward.close()`).
 */
function exitAfterClosing(store: ServerStore, code: number, counters?: Counters, keyward?: Keyward): void {
  stopping = true
  storeErrors?.close()
  Promise.all([keyward?.close(), dispatcher?.stop()])
    .then(() => Promise.all([store.close(), counters?.close(), metrics?.close()]))
    .then(
      () => process.exit(code),
      (error: unknown) => {
        console.error(`keyward-server: closing the database failed: ${String(error)}`)
        process.exit(1)
      },
    )
}

/** Where the console answers, from the address the server listens on. */
function consoleUrl(config: ServerConfig, origin: string): string | undefined {
  return config.consoleIdleMinutes === 'off' ? undefined : `${origin}/console/`
}

/**
 * On first start, registers a developer and prints their key: the one time it is shown. Runs
 * once the server listens, so that a server that cannot listen never shows a key that the next
 * start will not show again. On storage that has developers, says how to get a key.
 */
async function registerOnFirstStart(store: ServerStore, config: ServerConfig, origin: string): Promise<void> {
  const first = await registerFirstDeveloper(store, (tx) => keywardOver(tx, onEvent))
  const url = consoleUrl(config, origin)
  if (!first) {
    // The CLI's store commands are PostgreSQL's (and PGlite's): none registers on MySQL or SQLite.
    const cliWhere =
      config.mysqlUrl || config.sqlitePath
        ? undefined
        : config.pgUrl
          ? 'with KEYWARD_PG_URL as here'
          : 'once this server is stopped (PGlite is one process)'
    const more = `developer with a key can issue more (POST /api/v1/auth/developer-keys${url ? `, or the console at ${url}` : ''}).`
    console.log(
      `Developers are registered already: no key is printed. ${
        cliWhere
          ? `For a new developer, run \`keyward developers register <developer-id>\` ${cliWhere}; a ${more}`
          : `A ${more}`
      }`,
    )
    return
  }
  console.log(
    [
      '',
      `First start: registered developer ${first.developerId}.`,
      '',
      `  Developer key  ${first.key}`,
      ...(url ? [`  Console        ${url}`] : []),
      '',
      'This key will not be shown again: store it now, e.g. as SERVICE_DEVELOPER_KEY.',
      ...(url ? ['Sign in to the console with it to create projects and keys in your browser.'] : []),
      '',
    ].join('\n'),
  )
}

/** The webhook outbox's dispatcher, with the key expiry notices unless they are off. */
function createWebhooks(
  store: ServerStore,
  webhooks: NonNullable<PostgresKeyStore['webhooks']>,
  config: ServerConfig,
): WebhookDispatcher {
  const sql = sqlOf(store)
  return createWebhookDispatcher({
    store: webhooks,
    allowHttp: config.webhooksAllowHttp,
    allowPrivate: config.webhooksAllowPrivate,
    // key.expiring (7 days and 1 day before, unless set) and key.expired, from one process at a time.
    expiry:
      config.webhooksExpiringDays === 'off'
        ? false
        : {
            projectOwner: (projectId) => projectOwner(sql, projectId),
            thresholdsDays: config.webhooksExpiringDays,
          },
    onEvent: (event) => {
      if (event.type === 'webhook.error') console.error(`webhooks: ${String(event.error)}`)
      else if (event.type === 'webhook.endpoint_disabled') {
        console.log(`webhook endpoint ${event.endpointId} disabled after failing for 5 days`)
      } else if (event.outcome !== 'delivered') {
        console.log(
          `webhook ${event.eventId} to ${event.endpointId}: ${event.status ?? 'no answer'}, ${event.outcome}`,
        )
      }
    },
  })
}

/** Listens, or rejects with the reason (a port in use, an address of no interface). */
function listenOn(server: Server, config: ServerConfig): Promise<string> {
  return new Promise((resolve, reject) => {
    server.once('error', reject)
    server.listen(config.port, config.host, () => {
      server.off('error', reject)
      const info = server.address() as AddressInfo
      const host = info.family === 'IPv6' ? `[${info.address}]` : info.address
      resolve(`http://${host}:${info.port}`)
    })
  })
}

async function serveOn(
  store: ServerStore,
  config: ServerConfig,
  counters: Counters,
  verificationsCurrent: boolean,
): Promise<void> {
  const { secret, ephemeral } = await tokenSecret(store, config.tokenSecret)
  const tokens = accessTokens({ secret, ttlSeconds: config.tokenTtlSeconds })
  const protection = protectionOf(config, counters.limiter)
  const keyPolicies = config.maxApiKeyLifetimeDays
    ? { project: { maxLifetimeDays: config.maxApiKeyLifetimeDays } }
    : undefined
  let keyward = keywardOver(store, onEvent, protection, config.cache, keyPolicies, {
    flushIntervalSeconds: config.usageFlushSeconds,
  })
  if (config.metricsPort !== undefined) {
    const service = keyward
    metrics = createMetrics(store, () => service)
    keyward = metrics.timed(service)
    let url: string
    try {
      url = await metrics.listen(config.metricsHost, config.metricsPort)
    } catch (error) {
      throw new Error(
        `cannot listen on ${config.metricsHost}:${config.metricsPort} for metrics: ${(error as Error).message}`,
      )
    }
    console.log(`Metrics: ${url}`)
  }
  const keysUrl = config.secretScanningKeysUrl
  const app = createApp({
    store,
    tokens,
    onEvent,
    protection,
    keyward,
    secretScanning: keysUrl ? { keysUrl } : {},
    webhooks: { allowHttp: config.webhooksAllowHttp, allowPrivate: config.webhooksAllowPrivate },
    verifyTokens: config.verifyTokens,
    verificationsCurrent,
    throttleHealth: counters.health,
    ...(keyPolicies ? { keyPolicies } : {}),
    console: config.consoleIdleMinutes === 'off' ? false : { idleTimeoutMinutes: config.consoleIdleMinutes },
  })
  // A credentialed request from an address known to be throttled is answered 429 before Hono
  // sees it: a flood of guesses costs the server about half what a valid request costs.
  const server = createBoundedServer(
    config,
    throttleListener(keyward, getRequestListener(app.fetch, { hostname: config.host })),
  )
  let origin: string
  try {
    origin = await listenOn(server, config)
  } catch (error) {
    throw new Error(`cannot listen on ${config.host}:${config.port}: ${(error as Error).message}`)
  }
  await registerOnFirstStart(store, config, origin)
  // Every process delivers the outbox: each delivery is claimed by one of them at a time. Only the
  // PostgreSQL stores keep webhooks.
  const webhooks = 'webhooks' in store ? store.webhooks : undefined
  if (webhooks) dispatcher = createWebhooks(store, webhooks, config)
  if (ephemeral) {
    console.log(
      'KEYWARD_TOKEN_SECRET is not set: access tokens are signed with a secret of this process and end with it.',
    )
  }
  // Before the address is printed: whoever reads it may send a signal at once.
  const stop = (signal: NodeJS.Signals) => {
    if (stopping) process.exit(1) // a second signal: stop now
    stopping = true
    console.log(`${signal}: closing (at most ${config.shutdownTimeoutMs} ms).`)
    setTimeout(() => {
      console.error(`keyward-server: not closed within ${config.shutdownTimeoutMs} ms; exiting.`)
      process.exit(1)
    }, config.shutdownTimeoutMs).unref()
    // No new connection is accepted; requests in flight finish, then the uses and the usage
    // counts are written and the database, the change feed and the counters close.
    closeGracefully(server, () => exitAfterClosing(store, 0, counters, keyward))
  }
  process.on('SIGINT', stop)
  process.on('SIGTERM', stop)
  const throttle = config.failedAuthPerMinute
    ? `${config.failedAuthPerMinute} failed authentications per minute and address, counted ${counters.description}`
    : 'off'
  console.log(`Throttle: ${throttle}.`)
  console.log(`Listening on ${origin}`)
  if (config.consoleIdleMinutes !== 'off') console.log(`Console: ${origin}/console/`)
}

async function main(): Promise<void> {
  const config = readConfig()
  if (config.feedFreshness === 'redis') feedName = "the change feed's Redis relay"
  // Redis first: a wrong KEYWARD_REDIS_URL is refused within 2 s, before the database is opened.
  const counters = await openCounters(config, (event) => console.log(formatCountersEvent(event)))
  let storage: Awaited<ReturnType<typeof openStorage>>
  try {
    storage = await openStorage(config, (event) => console.log(formatReplicaEvent(event)))
  } catch (error) {
    await counters.close()
    throw error
  }
  const { store, description, verificationsCurrent } = storage
  storeErrors = storeErrorLog({ write: (line) => console.log(line), probe: () => store.query('SELECT 1') })
  console.log(`Keyward reference server. Data: ${description}.`)
  try {
    await serveOn(store, config, counters, verificationsCurrent)
  } catch (error) {
    exitAfterClosing(store, 1, counters)
    throw error
  }
}

main().catch((error: unknown) => {
  console.error(`keyward-server: ${error instanceof Error ? error.message : String(error)}`)
  process.exitCode = 1
})
