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
  // Set by `fill`, which refusals share with the constructor.
  declare readonly type: ErrorType
  declare readonly status: number
  declare readonly loc: readonly string[]
  declare readonly msg: string
  declare readonly details: readonly ErrorDetail[]
  /**
   * Response headers the error needs besides the usual ones (lower-case names), e.g.
   * `retry-after` on a 429, or `connection: close` on a 413 whose body was left unread.
   */
  declare readonly headers: Readonly<Record<string, string>> | undefined

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
    fill(this, type, msg, loc, options.details, options.headers)
  }
}

/**
 * @internal A {@link KeywardError} built without running `Error`'s constructor, for the
 * refusals of verification: they are answers to a caller, not faults to debug, and building a
 * native error (stack capture, even with none kept) costs more than the whole verification
 * (see bench/). It is a `KeywardError` and an `Error` by `instanceof`, with the same fields;
 * its `stack` is its first line only.
 */
export function refusal(type: ErrorType, msg: string, loc: readonly string[]): KeywardError {
  const error = Object.create(KeywardError.prototype) as KeywardError
  fill(error, type, msg, loc)
  ;(error as { message: string }).message = msg
  ;(error as { stack: string }).stack = `KeywardError: ${msg}`
  return error
}

function fill(
  error: KeywardError,
  type: ErrorType,
  msg: string,
  loc: readonly string[],
  details: readonly ErrorDetail[] = [{ loc, msg, type }],
  headers?: Readonly<Record<string, string>>,
): void {
  const target = error as { -readonly [K in keyof KeywardError]: KeywardError[K] }
  target.name = 'KeywardError'
  target.type = type
  target.status = ERROR_STATUS[type]
  target.loc = loc
  target.msg = msg
  target.details = details
  target.headers = headers
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
