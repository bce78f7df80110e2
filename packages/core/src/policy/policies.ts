import type { CreditsLowAt } from '../credits/low-at.js'
import { KeywardError, refusal } from '../errors/error.js'
import { checkOptionNames } from '../errors/extra-fields.js'
import { ErrorType } from '../errors/types.js'
import { inRanges, type PackedRanges, packRanges, parseIp, parseIpEntry } from './ip.js'
import {
  compilePermissions,
  type Granted,
  grantedOf,
  missingMessage,
  type PermissionCheck,
  type PermissionRequirement,
  type PermissionRule,
  permissionCheckOf,
} from './permission-check.js'
import { type PermissionQuery, PermissionQueryError, refusedText } from './query.js'

export type { PermissionRequirement, PermissionRule } from './permission-check.js'

/** The most entries of a key's IP allowlist. */
export const MAX_IP_ALLOWLIST = 100

/** The most bytes of a key's metadata, as UTF-8 JSON. */
export const MAX_METADATA_BYTES = 4096

/** The most permissions a host declares (and so a key carries). */
export const MAX_PERMISSIONS = 1000

/**
 * A permission's name: 1 to 100 of `a-z`, `A-Z`, `0-9`, `_ . : -`, starting with a letter or a
 * digit, e.g. `generations:delete`.
 */
export const PERMISSION_PATTERN = /^[A-Za-z0-9][A-Za-z0-9_.:-]{0,99}$/

/**
 * A wildcard a key may be granted (never required): `*` (every permission), or a permission's
 * prefix and `:*` (`reports:*`: every permission that starts with `reports:`), at most 100
 * characters. It grants the permissions declared later too.
 */
export const WILDCARD_PATTERN = /^(?:[A-Za-z0-9][A-Za-z0-9_.:-]{0,97}:)?\*$/

/** A key's metadata: a JSON object the host attaches to it, handed to the guards. */
export type KeyMetadata = Readonly<Record<string, unknown>>

/** A key's access policies as the service takes them at creation and on update. */
export interface KeyPolicies {
  /**
   * The addresses and CIDR ranges (IPv4 or IPv6, at most 100) the key may be used from;
   * `null` (or absent) for anywhere.
   */
  readonly ipAllowlist?: readonly string[] | null
  /**
   * The permissions the key carries, among those the host declared, or wildcards (`reports:*`,
   * `*`); `null` (or absent) for all of them.
   */
  readonly permissions?: readonly string[] | null
  /** A JSON object of at most 4 KB handed to the guards with the key, or `null`. */
  readonly metadata?: KeyMetadata | null
  /**
   * Up to 5 named rate limits of the key's own, each counted per key by the guards (see the
   * identities guide); `null`, `[]` (or absent) for none.
   */
  readonly ratelimits?: readonly StoredRateLimit[] | null
  /**
   * The roles of its project the key holds, by name (at most 50): it has their permissions
   * besides its own. `null`, `[]` (or absent) for none. A key with roles and without
   * `permissions` has its roles' permissions only (not every permission).
   */
  readonly roles?: readonly string[] | null
  /**
   * When the key's credits are low (webhook event `credits.low`): `{ remaining }` or
   * `{ percent }` of its refill amount, checked against the key's credits as at creation (a
   * threshold needs a credit limit; one in percent, a refill rule). `null` for none.
   */
  readonly creditsLowAt?: CreditsLowAt | null
}

/**
 * A key's policies as the service hands them to a store's `setKeyPolicies`: its roles by id
 * (`roleIds`, resolved from the names given), not by name. A field left `undefined` stays.
 */
export interface StoredKeyPolicies extends Omit<KeyPolicies, 'roles'> {
  /** The ids of the key's roles; `null` for none. */
  readonly roleIds?: readonly string[] | null
}

/**
 * A named rate limit stored on a key or an identity: at most `limit` per `duration`
 * milliseconds (whole seconds, from 1 s to 1 day). Each request costs 1 unless its route gives
 * the limit another cost. An identity's limits are shared by all its keys.
 *
 * @example
 * ```ts
 * const perSecond: StoredRateLimit = { name: 'requests', limit: 10, duration: 1000 }
 * ```
 */
export interface StoredRateLimit {
  readonly name: string
  readonly limit: number
  readonly duration: number
}

const invalid = (type: ErrorType, msg: string, loc: readonly string[]) => new KeywardError(type, msg, loc)

