import { openApiDocument } from '@keyward/core'
import { Hono } from 'hono'

// The document changes only with the server's version, and holds nothing of any caller: any
// cache may keep it, for 5 minutes, so a new version's document is seen soon after a deploy.
const CACHE_CONTROL = 'public, max-age=300'

/** Where the webhook endpoints' routes are. */
export const WEBHOOKS_PATH = '/api/v1/webhooks/'

/**
 * `GET /openapi.json`: the OpenAPI 3.1 document of every endpoint, as Keyward's core builds
 * it; without the webhooks (their endpoints and events) when the store keeps none. The one JSON
 * answer of the server that may be cached (`Cache-Control: public, max-age=300`).
 */
export function openApiRoutes(webhooks: boolean): Hono {
  const full = openApiDocument({ title: 'Keyward reference server' })
  const { webhooks: events, ...withoutEvents } = full
  const document = JSON.stringify(
    webhooks
      ? full
      : {
          ...withoutEvents,
          paths: Object.fromEntries(
            Object.entries(full.paths as Record<string, unknown>).filter(
              ([path]) => !path.startsWith(WEBHOOKS_PATH),
            ),
          ),
        },
  )
  return new Hono().get('/openapi.json', (c) =>
    c.body(document, 200, {
      'content-type': 'application/json; charset=utf-8',
      'cache-control': CACHE_CONTROL,
    }),
  )
}
