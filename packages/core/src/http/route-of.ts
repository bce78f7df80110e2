import type { KeywardRequest } from './types.js'

/**
 * A request's route, as usage counts refusals of unknown keys by it: the method and the path
 * with each path parameter's value put back as its name (`GET /api/v1/projects/:project_id/api-keys`),
 * so that a flood on many ids counts under one route. The query string is left out.
 *
 * @example
 * ```ts
 * routeOf({ method: 'GET', url: '/api/v1/projects/p1/api-keys?limit=5', params: { project_id: 'p1' }, header: () => undefined })
 * // 'GET /api/v1/projects/:project_id/api-keys'
 * ```
 */
export function routeOf(request: Pick<KeywardRequest, 'method' | 'url' | 'params'>): string {
  let path = request.url
  const scheme = path.indexOf('://')
  if (scheme >= 0) {
    const slash = path.indexOf('/', scheme + 3)
    path = slash < 0 ? '/' : path.slice(slash)
  }
  const end = path.search(/[?#]/)
  if (end >= 0) path = path.slice(0, end)
  const params = request.params ?? {}
  const names = new Map<string, string>()
  for (const name of Object.keys(params)) {
    const value = params[name]
    if (value) names.set(value, name)
  }
  const segments = path.split('/').map((segment) => {
    if (names.size === 0) return segment
    let decoded = segment
    try {
      decoded = decodeURIComponent(segment)
    } catch {
      // left as sent
    }
    const name = names.get(decoded)
    return name === undefined ? segment : `:${name}`
  })
  // Bounded: a long path costs its route no more than 200 characters.
  return `${request.method} ${segments.join('/')}`.slice(0, 200)
}
