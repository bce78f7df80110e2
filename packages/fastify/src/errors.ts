import { type BodyProblem, bodyError, errorResponse, isKeywardError, notFoundResponse } from '@keyward/core'
import type { FastifyReply, FastifyRequest } from 'fastify'
import { send } from './index.js'

// Fastify's body parser errors, as Keyward words them.
const PARSER_ERRORS: Readonly<Record<string, BodyProblem>> = {
  FST_ERR_CTP_INVALID_JSON_BODY: 'invalid_json',
  FST_ERR_CTP_EMPTY_JSON_BODY: 'invalid_json',
  FST_ERR_CTP_BODY_TOO_LARGE: 'too_large',
  FST_ERR_CTP_INVALID_MEDIA_TYPE: 'unsupported_media_type',
}

/**
 * An error handler that answers in the specification's format a `KeywardError` thrown by your
 * routes and the errors of Fastify's body parser (bad JSON 422, too large 413, media type 415),
 * and hands any other error to the parent handler, untouched.
 *
 * @example
 * ```ts
 * fastify.setErrorHandler(keywardErrorHandler)
 * ```
 */
export function keywardErrorHandler(
  error: unknown,
  _request: FastifyRequest,
  reply: FastifyReply,
): FastifyReply {
  if (isKeywardError(error)) return send(reply, errorResponse(error))
  const code = (error as { code?: unknown } | null)?.code
  if (typeof code === 'string' && Object.hasOwn(PARSER_ERRORS, code)) {
    return send(reply, errorResponse(bodyError(PARSER_ERRORS[code]!)))
  }
  throw error
}

/**
 * A not-found handler: 404 `not_found` in the specification's format for every request no route
 * matched.
 *
 * @example
 * ```ts
 * fastify.setNotFoundHandler(keywardNotFoundHandler)
 * ```
 */
export function keywardNotFoundHandler(_request: FastifyRequest, reply: FastifyReply): FastifyReply {
  return send(reply, notFoundResponse())
}
