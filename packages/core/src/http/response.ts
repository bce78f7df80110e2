import { errorBody, KeywardError, toKeywardError } from '../errors/error.js'
import { ErrorType } from '../errors/types.js'
import type { KeywardResponse } from './types.js'

const JSON_HEADERS: Readonly<Record<string, string>> = { 'content-type': 'application/json; charset=utf-8' }

// RFC 6750 section 3: a request without a token gets the bare challenge, a bad token the error code.
const BEARER_CHALLENGE: Partial<Record<ErrorType, string>> = {
  token_missing: 'Bearer',
  token_invalid: 'Bearer error="invalid_token"',
}

/**
 * A JSON response: `value` serialized once, with `content-type: application/json; charset=utf-8`.
 *
 * @example
 * ```ts
 * jsonResponse(200, { status: 'ok' }) // { status: 200, headers: {...}, body: '{"status":"ok"}' }
 * ```
 */
export function jsonResponse(
  status: number,
  value: unknown,
  headers?: Readonly<Record<string, string>>,
): KeywardResponse {
  return {
    status,
    headers: headers ? { ...JSON_HEADERS, ...headers } : JSON_HEADERS,
    body: JSON.stringify(value),
  }
}

/**
 * Seconds a client is told to wait (`Retry-After`) after a 503 `store_unavailable`.
 *
 * @example
 * ```ts
 * errorResponse(storeDown).headers['retry-after'] // String(STORE_RETRY_AFTER_SECONDS)
 * ```
 */
export const STORE_RETRY_AFTER_SECONDS = 5

/**
 * The response for any failure: a {@link KeywardError} gets its status and the specification's
 * body; bearer-token errors add `WWW-Authenticate: Bearer` (RFC 6750); anything else becomes a
 * bare 500 `internal_error` that says nothing of it. Every error carries `Cache-Control:
 * no-store`; a 503 carries `Retry-After`, and an error's own `headers` are added.
 *
 * @example
 * ```ts
 * app.onError((err, c) => {
 *   const { status, headers, body } = errorResponse(err)
 *   return new Response(body, { status, headers })
 * })
 * ```
 */
export function errorResponse(error: unknown): KeywardResponse {
  const err = toKeywardError(error)
  // A frozen error never changes (the shared refusals of unknown keys, of the throttle): its
  // response is built once and shared too, so a flood of them is answered without a
  // serialization each.
  if (!Object.isFrozen(err)) return buildErrorResponse(err)
  let response = answered.get(err)
  if (!response) {
    response = buildErrorResponse(err)
    Object.freeze(response.headers)
    answered.set(err, Object.freeze(response))
  }
  return response
}

const answered = new WeakMap<KeywardError, KeywardResponse>()

function buildErrorResponse(err: KeywardError): KeywardResponse {
  const challenge = BEARER_CHALLENGE[err.type]
  const headers: Record<string, string> = { 'cache-control': 'no-store' }
  if (challenge) headers['www-authenticate'] = challenge
  if (err.status === 503) headers['retry-after'] = String(STORE_RETRY_AFTER_SECONDS)
  return jsonResponse(err.status, errorBody(err), err.headers ? { ...headers, ...err.headers } : headers)
}

/**
 * The answer for a request that no route matched: 404 `not_found` in the specification's format.
 * Each adapter's not-found handler sends it.
 *
 * @example
 * ```ts
 * app.notFound((c) => send(c, notFoundResponse()))
 * ```
 */
export function notFoundResponse(): KeywardResponse {
  return errorResponse(new KeywardError(ErrorType.notFound, 'Not found.', []))
}
