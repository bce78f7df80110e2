// One record of an import, as a file or another system gives it (snake_case, flat, so that a CSV
// row and an NDJSON line read alike), checked into the key record it becomes, or refused with the
// field that is wrong.
import { MAX_CREDITS, refillPeriodStart } from '../credits/model.js'
import type { CreditRefill } from '../credits/types.js'
import { KeywardError } from '../errors/error.js'
import { checkKnownFields } from '../errors/extra-fields.js'
import { ErrorType } from '../errors/types.js'
import { KEY_PREFIX_LENGTH } from '../key/constants.js'
import { checkMetadata, MAX_PERMISSIONS, PERMISSION_PATTERN } from '../policy/policies.js'
import { checkInteger, parseDateTime } from '../service/lifecycle.js'
import { checkName } from '../service/name.js'
import type { KeyRecord } from '../store/record.js'
import { hexOfDigest, type ImportHashFormat } from './digest.js'

/**
 * One key to import, as a file or another system gives it: flat, with snake_case fields, so that
 * an NDJSON line and a CSV row read alike. Every field but `hash` and the owner is optional. In a
 * CSV row every value is text: numbers, `true`/`false`, a JSON array or space-separated
 * permissions, and JSON metadata are read from it; an empty value is an absent one.
 *
 * @example
 * ```ts
 * const record: ImportRecord = {
 *   hash: 'n4bQgYhMfWWaL-qgxVrQFaO_TxsrC4Is0V1sFbDwCgg',
 *   hash_format: 'sha256-base64url',
 *   project_id: 'proj_1',
 *   prefix: 'ba_xYz',
 *   remaining: 500,
 *   refill_amount: 500,
 *   refill_interval: 'monthly',
 *   expires_at: '2027-01-31T00:00:00Z',
 * }
 * ```
 */
export interface ImportRecord {
  /** The SHA-256 of the full key, in `hash_format`. Never the key itself. */
  readonly hash: string
  /** How `hash` is written; default the import's `hashFormat` (`sha256-hex` unless told). */
  readonly hash_format?: ImportHashFormat
  /** The project that owns the key (an API key); exactly one of it and `developer_id`. */
  readonly project_id?: string
  /** The developer that owns the key (a developer key). */
  readonly developer_id?: string
  /** The identity the key joins, by id (a project's key only). */
  readonly identity_id?: string | null
  /** The identity the key joins, by the host's id of its customer; made when the project has none. */
  readonly external_id?: string | null
  /** The key's name, 1 to 100 characters, or none. */
  readonly name?: string | null
  /** The first characters of the key (1 to 8), shown in listings; padded with `*` to 8. */
  readonly prefix?: string | null
  /** Default `true`. */
  readonly active?: boolean | string
  /** ISO 8601 with an offset; default the time of the import. */
  readonly created_at?: string | null
  readonly expires_at?: string | null
  readonly last_used_at?: string | null
  /** Credits left; absent or `null` for unlimited. */
  readonly remaining?: number | string | null
  /** Credits a refill gives back; with `refill_interval`, and `remaining`. */
  readonly refill_amount?: number | string | null
  readonly refill_interval?: 'daily' | 'monthly' | null
  /** The day of the month of a monthly refill (1 to 31, default 1). */
  readonly refill_day?: number | string | null
  /** The start of the last refill period already applied; default the period of the import: no refill is due before the next. */
  readonly refilled_at?: string | null
  /** Permission names (a list, or one string of names separated by spaces or commas). */
  readonly permissions?: readonly string[] | string | null
  /** A JSON object (or its text), at most 4 KB. */
  readonly metadata?: Readonly<Record<string, unknown>> | string | null
}

