import { checkNewCredits } from '../credits/checks.js'
import { checkCreditsLowAt } from '../credits/low-at.js'
import { KeywardError } from '../errors/error.js'
import { checkKnownFields, optionNames } from '../errors/extra-fields.js'
import { ErrorType } from '../errors/types.js'
import { checkMetadata } from '../policy/policies.js'
import { checkKeyRoles } from '../roles/checks.js'
import { checkInteger } from '../service/lifecycle.js'
import { checkName } from '../service/name.js'
import {
  type IdentityChange,
  MAX_EXTERNAL_ID_LENGTH,
  MAX_RATE_LIMIT,
  MAX_RATE_LIMIT_DURATION_MS,
  MAX_RATE_LIMITS,
  MIN_RATE_LIMIT_DURATION_MS,
  type NewIdentity,
  RATE_LIMIT_NAME_PATTERN,
  type StoredRateLimit,
} from './model.js'

const BODY = ['body'] as const
const RATE_LIMIT_FIELDS = optionNames<StoredRateLimit>({ name: true, limit: true, duration: true })

const NEW_IDENTITY_FIELDS = {
  external_id: true,
  metadata: true,
  ratelimits: true,
  remaining: true,
  refill: true,
  credits_low_at: true,
  roles: true,
} as const
const IDENTITY_CHANGE_FIELDS = {
  metadata: true,
  ratelimits: true,
  roles: true,
  credits_low_at: true,
} as const

/**
 * An identity's creation as given, checked: its roles by name (`null` for none; absent when not
 * given), which the service resolves to the ids of the project's roles.
 */
export type GivenIdentity = Omit<NewIdentity, 'roleIds'> & { readonly roles?: readonly string[] | null }

/**
 * An identity's change as given, checked: its roles by name (`null` for none), as at its creation.
 * Its low-credits threshold is checked by the service, against the pool.
 */
export type GivenIdentityChange = Omit<IdentityChange, 'roleIds'> & {
  readonly roles?: readonly string[] | null
}

// The roles as given, by name (`roles` when present): checked, not yet resolved.
const givenRoles = (given: Record<string, unknown>) =>
  given.roles !== undefined ? { roles: checkKeyRoles(given.roles, [...BODY, 'roles']) } : {}

const notObject = (loc: readonly string[]) =>
  new KeywardError(ErrorType.dictType, 'Input should be a JSON object.', loc)

/**
 * An identity's `external_id`: a string of 1 to 255 characters without control characters or
 * anything shaped like a key (it is stored, listed and audited in the clear); 422 at `loc`.
 *
 * @example
 * ```ts
 * checkExternalId('customer_acme', ['body', 'external_id']) // 'customer_acme'
 * ```
 */
export function checkExternalId(value: unknown, loc: readonly string[]): string {
  if (value === undefined || value === null) throw new KeywardError(ErrorType.missing, 'Field required.', loc)
  return checkName(value, loc, MAX_EXTERNAL_ID_LENGTH) as string
}

/**
 * Named rate limits as given: an array of at most 5 `{ name, limit, duration }` with distinct
 * names, `duration` in milliseconds of whole seconds from 1 s to 1 day; 422 at the faulty field.
 * `null` or absent is none.
 *
 * @example
 * ```ts
 * checkRateLimits([{ name: 'requests', limit: 10, duration: 1000 }], ['body', 'ratelimits'])
 * // [{ name: 'requests', limit: 10, duration: 1000 }]
 * ```
 */
