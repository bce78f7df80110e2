import {
  createKeyRoutes,
  type KeyRoute,
  type KeyRoutesOptions,
  type Keyward,
  notFoundResponse,
} from '@keyward/core'
import { type FetchContext, type FetchHandler, send, toKeywardRequest } from './index.js'

/** A key route with its path as a pattern: `:name` segments become groups. */
interface MatchedRoute {
  readonly route: KeyRoute
  readonly pattern: RegExp
  readonly names: readonly string[]
}

function compile(route: KeyRoute): MatchedRoute {
  const names: string[] = []
  const source = route.path
    .split('/')
    .map((segment) => {
      if (!segment.startsWith(':')) return segment.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
      names.push(segment.slice(1))
      return '([^/]+)'
    })
    .join('/')
  return { route, pattern: new RegExp(`^${source}/?$`), names }
}

// A segment as routers decode it; one that is not valid percent-encoding stays as it came.
function decode(segment: string): string {
  try {
    return decodeURIComponent(segment)
  } catch {
    return segment
  }
}

/**
 * One handler for every key-management endpoint (developer keys, project API keys, with
 * `createProject` project creation, and with `secretScanning` the leaked-key alert endpoint),
 * matched on the request's method and path. Anything else answers 404 `not_found` in the
 * specification's format. Mount it at a catch-all route: in Next.js,
 * `app/api/v1/[...path]/route.ts`. The `context`'s `params` are not read (the paths are matched
 * here); its `address` is the client's.
 *
 * @example
 * ```ts
 * // app/api/v1/[...path]/route.ts
 * const handler = keywardHandler(keyward, { createProject })
 * export { handler as GET, handler as POST, handler as DELETE }
 * ```
 */
export function keywardHandler(keyward: Keyward, options: KeyRoutesOptions = {}): FetchHandler {
  const routes = createKeyRoutes(keyward, options).map(compile)
  return async (request: Request, context?: FetchContext) => {
    const path = new URL(request.url).pathname
    for (const { route, pattern, names } of routes) {
      if (route.method !== request.method) continue
      const match = pattern.exec(path)
      if (!match) continue
      const params = Object.fromEntries(names.map((name, i) => [name, decode(match[i + 1]!)]))
      return send(await route.handle(toKeywardRequest(request, { params, address: context?.address })))
    }
    return send(notFoundResponse())
  }
}
