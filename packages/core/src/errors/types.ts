/**
 * Every error type Keyward produces: the stable `type` code of an error body.
 * Switch on these, never on messages.
 *
 * @example
 * ```ts
 * if (err instanceof KeywardError && err.type === ErrorType.keyInvalid) { ... }
 * ```
 */
export const ErrorType = {
  /** No credential in the header the operation needs. */
  keyMissing: 'key_missing',
  /** Too short, wrong length, wrong prefix, a character outside the alphabet, or several values. */
  keyMalformed: 'key_malformed',
  /** A legacy `dk_` developer key while the policy rejects them. */
  keyLegacyPrefix: 'key_legacy_prefix',
  /** Well-formed but unknown, or known but not active: one answer for both. */
  keyInvalid: 'key_invalid',
  /** A real key of the other type (a developer key in `X-API-Key`, or the reverse). */
  keyWrongType: 'key_wrong_type',
  /** No bearer token where one is needed. */
  tokenMissing: 'token_missing',
  /** A bearer token that is malformed, expired or invalid. */
  tokenInvalid: 'token_invalid',
  /** A project key of another project than the request's `project_id`. */
  projectMismatch: 'project_mismatch',
  /** The developer is not the owner of the project. */
  notProjectOwner: 'not_project_owner',
  /** The resource does not exist or is not visible to the caller. */
  notFound: 'not_found',
  /** The route exists but not with this method. */
  methodNotAllowed: 'method_not_allowed',
  /** The owner already has its limit of active keys. */
  limitExceeded: 'limit_exceeded',
  /** The request body is larger than the server accepts. */
  payloadTooLarge: 'payload_too_large',
  /** The request body is not JSON (`Content-Type` other than `application/json`) where JSON is expected. */
  unsupportedMediaType: 'unsupported_media_type',
  /**
   * The client address is throttled after too many failed verifications, or a key's own rate
   * limit is spent. The response carries `Retry-After`.
   */
  rateLimited: 'rate_limited',
  /** The request body is not valid JSON. */
  jsonInvalid: 'json_invalid',
  /** The body is not a JSON object. */
  dictType: 'dict_type',
  /** A required field is missing. */
  missing: 'missing',
  /** A field should be a string. */
  stringType: 'string_type',
  /** A string is shorter than allowed. */
  stringTooShort: 'string_too_short',
  /** A string is longer than allowed. */
  stringTooLong: 'string_too_long',
  /** A string holds characters it may not hold (a name with a control character). */
  stringPatternMismatch: 'string_pattern_mismatch',
  /** A path or body value should be a UUID. */
  uuidParsing: 'uuid_parsing',
  /** The key store cannot be reached or timed out. Keyward fails closed. */
  storeUnavailable: 'store_unavailable',
  /** An unexpected failure; the body says nothing more. */
  internalError: 'internal_error',
} as const

/** One of the {@link ErrorType} codes. */
export type ErrorType = (typeof ErrorType)[keyof typeof ErrorType]

/**
 * The one table from error type to HTTP status. No adapter has its own.
 *
 * @example
 * ```ts
 * ERROR_STATUS.key_invalid // 401
 * ```
 */
export const ERROR_STATUS: Readonly<Record<ErrorType, number>> = {
  key_missing: 401,
  key_malformed: 401,
  key_legacy_prefix: 401,
  key_invalid: 401,
  key_wrong_type: 401,
  token_missing: 401,
  token_invalid: 401,
  project_mismatch: 403,
  not_project_owner: 403,
  not_found: 404,
  method_not_allowed: 405,
  limit_exceeded: 409,
  payload_too_large: 413,
  unsupported_media_type: 415,
  rate_limited: 429,
  json_invalid: 422,
  dict_type: 422,
  missing: 422,
  string_type: 422,
  string_too_short: 422,
  string_too_long: 422,
  string_pattern_mismatch: 422,
  uuid_parsing: 422,
  store_unavailable: 503,
  internal_error: 500,
}
