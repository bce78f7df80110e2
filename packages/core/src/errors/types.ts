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
  /** A secret-scanning alert without its signature or key-identifier header. */
  signatureMissing: 'signature_missing',
  /** A secret-scanning alert whose signature does not verify, or names an unknown key. */
  signatureInvalid: 'signature_invalid',
  /** A project key of another project than the request's `project_id`. */
  projectMismatch: 'project_mismatch',
  /** The developer is not the owner of the project. */
  notProjectOwner: 'not_project_owner',
  /** The client address is not in the API key's IP allowlist (or the allowlist cannot be read). */
  ipNotAllowed: 'ip_not_allowed',
  /** The API key lacks a permission the route requires; the message names it. */
  permissionDenied: 'permission_denied',
  /** The resource does not exist or is not visible to the caller. */
  notFound: 'not_found',
  /** The route exists but not with this method. */
  methodNotAllowed: 'method_not_allowed',
  /** The owner already has its limit of active keys. */
  limitExceeded: 'limit_exceeded',
  /** The key was replaced by a roll: it cannot be rolled again or re-activated. */
  keyRolled: 'key_rolled',
  /** The key has expired: it cannot be rolled or re-activated. */
  keyExpired: 'key_expired',
  /** The key is not active: activate it before rolling it. */
  keyInactive: 'key_inactive',
  /** The project has an identity with this `external_id` already. */
  identityExists: 'identity_exists',
  /** The identity still has keys: move or revoke them first, or delete it with `revoke_keys`. */
  identityHasKeys: 'identity_has_keys',
  /** The project has a role of this name already. */
  roleExists: 'role_exists',
  /** Keys still hold the role: detach it from them in the same call (`detach=true`), or take it from them first. */
  roleInUse: 'role_in_use',
  /** The request body is larger than the server accepts. */
  payloadTooLarge: 'payload_too_large',
  /** A secret-scanning alert body that is not JSON, or not an array of matches. */
  alertInvalid: 'alert_invalid',
  /** The request body is not JSON (`Content-Type` other than `application/json`) where JSON is expected. */
  unsupportedMediaType: 'unsupported_media_type',
  /**
   * The client address is throttled after too many failed verifications, or a key's own rate
   * limit is spent. The response carries `Retry-After`.
   */
  rateLimited: 'rate_limited',
  /**
   * The API key's credits cannot pay this request's cost. The response carries the credits left
   * (`X-Credits-Remaining`), and `Retry-After` when a refill is scheduled.
   */
  usageExceeded: 'usage_exceeded',
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
  /** A field should be an integer. */
  intType: 'int_type',
  /** A number is below its minimum. */
  greaterThanEqual: 'greater_than_equal',
  /** A number is above its maximum. */
  lessThanEqual: 'less_than_equal',
  /** A string is not an ISO 8601 date and time with an offset. */
  datetimeParsing: 'datetime_parsing',
  /** A time should be in the future. */
  datetimeFuture: 'datetime_future',
  /** Fields that cannot go together (`expires_at` and `expires_in_days`). */
  valueError: 'value_error',
  /**
   * A field (or a library option) the operation does not know: a typo must never drop a policy
   * silently. The message names the nearest known field.
   */
  extraForbidden: 'extra_forbidden',
  /** A name (of a key, a project) that holds something shaped like a key: it is refused, never stored. */
  keyShapedValue: 'key_shaped_value',
  /**
   * The request breaks HTTP/1.1 (a NUL or CR in a header, an unknown method, a bad chunk size,
   * `Content-Length` with `Transfer-Encoding`): answered by the server's HTTP layer, before any route.
   */
  requestInvalid: 'request_invalid',
  /** The client took longer than the server allows to send the request's headers or the whole request. */
  requestTimeout: 'request_timeout',
  /** An `Expect` header other than `100-continue`. */
  expectationFailed: 'expectation_failed',
  /** The request's headers are larger than the server accepts (16 KiB by default on Node.js). */
  headersTooLarge: 'headers_too_large',
  /** A field should be a JSON array. */
  listType: 'list_type',
  /** A list or an object is larger than allowed (an IP allowlist, metadata). */
  tooLong: 'too_long',
  /** An IP allowlist entry is not an IPv4 or IPv6 address or CIDR range. */
  ipInvalid: 'ip_invalid',
  /** A permission the host did not declare. */
  permissionUnknown: 'permission_unknown',
  /** A role the key's project does not have. */
  roleUnknown: 'role_unknown',
  /** A key would live longer than its owner type's `maxLifetimeDays`. */
  lifetimeExceeded: 'lifetime_exceeded',
  /** The key store cannot be reached or timed out. Keyward fails closed. */
  storeUnavailable: 'store_unavailable',
  /**
   * A revocation (a deactivation, a roll, a narrower policy) was committed, but the store could
   * not confirm in time that every process refuses the key: its change feed was late. Revoking
   * again is harmless and confirms it; the key is refused everywhere once the feed catches up.
   */
  revocationUnconfirmed: 'revocation_unconfirmed',
  /** The public keys that sign secret-scanning alerts could not be fetched. */
  signingKeysUnavailable: 'signing_keys_unavailable',
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
  signature_missing: 401,
  signature_invalid: 401,
  project_mismatch: 403,
  not_project_owner: 403,
  ip_not_allowed: 403,
  permission_denied: 403,
  not_found: 404,
  method_not_allowed: 405,
  limit_exceeded: 409,
  key_rolled: 409,
  key_expired: 409,
  key_inactive: 409,
  identity_exists: 409,
  identity_has_keys: 409,
  role_exists: 409,
  role_in_use: 409,
  payload_too_large: 413,
  alert_invalid: 400,
  unsupported_media_type: 415,
  rate_limited: 429,
  usage_exceeded: 429,
  json_invalid: 422,
  dict_type: 422,
  missing: 422,
  string_type: 422,
  string_too_short: 422,
  string_too_long: 422,
  string_pattern_mismatch: 422,
  uuid_parsing: 422,
  int_type: 422,
  greater_than_equal: 422,
  less_than_equal: 422,
  datetime_parsing: 422,
  datetime_future: 422,
  value_error: 422,
  extra_forbidden: 422,
  key_shaped_value: 422,
  request_invalid: 400,
  request_timeout: 408,
  expectation_failed: 417,
  headers_too_large: 431,
  list_type: 422,
  too_long: 422,
  ip_invalid: 422,
  permission_unknown: 422,
  role_unknown: 422,
  lifetime_exceeded: 422,
  store_unavailable: 503,
  revocation_unconfirmed: 503,
  signing_keys_unavailable: 503,
  internal_error: 500,
}
