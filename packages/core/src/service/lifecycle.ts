import { KeywardError } from '../errors/error.js'
import { ErrorType } from '../errors/types.js'
import type { KeyRecord } from '../store/types.js'

/** @internal One day in milliseconds. */
export const DAY_MS = 86_400_000

/**
 * Longest lifetime a key can be given at creation with `expires_in_days`.
 *
 * @example
 * ```ts
 * await keyward.issueProjectKey(projectId, { expiresInDays: MAX_EXPIRES_IN_DAYS })
 * ```
 */
export const MAX_EXPIRES_IN_DAYS = 3650

/**
 * The grace window of a roll when none is given: one day, in seconds.
 *
 * @example
 * ```ts
 * await keyward.rollKey(keyId, { graceSeconds: DEFAULT_GRACE_SECONDS * 2 })
 * ```
 */
export const DEFAULT_GRACE_SECONDS = 86_400

/**
 * The longest grace window of a roll: seven days, in seconds.
 *
 * @example
 * ```ts
 * await keyward.rollKey(keyId, { graceSeconds: MAX_GRACE_SECONDS })
 * ```
 */
export const MAX_GRACE_SECONDS = 7 * 86_400

// ISO 8601 date and time with an offset (`Z` or `+hh:mm`); a time without one is ambiguous.
const ISO_DATE_TIME =
  /^(\d{4})-(\d{2})-(\d{2})[Tt ](\d{2}):(\d{2})(?::(\d{2})(?:\.\d{1,9})?)?(?:[Zz]|[+-]\d{2}:?\d{2})$/

/** @internal An integer from `min` to `max`, else 422 (`int_type`, `greater_than_equal`, `less_than_equal`) at `loc`. */
export function checkInteger(value: unknown, min: number, max: number, loc: readonly string[]): number {
  if (typeof value !== 'number' || !Number.isInteger(value)) {
    throw new KeywardError(ErrorType.intType, 'Input should be a valid integer.', loc)
  }
  if (value < min) throw new KeywardError(ErrorType.greaterThanEqual, `Input should be at least ${min}.`, loc)
  if (value > max) throw new KeywardError(ErrorType.lessThanEqual, `Input should be at most ${max}.`, loc)
  return value
}

/**
 * @internal An ISO 8601 date and time with an offset (`Z` or `+hh:mm`), as a `Date`; otherwise 422
 * `datetime_parsing`, whose message says that an offset is needed (`2027-01-31` has none).
 */
export function parseDateTime(value: unknown, loc: readonly string[]): Date {
  const match = typeof value === 'string' ? ISO_DATE_TIME.exec(value) : null
  const [, year, month, day, hour, minute, second] = match ?? []
  const date = new Date(Date.UTC(Number(year), Number(month) - 1, Number(day)))
  const valid =
    match !== null &&
    date.getUTCMonth() === Number(month) - 1 &&
    date.getUTCDate() === Number(day) &&
    Number(hour) < 24 &&
    Number(minute) < 60 &&
    Number(second ?? 0) < 60
  if (!valid) {
    throw new KeywardError(
      ErrorType.datetimeParsing,
      'Input should be an ISO 8601 date and time with an offset, e.g. 2027-01-31T00:00:00Z.',
      loc,
    )
  }
  return new Date(value as string)
}

/** The expiry fields of a creation body, as {@link readExpiryFields} reads them. */
export interface ExpiryFields {
  readonly expiresAt?: Date
  readonly expiresInDays?: number
}

/**
 * Reads a key's expiry from a creation body: `expires_at` (an ISO 8601 date and time with an
 * offset) becomes a `Date`, `expires_in_days` is passed on as it is. Throws a 422
 * {@link KeywardError} at `["body", "expires_at"]` (`datetime_parsing`) for a time it cannot
 * read. The rules (the future, 1 to 3650 days, not both) are the key service's, checked when
 * it issues the key.
 *
 * @example
 * ```ts
 * await keyward.issueProjectKey(projectId, { name, ...readExpiryFields(body) })
 * ```
 */
