import { type BodyProblem, bodyError, errorResponse, isKeywardError, notFoundResponse } from '@keyward/core'
import type { ErrorRequestHandler, RequestHandler } from 'express'
import { send } from './index.js'

// body-parser's error types (express.json()), as Keyward words them.
const BODY_PARSER_ERRORS: Readonly<Record<string, BodyProblem>> = {
  'entity.parse.failed': 'invalid_json',
  'entity.too.large': 'too_large',
  'encoding.unsupported': 'unsupported_media_type',
  'charset.unsupported': 'unsupported_media_type',
}

const bodyParserProblem = (err: unknown) => {
  const type = (err as { type?: unknown } | null)?.type
  return typeof type === 'string' && Object.hasOwn(BODY_PARSER_ERRORS, type)
    ? BODY_PARSER_ERRORS[type]
    : undefined
}

/**
 * An error middleware that answers in the specification's format a `KeywardError` thrown by your
 * routes and the errors of body-parser (`express.json()`): bad JSON (422 `json_invalid`), a body
 * over its limit (413 `payload_too_large`), an unsupported encoding or charset (415). Any other
 * error goes on to your own error handlers, untouched.
 *
 * @example
 * ```ts
 * app.use(express.json())
 * // ... routes
 * app.use(keywardErrorHandler())
 * ```
 */
export function keywardErrorHandler(): ErrorRequestHandler {
  return (err, _req, res, next) => {
    if (isKeywardError(err)) return send(res, errorResponse(err))
    const problem = bodyParserProblem(err)
    if (problem) return send(res, errorResponse(bodyError(problem, (err as { limit?: number }).limit)))
    next(err)
  }
}

/**
 * A last middleware that answers every request no route matched with 404 `not_found` in the
 * specification's format, instead of Express's HTML page.
 *
 * @example
 * ```ts
 * app.use(keywardNotFound())
 * app.use(keywardErrorHandler())
 * ```
 */
export function keywardNotFound(): RequestHandler {
  return (_req, res) => send(res, notFoundResponse())
}