/** @internal Checks an IP allowlist as given; 422 at the faulty entry (`["body", "ip_allowlist", "3"]`). */
export function checkIpAllowlist(value: unknown, loc: readonly string[]): readonly string[] | null {
  if (value === null || value === undefined) return null
  if (!Array.isArray(value)) throw invalid(ErrorType.listType, 'Input should be a valid list.', loc)
  if (value.length > MAX_IP_ALLOWLIST) {
    throw invalid(
      ErrorType.tooLong,
      `An IP allowlist holds at most ${MAX_IP_ALLOWLIST} entries, got ${value.length}.`,
      loc,
    )
  }
  value.forEach((entry, index) => {
    const parsed = parseIpEntry(entry)
    if ('problem' in parsed) {
      const shown = typeof entry === 'string' ? `${JSON.stringify(entry.slice(0, 60))} ` : ''
      throw invalid(
        ErrorType.ipInvalid,
        `Entry ${index} ${shown}is not an IP address or CIDR range: ${parsed.problem.reason}.`,
        [...loc, String(index)],
      )
    }
  })
  return [...(value as string[])]
}

/**
 * @internal Checks permissions as given against those the host declared, wildcards (`reports:*`,
 * `*`) allowed; 422 at the faulty one.
 */
export function checkPermissions(
  value: unknown,
  declared: ReadonlySet<string>,
  loc: readonly string[],
): readonly string[] | null {
  if (value === null || value === undefined) return null
  if (!Array.isArray(value)) throw invalid(ErrorType.listType, 'Input should be a valid list.', loc)
  const seen = new Set<string>()
  value.forEach((permission, index) => {
    const at = [...loc, String(index)]
    if (typeof permission !== 'string')
      throw invalid(ErrorType.stringType, 'Input should be a valid string.', at)
    if (!declared.has(permission) && !WILDCARD_PATTERN.test(permission)) {
      const shown = PERMISSION_PATTERN.test(permission) ? ` ${permission}` : ''
      throw invalid(
        ErrorType.permissionUnknown,
        declared.size === 0
          ? 'This server declares no permissions: create the key without `permissions`.'
          : `The permission${shown} is not one this server declares.`,
        at,
      )
    }
    seen.add(permission)
  })
  return [...seen]
}

/** @internal Checks metadata as given: a JSON object of at most 4 KB. */
export function checkMetadata(value: unknown, loc: readonly string[]): KeyMetadata | null {
  if (value === null || value === undefined) return null
  if (typeof value !== 'object' || Array.isArray(value)) {
    throw invalid(ErrorType.dictType, 'Input should be a JSON object.', loc)
  }
  let text: string
  try {
    text = JSON.stringify(value)
  } catch {
    throw invalid(ErrorType.dictType, 'Input should be a JSON object.', loc)
  }
  const bytes = new TextEncoder().encode(text).byteLength
  if (bytes > MAX_METADATA_BYTES) {
    throw invalid(
      ErrorType.tooLong,
      `Metadata should be at most ${MAX_METADATA_BYTES} bytes of JSON, got ${bytes}.`,
      loc,
    )
  }
  return JSON.parse(text) as KeyMetadata
}

/** @internal Checks the permissions a host declares (option `permissions` of `createKeyward`). */
export function checkDeclaredPermissions(value: unknown): ReadonlySet<string> {
  if (value === undefined) return new Set()
  if (!Array.isArray(value) || value.length > MAX_PERMISSIONS) {
    throw new TypeError(
      `createKeyward: option \`permissions\` must be an array of at most ${MAX_PERMISSIONS} permission names.`,
    )
  }
  for (const name of value) {
    if (typeof name !== 'string' || !PERMISSION_PATTERN.test(name)) {
      throw new TypeError(
        `createKeyward: option \`permissions\` holds ${JSON.stringify(name)}, which is not a permission name ` +
          '(1 to 100 of A-Z a-z 0-9 _ . : -, starting with a letter or a digit).',
      )
    }
  }
  return new Set(value as string[])
}

const RULE_NAMES = { allOf: true, anyOf: true, and: true, or: true } as const

/**
 * @internal Checks a route's rule or query once, when its guard is built: its syntax, its depth
 * and length, declared names only. A `TypeError` naming the option and the place of the problem.
 */