export function checkRateLimits(value: unknown, loc: readonly string[]): readonly StoredRateLimit[] {
  if (value === undefined || value === null) return []
  if (!Array.isArray(value)) throw new KeywardError(ErrorType.listType, 'Input should be a valid list.', loc)
  if (value.length > MAX_RATE_LIMITS) {
    throw new KeywardError(
      ErrorType.tooLong,
      `At most ${MAX_RATE_LIMITS} rate limits, got ${value.length}.`,
      loc,
    )
  }
  const names = new Set<string>()
  return value.map((given: unknown, i) => {
    const at = [...loc, String(i)]
    if (typeof given !== 'object' || given === null || Array.isArray(given)) throw notObject(at)
    checkKnownFields(given, RATE_LIMIT_FIELDS, at)
    const { name, limit, duration } = given as Record<string, unknown>
    if (name === undefined) throw new KeywardError(ErrorType.missing, 'Field required.', [...at, 'name'])
    if (typeof name !== 'string' || !RATE_LIMIT_NAME_PATTERN.test(name)) {
      throw new KeywardError(
        ErrorType.stringPatternMismatch,
        'A rate limit name is a letter or digit, then letters, digits, `_`, `.`, `:` or `-`, at most 64 in all.',
        [...at, 'name'],
      )
    }
    if (names.has(name)) {
      throw new KeywardError(ErrorType.valueError, `The rate limit \`${name}\` is given twice.`, [
        ...at,
        'name',
      ])
    }
    names.add(name)
    const checkedDuration = checkInteger(duration, MIN_RATE_LIMIT_DURATION_MS, MAX_RATE_LIMIT_DURATION_MS, [
      ...at,
      'duration',
    ])
    if (checkedDuration % 1000 !== 0) {
      throw new KeywardError(
        ErrorType.valueError,
        `A duration is in milliseconds of whole seconds (e.g. 60000 for a minute), got ${checkedDuration}.`,
        [...at, 'duration'],
      )
    }
    return {
      name,
      limit: checkInteger(limit, 1, MAX_RATE_LIMIT, [...at, 'limit']),
      duration: checkedDuration,
    }
  })
}

function bodyObject(value: unknown): Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw notObject(BODY)
  return value as Record<string, unknown>
}

/**
 * The body of an identity's creation (`{"external_id", "metadata"?, "ratelimits"?, "remaining"?,
 * "refill"?, "credits_low_at"?, "roles"?}`), checked; 422 at the faulty field, an unknown field `extra_forbidden`.
 *
 * @example
 * ```ts
 * checkNewIdentity({ external_id: 'customer_acme', remaining: 100 })
 * // { externalId: 'customer_acme', metadata: null, ratelimits: [], remaining: 100, refill: null }
 * ```
 */
export function checkNewIdentity(value: unknown): GivenIdentity {
  const given = bodyObject(value)
  checkKnownFields(given, NEW_IDENTITY_FIELDS, BODY)
  const externalId = checkExternalId(given.external_id, [...BODY, 'external_id'])
  const metadata = checkMetadata(given.metadata, [...BODY, 'metadata'])
  const ratelimits = checkRateLimits(given.ratelimits, [...BODY, 'ratelimits'])
  const { remaining, refill } = checkNewCredits(given.remaining, given.refill)
  const creditsLowAt = checkCreditsLowAt(given.credits_low_at, remaining, refill)
  return {
    externalId,
    metadata,
    ratelimits,
    remaining,
    refill,
    ...(creditsLowAt === null ? {} : { creditsLowAt }),
    ...givenRoles(given),
  }
}

/**
 * The body of an identity's change (`PATCH`: `{"metadata"?, "ratelimits"?, "roles"?,
 * "credits_low_at"?}`; `null` clears), checked (the threshold against the pool by the service).
 * Its `external_id` is the link to the host's own records and never changes; its credits change
 * through their own operation, as a key's do.
 *
 * @example
 * ```ts
 * checkIdentityChange({ metadata: null }) // { metadata: null }: the metadata is cleared
 * ```
 */
export function checkIdentityChange(value: unknown): GivenIdentityChange {
  const given = bodyObject(value)
  if (Object.hasOwn(given, 'external_id')) {
    throw new KeywardError(
      ErrorType.valueError,
      "An identity's external_id never changes: create another identity and move the keys to it.",
      [...BODY, 'external_id'],
    )
  }
  for (const field of ['remaining', 'refill']) {
    if (Object.hasOwn(given, field)) {
      throw new KeywardError(
        ErrorType.valueError,
        "An identity's credits change through its credits operation (set, add or subtract).",
        [...BODY, field],
      )
    }
  }
  checkKnownFields(given, IDENTITY_CHANGE_FIELDS, BODY)
  return {
    ...(Object.hasOwn(given, 'metadata')
      ? { metadata: checkMetadata(given.metadata, [...BODY, 'metadata']) }
      : {}),
    ...(Object.hasOwn(given, 'ratelimits')
      ? { ratelimits: checkRateLimits(given.ratelimits, [...BODY, 'ratelimits']) }
      : {}),
    ...givenRoles(given),
    ...(given.credits_low_at !== undefined
      ? { creditsLowAt: given.credits_low_at as IdentityChange['creditsLowAt'] }
      : {}),
  }
}