const FIELDS: Readonly<Record<keyof ImportRecord, true>> = {
  hash: true,
  hash_format: true,
  project_id: true,
  developer_id: true,
  identity_id: true,
  external_id: true,
  name: true,
  prefix: true,
  active: true,
  created_at: true,
  expires_at: true,
  last_used_at: true,
  remaining: true,
  refill_amount: true,
  refill_interval: true,
  refill_day: true,
  refilled_at: true,
  permissions: true,
  metadata: true,
}

/**
 * A key record an import will write, before its identity is known by id: `externalId` names the
 * identity to find (or make) in the key's project.
 */
export interface CheckedImport {
  readonly record: KeyRecord
  readonly externalId: string | null
}

const VISIBLE = /^[\x21-\x7e]{1,8}$/
// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is refused
const OWNER_ID = /^[^\s\u0000-\u001f\u007f]{1,255}$/
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i

const fail = (type: ErrorType, msg: string, field: string): never => {
  throw new KeywardError(type, msg, [field])
}

// A CSV row's empty cell, like a JSON null, is no value.
const given = (value: unknown): unknown => (value === '' || value === null ? undefined : value)

const integerOf = (value: unknown, min: number, max: number, field: string): number | null => {
  const v = given(value)
  if (v === undefined) return null
  const number = typeof v === 'string' && /^-?\d+$/.test(v.trim()) ? Number(v) : v
  return checkInteger(number, min, max, [field])
}

const dateOf = (value: unknown, field: string): Date | null => {
  const v = given(value)
  if (v === undefined) return null
  if (v instanceof Date && !Number.isNaN(v.getTime())) return v
  return parseDateTime(v, [field])
}

function booleanOf(value: unknown, field: string): boolean {
  const v = given(value)
  if (v === undefined || v === true || v === 'true') return true
  if (v === false || v === 'false') return false
  return fail(ErrorType.valueError, 'Input should be true or false.', field)
}

function textOf(value: unknown, pattern: RegExp, what: string, field: string): string | null {
  const v = given(value)
  if (v === undefined) return null
  if (typeof v !== 'string') return fail(ErrorType.stringType, 'Input should be a valid string.', field)
  return pattern.test(v) ? v : fail(ErrorType.valueError, `Input should be ${what}.`, field)
}

function permissionsOf(value: unknown): readonly string[] | null {
  const v = given(value)
  if (v === undefined) return null
  let names: unknown = v
  if (typeof v === 'string') {
    names = v.trimStart().startsWith('[') ? parseJson(v, 'permissions') : v.split(/[\s,]+/).filter(Boolean)
  }
  if (!Array.isArray(names)) return fail(ErrorType.listType, 'Input should be a valid list.', 'permissions')
  if (names.length > MAX_PERMISSIONS) {
    fail(ErrorType.tooLong, `At most ${MAX_PERMISSIONS} permissions, got ${names.length}.`, 'permissions')
  }
  names.forEach((name, i) => {
    if (
      typeof name !== 'string' ||
      !(PERMISSION_PATTERN.test(name) || /^([A-Za-z0-9_.-]+:)?\*$/.test(name))
    ) {
      throw new KeywardError(ErrorType.valueError, 'Input should be a permission name.', [
        'permissions',
        String(i),
      ])
    }
  })
  return [...new Set(names as string[])]
}

function parseJson(text: string, field: string): unknown {
  try {
    return JSON.parse(text)
  } catch {
    return fail(ErrorType.jsonInvalid, 'Input should be valid JSON.', field)
  }
}

function refillOf(record: Record<string, unknown>, remaining: number | null): CreditRefill | null {
  const amount = integerOf(record.refill_amount, 1, MAX_CREDITS, 'refill_amount')
  const interval = given(record.refill_interval)
  if (amount === null && interval === undefined) return null
  if (amount === null) return fail(ErrorType.missing, 'A refill needs `refill_amount`.', 'refill_amount')
  if (remaining === null) {
    fail(ErrorType.valueError, 'A refill needs a credit limit: give `remaining` too.', 'refill_amount')
  }
  if (interval === 'daily') {
    if (given(record.refill_day) !== undefined)
      fail(ErrorType.valueError, 'A daily refill takes no day.', 'refill_day')
    return { amount, interval: 'daily' }
  }
  if (interval === 'monthly') {
    return { amount, interval: 'monthly', day: integerOf(record.refill_day, 1, 31, 'refill_day') ?? 1 }
  }
  return fail(ErrorType.valueError, 'Input should be "daily" or "monthly".', 'refill_interval')
}

