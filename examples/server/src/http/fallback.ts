import { ErrorType, KeywardError, notFoundResponse } from '@keyward/core'
import { send } from '@keyward/hono'
import type { Hono, NotFoundHandler } from 'hono'
import { refuse } from './respond.js'

const literal = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')

/** A route path of Hono (`/a/:id/b`) as a pattern for request paths. */
const pathPattern = (path: string) =>
  new RegExp(
    `^${path
      .split(/(:[A-Za-z_]\w*)/)
      .map((part, i) => (i % 2 ? '[^/]+' : literal(part)))
      .join('')}$`,
  )

/**
 * What `app` answers when no route matches: 405 `method_not_allowed` (with `Allow`) when the
 * path has routes for other methods, else 404 `not_found`. Both in the specification's format.
 */
export function routeFallback(app: Hono): NotFoundHandler {
  let routes: Array<{ method: string; pattern: RegExp }> | undefined
  return (c) => {
    routes ??= app.routes
      .filter((route) => route.method !== 'ALL')
      .map((route) => ({ method: route.method, pattern: pathPattern(route.path) }))
    const allowed = [...new Set(routes.filter((r) => r.pattern.test(c.req.path)).map((r) => r.method))]
    if (allowed.length === 0) return send(c, notFoundResponse())
    const allow = allowed.includes('GET') ? [...allowed, 'HEAD'] : allowed
    return refuse(
      c,
      new KeywardError(ErrorType.methodNotAllowed, `This path allows ${allow.join(', ')} only.`, []),
      { allow: allow.join(', ') },
    )
  }
}