export function readExpiryFields(body: Readonly<Record<string, unknown>> | undefined): ExpiryFields {
  const at = body?.expires_at
  const days = body?.expires_in_days
  return {
    ...(at != null ? { expiresAt: parseDateTime(at, ['body', 'expires_at']) } : {}),
    ...(days != null ? { expiresInDays: days as number } : {}),
  }
}

/**
 * @internal The expiry of a new key from the issue options: `expiresAt` (a Date in the
 * future) or `expiresInDays` (1 to 3650) from `now`, at most one; `null` for none.
 */
export function checkExpiry(options: ExpiryFields, now: Date): Date | null {
  const { expiresAt, expiresInDays } = options
  if (expiresAt != null && expiresInDays != null) throw bothExpiryFields()
  if (expiresInDays != null) {
    const days = checkInteger(expiresInDays, 1, MAX_EXPIRES_IN_DAYS, ['body', 'expires_in_days'])
    return new Date(now.getTime() + days * DAY_MS)
  }
  return checkExpiresAt(expiresAt, now)
}

/** @internal The refusal of a body that gives `expires_at` and `expires_in_days`. */
export const bothExpiryFields = (): KeywardError =>
  new KeywardError(ErrorType.valueError, 'Give expires_at or expires_in_days, not both.', [
    'body',
    'expires_in_days',
  ])

// An expiry given as a time: a valid Date in the future, or `null`.
function checkExpiresAt(expiresAt: unknown, now: Date): Date | null {
  if (expiresAt === undefined || expiresAt === null) return null
  if (!(expiresAt instanceof Date) || Number.isNaN(expiresAt.getTime())) {
    throw new TypeError('issue: option `expiresAt` must be a valid Date.')
  }
  if (expiresAt.getTime() <= now.getTime()) {
    throw new KeywardError(ErrorType.datetimeFuture, 'The expiry should be in the future.', [
      'body',
      'expires_at',
    ])
  }
  return expiresAt
}

/**
 * @internal Checks the grace window of a roll, in seconds: an integer from 0 (the old key
 * stops at once) to 604800 (seven days); default 86400. Throws a 422 at `["body", "grace_seconds"]`.
 */
export function checkGraceSeconds(value: unknown): number {
  if (value === undefined) return DEFAULT_GRACE_SECONDS
  return checkInteger(value, 0, MAX_GRACE_SECONDS, ['body', 'grace_seconds'])
}

/** @internal Whether a record has expired at `nowMs`. */
export const isExpired = (expiresAt: Date | null | undefined, nowMs: number): boolean =>
  expiresAt != null && expiresAt.getTime() <= nowMs

// What each action is called in a refusal: of a rolled key, of an expired key.
const REFUSED: Readonly<Record<'roll' | 'activate' | 'expire', readonly [string, string]>> = {
  roll: ['it cannot be rolled again', 'it cannot be rolled'],
  activate: ['it cannot be re-activated', 'it cannot be re-activated'],
  expire: ['its expiry is the end of its grace window and cannot be changed', 'its expiry cannot be changed'],
}

/**
 * @internal Why a key cannot be rolled, re-activated or given a new expiry at `at` (ms), or
 * `null` if it can: a rolled key (in its grace window) and an expired key cannot.
 */
export function lifecycleRefusal(
  record: KeyRecord,
  action: 'roll' | 'activate' | 'expire',
  at: number,
): KeywardError | null {
  const loc = ['path', 'key_id']
  const [ifRolled, ifExpired] = REFUSED[action]
  if (record.replacedBy) {
    return new KeywardError(
      ErrorType.keyRolled,
      `This key was rolled: ${ifRolled}. Use the key that replaced it.`,
      loc,
    )
  }
  if (record.expiresAt && record.expiresAt.getTime() <= at) {
    return new KeywardError(
      ErrorType.keyExpired,
      `This key expired at ${record.expiresAt.toISOString()}: ${ifExpired}. Create a new key.`,
      loc,
    )
  }
  if (action === 'roll' && !record.active) {
    return new KeywardError(
      ErrorType.keyInactive,
      'This key is not active: activate it before rolling it, or create a new key.',
      loc,
    )
  }
  return null
}
