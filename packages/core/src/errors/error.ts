import { ERROR_STATUS, ErrorType } from './types.js'

/** One element of an error body's `detail` array, as the specification defines it. */
export interface ErrorDetail {
  /** Where the faulty input is, e.g. `["header", "x-api-key"]` or `["body", "name"]`. */
  readonly loc: readonly string[]
  /** For humans. Never more of a presented key than its first 8 characters. */
  readonly msg: string
  /** A stable {@link ErrorType} code. */
  readonly type: string
}

/** The JSON body of every error response: `{"detail": [{"loc", "msg", "type"}]}`. */
export interface ErrorBody {
  readonly detail: readonly ErrorDetail[]
}

/**
 * The one error class of Keyward. `type` is a stable code, `status` its HTTP status
 * (from {@link ERROR_STATUS}), `loc` and `msg` the first detail; `details` holds all of
 * them (a validation failure may report several fields).
 *
 * @example
 * ```ts
 * try {
 *   await keyward.authenticate({ projectKey }, { scope: 'project', projectId })
 * } catch (err) {
 *   if (err instanceof KeywardError) reply(err.status, errorBody(err))
 *   else throw err
 * }
 * ```
 */
export class KeywardError extends Error {
  readonly type: ErrorType
  readonly status: number
  readonly loc: readonly string[]
  readonly msg: string
  readonly details: readonly ErrorDetail[]
  /**
   * Response headers the error needs besides the usual ones (lower-case names), e.g.
   * `retry-after` on a 429, or `connection: close` on a 413 whose body was left unread.
   */
  readonly headers: Readonly<Record<string, string>> | undefined

  constructor(
    type: ErrorType,
    msg: string,
    loc: readonly string[],
    options: {
      details?: readonly ErrorDetail[]
      cause?: unknown
      headers?: Readonly<Record<string, string>>
    } = {},
  ) {
    super(msg, options.cause === undefined ? undefined : { cause: options.cause })
    this.name = 'KeywardError'
    this.type = type
    this.status = ERROR_STATUS[type]
    this.loc = loc
    this.msg = msg
    this.details = options.details ?? [{ loc, msg, type }]
    this.headers = options.headers
  }
}

/**
 * Whether a value is a Keyward error. Works across copies of the package (ESM and CJS
 * both loaded), where `instanceof` would not.
 *
 * @example
 * ```ts
 * if (isKeywardError(err)) console.error(err.type)
 * ```
 */
export function isKeywardError(value: unknown): value is KeywardError {
  return (
    value instanceof KeywardError ||
    (value instanceof Error &&
      value.name === 'KeywardError' &&
      typeof (value as { type?: unknown }).type === 'string' &&
      typeof (value as { status?: unknown }).status === 'number')
  )
}

/**
 * Renders an error as the specification's body. Anything that is not a
 * {@link KeywardError} becomes a bare `internal_error`, with nothing of its message.
 *
 * @example
 * ```ts
 * errorBody(err) // { detail: [{ loc: ['header', 'x-api-key'], msg: '...', type: 'key_invalid' }] }
 * ```
 */
export function errorBody(error: unknown): ErrorBody {
  return { detail: toKeywardError(error).details.map((d) => ({ loc: [...d.loc], msg: d.msg, type: d.type })) }
}

/**
 * Returns the error itself when it is a {@link KeywardError}, otherwise a 500
 * `internal_error` that keeps the original as `cause` and says nothing of it.
 *
 * @example
 * ```ts
 * const err = toKeywardError(caught)
 * reply(err.status, errorBody(err))
 * ```
 */
export function toKeywardError(error: unknown): KeywardError {
  if (isKeywardError(error)) return error
  return new KeywardError(ErrorType.internalError, 'Internal error.', [], { cause: error })
}
