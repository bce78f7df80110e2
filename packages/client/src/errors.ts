import { ERROR_STATUS, type ErrorDetail, type ErrorType } from '@keyward/core/client'

/** Whether a `type` from a server's answer is one of Keyward's error types. */
export const isErrorType = (type: string | undefined): type is ErrorType =>
  type !== undefined && Object.hasOwn(ERROR_STATUS, type)

/**
 * The server answered, but not with a success the client can use: an error status (its
 * `{"detail": [...]}` body is in `detail`, the first element's `type` in `type`), a redirect
 * (never followed, so that keys are not sent elsewhere), or a success body that is not JSON.
 * `type` is one of Keyward's error types (switch on it), or `null` when the body is not a Keyward
 * error body (a proxy's 502 page, say) or names a type this client does not know (it is still in
 * `detail`).
 *
 * @example
 * ```ts
 * try {
 *   await client.developerKeys.create({ name: 'ci' })
 * } catch (err) {
 *   if (err instanceof KeywardApiError && err.type === 'limit_exceeded') {
 *     // 409: deactivate a key first
 *   }
 * }
 * ```
 */
export class KeywardApiError extends Error {
  /** The HTTP status of the answer. */
  readonly status: number
  /** The `type` of the first detail (an `ErrorType` code such as `key_invalid`), or `null`. */
  readonly type: ErrorType | null
  /** The body's `detail` array: `{loc, msg, type}` for each problem; empty if there was none. */
  readonly detail: readonly ErrorDetail[]
  /** The request's method. */
  readonly method: string
  /** The request's API path, e.g. `/api/v1/projects` (without the base URL). */
  readonly path: string

  constructor(init: {
    status: number
    detail: readonly ErrorDetail[]
    method: string
    path: string
    message: string
  }) {
    super(init.message)
    this.name = 'KeywardApiError'
    this.status = init.status
    this.detail = init.detail
    const type = init.detail[0]?.type
    this.type = isErrorType(type) ? type : null
    this.method = init.method
    this.path = init.path
  }
}

/** Why a request got no answer: the server could not be reached, or it did not answer in time. */
export type NetworkFailure = 'unreachable' | 'timeout'

/**
 * The request got no answer at all: connection refused, DNS failure, reset, or the client's
 * timeout. The platform's error is the `cause`. A request aborted through the caller's own
 * `signal` rejects with that signal's reason instead.
 *
 * @example
 * ```ts
 * try {
 *   await client.health()
 * } catch (err) {
 *   if (err instanceof KeywardNetworkError) console.error(`${err.baseUrl} is down (${err.reason})`)
 * }
 * ```
 */
export class KeywardNetworkError extends Error {
  /** `unreachable` or `timeout`. */
  readonly reason: NetworkFailure
  /** The request's method. */
  readonly method: string
  /** The request's API path (without the base URL). */
  readonly path: string
  /** The server the request went to: the client's base URL. */
  readonly baseUrl: string

  constructor(init: {
    reason: NetworkFailure
    method: string
    path: string
    baseUrl: string
    message: string
    cause?: unknown
  }) {
    super(init.message, init.cause === undefined ? undefined : { cause: init.cause })
    this.name = 'KeywardNetworkError'
    this.reason = init.reason
    this.method = init.method
    this.path = init.path
    this.baseUrl = init.baseUrl
  }
}
