import { createServer, type RequestListener, type ServerOptions } from 'node:http'
import type { AddressInfo } from 'node:net'
import { serve } from '@hono/node-server'
import { type Keyward, type KeywardEvent, throttleListener } from '@keyward/core'
import type { PostgresKeyStore } from '@keyward/postgres'
import { createApp } from './app.js'
import { readConfig, type ServerConfig } from './config.js'
import { registerFirstDeveloper } from './db/developers.js'
import { formatEvent, formatReplicaEvent } from './log.js'
import { type Counters, openCounters, protectionOf } from './protection.js'
import { keywardOver } from './service.js'
import { openStorage, tokenSecret } from './storage.js'
import { accessTokens } from './tokens.js'

const SHUTDOWN_GRACE_MS = 10_000

const onEvent = (event: KeywardEvent) => {
  const line = formatEvent(event)
  if (line !== undefined) console.log(line)
}

/**
 * Ends the process once the database is closed, so that PGlite's data stays whole; writes
 * the pending `last_used_at` uses first.
 */
function exitAfterClosing(
  store: PostgresKeyStore,
  code: number,
  counters?: Counters,
  keyward?: Keyward,
): void {
  Promise.resolve(keyward?.flushLastUsed())
    .then(() => Promise.all([store.close(), counters?.close()]))
    .then(
      () => process.exit(code),
      (error: unknown) => {
        console.error(`keyward-server: closing the database failed: ${String(error)}`)
        process.exit(1)
      },
    )
}

/** Where the console answers, from the configured address. */
function consoleUrl(config: ServerConfig): string | undefined {
  if (config.consoleIdleMinutes === 'off') return undefined
  const host = config.host.includes(':') ? `[${config.host}]` : config.host
  return `http://${host}:${config.port}/console/`
}

/** On first start, registers a developer and prints their key: the one time it is shown. */
async function registerOnFirstStart(store: PostgresKeyStore, config: ServerConfig): Promise<void> {
  const first = await registerFirstDeveloper(store, (tx) => keywardOver(tx, onEvent))
  if (!first) return
  const url = consoleUrl(config)
  console.log(
    [
      '',
      `First start: registered developer ${first.developerId}.`,
      '',
      `  Developer key  ${first.key}`,
      ...(url && config.port !== 0 ? [`  Console        ${url}`] : []),
      '',
      'This key will not be shown again: store it now, e.g. as SERVICE_DEVELOPER_KEY.',
      ...(url ? ['Sign in to the console with it to create projects and keys in your browser.'] : []),
      '',
    ].join('\n'),
  )
}

async function listen(
  store: PostgresKeyStore,
  config: ServerConfig,
  counters: Counters,
  verificationsCurrent: boolean,
): Promise<void> {
  await registerOnFirstStart(store, config)
  const { secret, ephemeral } = await tokenSecret(store, config.tokenSecret)
  if (ephemeral) {
    console.log(
      'KEYWARD_TOKEN_SECRET is not set: access tokens are signed with a secret of this process and end with it.',
    )
  }
  const tokens = accessTokens({ secret, ttlSeconds: config.tokenTtlSeconds })
  const protection = protectionOf(config, counters.limiter)
  const keyPolicies = config.maxApiKeyLifetimeDays
    ? { project: { maxLifetimeDays: config.maxApiKeyLifetimeDays } }
    : undefined
  const keyward = keywardOver(store, onEvent, protection, config.cache, keyPolicies)
  const keysUrl = config.secretScanningKeysUrl
  const app = createApp({
    store,
    tokens,
    onEvent,
    protection,
    keyward,
    secretScanning: keysUrl ? { keysUrl } : {},
    verificationsCurrent,
    ...(keyPolicies ? { keyPolicies } : {}),
    console: config.consoleIdleMinutes === 'off' ? false : { idleTimeoutMinutes: config.consoleIdleMinutes },
  })
  const throttle = config.failedAuthPerMinute
    ? `${config.failedAuthPerMinute} failed authentications per minute and address, counted ${counters.description}`
    : 'off'
  console.log(`Throttle: ${throttle}.`)
  const server = serve(
    {
      fetch: app.fetch,
      hostname: config.host,
      port: config.port,
      // A credentialed request from an address known to be throttled is answered 429 before Hono
      // sees it: a flood of guesses costs the server about half what a valid request costs.
      createServer: ((options: ServerOptions, listener: RequestListener) =>
        createServer(options, throttleListener(keyward, listener))) as typeof createServer,
    },
    (info: AddressInfo) => {
      const host = info.family === 'IPv6' ? `[${info.address}]` : info.address
      console.log(`Listening on http://${host}:${info.port}`)
      if (config.consoleIdleMinutes !== 'off') console.log(`Console: http://${host}:${info.port}/console/`)
    },
  )
  server.on('error', (error: Error) => {
    console.error(`keyward-server: cannot listen on ${config.host}:${config.port}: ${error.message}`)
    exitAfterClosing(store, 1, counters)
  })

  let stopping = false
  const stop = (signal: NodeJS.Signals) => {
    if (stopping) process.exit(1) // a second signal: stop now
    stopping = true
    console.log(`${signal}: closing.`)
    setTimeout(() => process.exit(1), SHUTDOWN_GRACE_MS).unref()
    // Requests in flight finish, then the database closes.
    server.close(() => exitAfterClosing(store, 0, counters, keyward))
    if ('closeIdleConnections' in server) server.closeIdleConnections()
  }
  process.on('SIGINT', stop)
  process.on('SIGTERM', stop)
}

async function main(): Promise<void> {
  const config = readConfig()
  const { store, description, verificationsCurrent } = await openStorage(config, (event) =>
    console.log(formatReplicaEvent(event)),
  )
  console.log(`Keyward reference server. Data: ${description}.`)
  let counters: Counters | undefined
  try {
    counters = await openCounters(config)
    await listen(store, config, counters, verificationsCurrent)
  } catch (error) {
    exitAfterClosing(store, 1, counters)
    throw error
  }
}

main().catch((error: unknown) => {
  console.error(`keyward-server: ${error instanceof Error ? error.message : String(error)}`)
  process.exitCode = 1
})