export function checkPermissionRule(
  rule: unknown,
  declared: ReadonlySet<string>,
  who: string,
): PermissionCheck {
  // A misspelt rule (`allof`) is refused as a misspelt option is, naming the nearest name.
  if (typeof rule === 'object' && rule !== null && !Array.isArray(rule)) {
    checkOptionNames(who, rule, RULE_NAMES, ['options', 'permissions'])
  }
  try {
    return compilePermissions(rule as PermissionRule | PermissionQuery, declared)
  } catch (error) {
    if (!(error instanceof PermissionQueryError)) throw error
    throw new TypeError(`${who}: option \`permissions\` is ${refusedText(error)}.`)
  }
}

/** A key's policies compiled for the hot path, once per record object. */
interface Compiled {
  /** `null`: any address. */
  readonly ranges: PackedRanges | null
  /** The stored allowlist could not be read: every request is refused. */
  readonly broken: boolean
  /** `null`: every permission. */
  readonly granted: Granted | null
  /** The same as a list: the key's own permissions and its roles'. */
  readonly list: readonly string[] | null
}

const compiled = new WeakMap<object, Compiled>()

/** The parts of a key record the checks read. */
export interface PolicyHolder {
  readonly keyPrefix: string
  readonly ipAllowlist?: readonly string[] | null
  readonly permissions?: readonly string[] | null
  readonly roleIds?: readonly string[] | null
  readonly identityRoleIds?: readonly string[] | undefined
  readonly rolePermissions?: readonly string[]
}

// Whether the key holds roles, its own or its identity's.
const holdsRoles = (record: PolicyHolder): boolean =>
  Boolean(record.roleIds?.length || record.identityRoleIds?.length)

// Without roles, a key without `permissions` has every one; with roles (its own or its
// identity's), its own and its roles'.
const grantedBy = (record: PolicyHolder): Granted | null =>
  holdsRoles(record)
    ? grantedOf([...(record.permissions ?? []), ...(record.rolePermissions ?? [])])
    : record.permissions
      ? grantedOf(record.permissions)
      : null

function compile(record: PolicyHolder): Compiled {
  let known = compiled.get(record)
  if (known) return known
  const granted = grantedBy(record)
  const list = record.ipAllowlist
  let ranges: PackedRanges | null = null
  let broken = false
  if (list !== null && list !== undefined) {
    ranges = { v4: [], v6: [] }
    if (!Array.isArray(list)) broken = true
    else {
      for (const entry of list) {
        const parsed = parseIpEntry(entry)
        if ('problem' in parsed) {
          broken = true
          break
        }
        packRanges(parsed.ranges, ranges)
      }
    }
  }
  known = { ranges, broken, granted, list: granted && [...granted.names] }
  compiled.set(record, known)
  return known
}

/**
 * @internal What a key may do, as a list: its own permissions and its roles' (wildcards as
 * granted), or `null` for every permission. Built once per record.
 */
export function grantedPermissions(record: PolicyHolder): readonly string[] | null {
  if (!holdsRoles(record)) return record.permissions ?? null
  return compile(record).list
}

const KEY_LOC = ['header', 'x-api-key'] as const

/**
 * @internal The refusal of a verified key for this request's address and the route's
 * permissions, or `null` when the key may go on. An allowlist that cannot be read refuses every
 * address (fail closed), and so does an address the request does not tell. Refusals are built
 * without a stack trace (`refusal`): a flood from outside the list costs no more than a pass.
 */
export function accessProblem(
  record: PolicyHolder,
  address: string | undefined,
  rule: PermissionRequirement | undefined,
): KeywardError | null {
  if (
    record.ipAllowlist == null &&
    (rule === undefined || (record.permissions == null && !holdsRoles(record)))
  ) {
    return null
  }
  const policies = compile(record)
  if (policies.ranges !== null) {
    const words = policies.broken || address === undefined ? null : parseIp(address)
    if (words === null || !inRanges(words, policies.ranges)) {
      return refusal(
        ErrorType.ipNotAllowed,
        policies.broken
          ? 'The API key has an IP allowlist that cannot be read: every request is refused. Set it again.'
          : "The API key may not be used from this address: it is not in the key's IP allowlist.",
        KEY_LOC,
      )
    }
  }
  if (rule === undefined || policies.granted === null) return null
  const check = permissionCheckOf(rule)
  if (check.test(policies.granted)) return null
  return refusal(ErrorType.permissionDenied, missingMessage(check.missing(policies.granted)!), KEY_LOC)
}
