/**
 * `@keyward/console/hono`: the console as Hono middleware.
 *
 * @packageDocumentation
 */
import { KEY_HEADER } from '@keyward/core'
import { toKeywardRequest } from '@keyward/hono'
import type { Context, MiddlewareHandler } from 'hono'
import type { KeywardConsole } from './console.js'

// An incoming request's headers are immutable on some runtimes: then the request is copied.
function setDeveloperKey(c: Context, developerKey: string): void {
  try {
    c.req.raw.headers.set(KEY_HEADER.developer, developerKey)
  } catch {
    const headers = new Headers(c.req.raw.headers)
    headers.set(KEY_HEADER.developer, developerKey)
    c.req.raw = new Request(c.req.raw, { headers })
  }
}

/**
 * Serves the console at its `basePath` and authenticates the signed-in page's calls to the key
 * routes. Use it before the routes, on every path.
 *
 * @example
 * ```ts
 * const app = new Hono()
 * app.use(consoleMiddleware(createConsole(keyward)))
 * app.route('/', keywardRoutes(keyward, { createProject, listProjects }))
 * ```
 */
export function consoleMiddleware(console: KeywardConsole): MiddlewareHandler {
  return async (c, next) => {
    const secure = new URL(c.req.url).protocol === 'https:'
    const answer = await console.handle(toKeywardRequest(c), { secure })
    if (answer.type === 'respond') {
      const { status, headers, body } = answer.response
      return new Response(status === 204 || status === 308 ? null : (body as BodyInit), { status, headers })
    }
    if (answer.type === 'authenticate') setDeveloperKey(c, answer.developerKey)
    await next()
  }
}
