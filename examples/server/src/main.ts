import type { AddressInfo } from 'node:net'
import { serve } from '@hono/node-server'
import type { KeywardEvent } from '@keyward/core'
import { createApp } from './app.js'
import { ConfigError, readConfig } from './config.js'
import { registerFirstDeveloper } from './db/developers.js'
import { formatEvent } from './log.js'
import { keywardOver } from './service.js'
import { openStorage, tokenSecret } from './storage.js'
import { accessTokens } from './tokens.js'

const SHUTDOWN_GRACE_MS = 10_000

const onEvent = (event: KeywardEvent) => console.log(formatEvent(event))

async function main(): Promise<void> {
  const config = readConfig()
  const { store, description } = await openStorage(config)
  console.log(`Keyward reference server. Data: ${description}.`)

  const first = await registerFirstDeveloper(store, (tx) => keywardOver(tx, onEvent))
  if (first) {
    console.log(
      [
        '',
        `First start: registered developer ${first.developerId}.`,
        '',
        `  Developer key  ${first.key}`,
        '',
        'This key will not be shown again: store it now, e.g. as SERVICE_DEVELOPER_KEY.',
        '',
      ].join('\n'),
    )
  }

  const tokens = accessTokens({
    secret: await tokenSecret(store, config.tokenSecret),
    ttlSeconds: config.tokenTtlSeconds,
  })
  const app = createApp({ store, tokens, onEvent })
  const server = serve(
    { fetch: app.fetch, hostname: config.host, port: config.port },
    (info: AddressInfo) => {
      const host = info.family === 'IPv6' ? `[${info.address}]` : info.address
      console.log(`Listening on http://${host}:${info.port}`)
    },
  )

  let stopping = false
  const stop = (signal: NodeJS.Signals) => {
    if (stopping) process.exit(1) // a second signal: stop now
    stopping = true
    console.log(`${signal}: closing.`)
    // Requests in flight finish; then the database closes cleanly, so PGlite's data is whole.
    setTimeout(() => process.exit(1), SHUTDOWN_GRACE_MS).unref()
    server.close(() => {
      store.close().then(
        () => process.exit(0),
        (error: unknown) => {
          console.error(`keyward-server: closing the database failed: ${String(error)}`)
          process.exit(1)
        },
      )
    })
    if ('closeIdleConnections' in server) server.closeIdleConnections()
  }
  process.on('SIGINT', stop)
  process.on('SIGTERM', stop)
}

main().catch((error: unknown) => {
  const message = error instanceof ConfigError || error instanceof Error ? error.message : String(error)
  console.error(`keyward-server: ${message}`)
  process.exit(1)
})