/**
 * @internal Checks one record to import into the key record it becomes (a new id, a hex SHA-256,
 * the prefix padded to 8); throws a `KeywardError` whose `loc` is the faulty field.
 */
export function checkImportRecord(
  value: unknown,
  options: { readonly hashFormat: ImportHashFormat; readonly now: Date },
): CheckedImport {
  // A reader that could not read a record hands over the refusal in its place.
  if (value instanceof KeywardError) throw value
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new KeywardError(ErrorType.dictType, 'A record should be a JSON object.', [])
  }
  checkKnownFields(value, FIELDS, [])
  const record = value as Record<string, unknown>
  const format = given(record.hash_format) ?? options.hashFormat
  const hash = hexOfDigest(record.hash, format)
  const project = textOf(record.project_id, OWNER_ID, '1 to 255 characters without spaces', 'project_id')
  const developer = textOf(
    record.developer_id,
    OWNER_ID,
    '1 to 255 characters without spaces',
    'developer_id',
  )
  if ((project === null) === (developer === null)) {
    fail(
      ErrorType.missing,
      'Give exactly one of `project_id` and `developer_id`.',
      project ? 'developer_id' : 'project_id',
    )
  }
  const identityId = textOf(record.identity_id, UUID, 'a UUID', 'identity_id')
  const externalId = textOf(record.external_id, OWNER_ID, '1 to 255 characters without spaces', 'external_id')
  if ((identityId !== null || externalId !== null) && project === null) {
    fail(
      ErrorType.valueError,
      'Only a project key joins an identity.',
      identityId ? 'identity_id' : 'external_id',
    )
  }
  if (identityId !== null && externalId !== null) {
    fail(ErrorType.valueError, 'Give one of `identity_id` and `external_id`.', 'external_id')
  }
  const prefix = textOf(record.prefix, VISIBLE, '1 to 8 visible ASCII characters', 'prefix') ?? ''
  const remaining = integerOf(record.remaining, 0, MAX_CREDITS, 'remaining')
  const refill = refillOf(record, remaining)
  const refilledAt = dateOf(record.refilled_at, 'refilled_at')
  const metadataText = given(record.metadata)
  const metadata = checkMetadata(
    typeof metadataText === 'string' ? parseJson(metadataText, 'metadata') : metadataText,
    ['metadata'],
  )
  const permissions = permissionsOf(record.permissions)
  const built: KeyRecord = {
    id: crypto.randomUUID(),
    hash,
    keyPrefix: prefix.padEnd(KEY_PREFIX_LENGTH, '*'),
    ownerType: project === null ? 'developer' : 'project',
    ownerId: (project ?? developer) as string,
    name: checkName(given(record.name), ['name']),
    active: booleanOf(record.active, 'active'),
    createdAt: dateOf(record.created_at, 'created_at') ?? options.now,
    expiresAt: dateOf(record.expires_at, 'expires_at'),
    lastUsedAt: dateOf(record.last_used_at, 'last_used_at'),
    replacedBy: null,
    ...(permissions ? { permissions } : {}),
    ...(metadata ? { metadata } : {}),
    ...(remaining === null
      ? {}
      : {
          remaining,
          refill,
          refilledAt: refill ? (refilledAt ?? refillPeriodStart(refill, options.now)) : null,
        }),
    ...(identityId ? { identityId: identityId.toLowerCase() } : {}),
  }
  return { record: built, externalId }
}
