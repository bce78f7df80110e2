import type { AuditContext } from '../audit/types.js'
import { checkCreditsLowAt } from '../credits/low-at.js'
import { KeywardError } from '../errors/error.js'
import { checkOptionNames, optionNames } from '../errors/extra-fields.js'
import { ErrorType } from '../errors/types.js'
import { clientAddress, type TrustedProxy } from '../http/client-address.js'
import type { KeywardRequest } from '../http/types.js'
import { checkRateLimits } from '../identities/checks.js'
import type { KeyKind } from '../key/format.js'
import {
  accessProblem,
  checkIpAllowlist,
  checkMetadata,
  checkPermissions,
  type KeyPolicies,
  type PermissionRequirement,
  type StoredKeyPolicies,
  type StoredRateLimit,
} from '../policy/policies.js'
import { checkKeyRoles } from '../roles/checks.js'
import type { KeyRecord } from '../store/types.js'
import { DAY_MS } from './lifecycle.js'
import { roleIdsOf } from './roles.js'
import type { OwnerKeyPolicies, PolicyRules, Writes } from './types.js'

/** @internal The policies' part of the key service's interface (`Keyward`). */
export interface KeywardPolicies {
  /** The permissions the host declared (option `permissions`). */
  readonly permissions: ReadonlySet<string>
  /**
   * Sets an API key's policies: `ipAllowlist`, `permissions`, `metadata`, `ratelimits`, `roles`
   * (names of its project's roles; 422 `role_unknown` for another), and its low-credits threshold
   * `creditsLowAt` (checked against its credits now, as at creation); a field
   * left `undefined` stays, `null` clears it (anywhere, every permission, no metadata, no stored
   * rate limits). 422 as at
   * creation. Every process's verification cache hears of it as of a deactivation. `null` if
   * there is no such key. Throws a `TypeError` when the store does not implement `setKeyPolicies`.
   *
   * @example
   * ```ts
   * await keyward.setKeyPolicies(keyId, { permissions: ['reports:read'], ipAllowlist: ['203.0.113.0/24'] })
   * await keyward.setKeyPolicies(keyId, { ratelimits: [{ name: 'requests', limit: 100, duration: 60_000 }] })
   * ```
   */
  setKeyPolicies(id: string, policies: KeyPolicies, context?: AuditContext): Promise<KeyRecord | null>
  /**
   * The client address of a request, as the throttle reads it: the socket's, or the one the
   * `protection.trustedProxy` header names. What IP allowlists are checked against.
   *
   * @example
   * ```ts
   * keyward.clientAddress(request) // '203.0.113.7'
   * ```
   */
  clientAddress(request: KeywardRequest): string | undefined
  /**
   * The refusal of a verified API key for a request from `address` that needs `permissions`,
   * or `null`: 403 `ip_not_allowed` outside the key's IP allowlist, 403 `permission_denied`
   * without a required permission. The guards check it; call it where a key acts through
   * something else (an access token that names the key).
   *
   * @example
   * ```ts
   * const refusal = keyward.keyAccessProblem(record, keyward.clientAddress(request), { allOf: ['reports:read'] })
   * if (refusal) throw refusal
   * ```
   */
  keyAccessProblem(
    record: KeyRecord,
    address: string | undefined,
    permissions?: PermissionRequirement,
  ): KeywardError | null
}

/** @internal Checks the option `keyPolicies` once, naming the field. */
export function checkOwnerKeyPolicies(value: OwnerKeyPolicies | undefined): void {
  if (value === undefined) return
  if (typeof value !== 'object' || value === null) {
    throw new TypeError(
      'createKeyward: option `keyPolicies` must be an object, e.g. { project: { maxLifetimeDays: 90 } }.',
    )
  }
  for (const kind of ['developer', 'project'] as const) {
    const days = value[kind]?.maxLifetimeDays
    if (days !== undefined && !(Number.isInteger(days) && days >= 1 && days <= 3650)) {
      throw new TypeError(
        `createKeyward: option \`keyPolicies.${kind}.maxLifetimeDays\` must be an integer from 1 to 3650.`,
      )
    }
  }
}

/** @internal Every policy of an API key, by its option name: `setKeyPolicies` refuses any other. */
export const POLICY_OPTIONS = optionNames<KeyPolicies>({
  ipAllowlist: true,
  permissions: true,
  metadata: true,
  ratelimits: true,
  roles: true,
  creditsLowAt: true,
})

const BODY = ['body'] as const
const field = (name: string) => [...BODY, name]

// A key's stored rate limits as given, checked; none is `null`, as the store keeps it.
const ratelimitsOf = (value: unknown): readonly StoredRateLimit[] | null => {
  const limits = checkRateLimits(value, field('ratelimits'))
  return limits.length === 0 ? null : limits
}

/**
 * @internal The policies of a new key, checked (422 at `["body", field, ...]`). API keys only:
 * a developer key carries none.
 */
export function newKeyPolicies(
  rules: PolicyRules,
  kind: KeyKind,
  given: KeyPolicies,
): Required<{ [F in Exclude<keyof KeyPolicies, 'creditsLowAt'>]: NonNullable<KeyPolicies[F]> | null }> {
  const ipAllowlist = checkIpAllowlist(given.ipAllowlist, field('ip_allowlist'))
  const permissions = checkPermissions(given.permissions, rules.declared, field('permissions'))
  const metadata = checkMetadata(given.metadata, field('metadata'))
  const ratelimits = ratelimitsOf(given.ratelimits)
  const roles = checkKeyRoles(given.roles, field('roles'))
  if (
    kind === 'developer' &&
    (ipAllowlist !== null ||
      permissions !== null ||
      metadata !== null ||
      ratelimits !== null ||
      roles !== null)
  ) {
    throw new KeywardError(
      ErrorType.valueError,
      'IP allowlists, permissions, metadata, rate limits and roles are policies of API keys: a developer key carries none.',
      BODY,
    )
  }
  return { ipAllowlist, permissions, metadata, ratelimits, roles }
}

/**
 * @internal Checks a change of policies; fields left `undefined` stay as they are. The
 * low-credits threshold is not among them: it is checked against the key's credits, once read.
 */
export function changedPolicies(rules: PolicyRules, given: KeyPolicies): KeyPolicies {
  return {
    ...(given.ipAllowlist !== undefined
      ? { ipAllowlist: checkIpAllowlist(given.ipAllowlist, field('ip_allowlist')) }
      : {}),
    ...(given.permissions !== undefined
      ? { permissions: checkPermissions(given.permissions, rules.declared, field('permissions')) }
      : {}),
    ...(given.metadata !== undefined ? { metadata: checkMetadata(given.metadata, field('metadata')) } : {}),
    ...(given.ratelimits !== undefined ? { ratelimits: ratelimitsOf(given.ratelimits) } : {}),
    ...(given.roles !== undefined ? { roles: checkKeyRoles(given.roles, field('roles')) } : {}),
  }
}

const maxLifetimeMs = (rules: PolicyRules, kind: KeyKind) => {
  const days = rules.owners[kind]?.maxLifetimeDays
  return days === undefined ? undefined : days * DAY_MS
}

const tooLong = (kind: KeyKind, days: number, loc: readonly string[]) =>
  new KeywardError(
    ErrorType.lifetimeExceeded,
    `${kind === 'project' ? 'API keys' : 'Developer keys'} live at most ${days} days here: give an earlier expiry.`,
    loc,
  )

/**
 * @internal The expiry of a key issued at `createdAt` under its owner type's maximum lifetime:
 * none given means the maximum; one beyond it is refused (422 `lifetime_exceeded` at `loc`).
 */
export function boundedExpiry(
  rules: PolicyRules,
  kind: KeyKind,
  createdAt: Date,
  expiresAt: Date | null,
  loc: readonly string[],
): Date | null {
  const max = maxLifetimeMs(rules, kind)
  if (max === undefined) return expiresAt
  const latest = createdAt.getTime() + max
  if (expiresAt === null) return new Date(latest)
  if (expiresAt.getTime() > latest) throw tooLong(kind, max / DAY_MS, loc)
  return expiresAt
}

/**
 * @internal Checks a key about to be rolled: its permissions must still be declared (422
 * `permission_unknown`) and its lifetime within the maximum (422 `lifetime_exceeded`).
 * Returns the new key's lifetime in ms (`null`: never expires).
 */
export function rollLifetime(rules: PolicyRules, current: KeyRecord): number | null {
  if (current.permissions) checkPermissions(current.permissions, rules.declared, field('permissions'))
  const lifetime = current.expiresAt ? current.expiresAt.getTime() - current.createdAt.getTime() : null
  const max = maxLifetimeMs(rules, current.ownerType)
  if (max === undefined) return lifetime
  if (lifetime === null) return max
  if (lifetime > max) throw tooLong(current.ownerType, max / DAY_MS, ['path', 'key_id'])
  return lifetime
}

/**
 * @internal The service's policy methods: the declared permissions, `setKeyPolicies`, and the
 * checks of a key's IP allowlist and permissions for a request.
 */
export function policyMethods(writes: Writes, trustedProxy: TrustedProxy | undefined): KeywardPolicies {
  const { store, storeCall, emit, wrote, rules, auditRows, developersOf } = writes
  return {
    permissions: rules.declared,
    async setKeyPolicies(id: string, given: KeyPolicies, context?: AuditContext): Promise<KeyRecord | null> {
      if (!store.setKeyPolicies) {
        throw new TypeError("This key store cannot set a key's policies (no `setKeyPolicies`).")
      }
      checkOptionNames('setKeyPolicies', given, POLICY_OPTIONS)
      const change = changedPolicies(rules, given ?? {})
      const current = await storeCall('findKeyById', () => store.findKeyById(id))
      if (!current) return null
      if (current.ownerType !== 'project') newKeyPolicies(rules, 'developer', change)
      const lowAt = given?.creditsLowAt
      // The threshold needs the key's credits (as at creation): checked once read, before any write.
      const { roles, ...rest } =
        lowAt === undefined
          ? change
          : {
              ...change,
              creditsLowAt: checkCreditsLowAt(lowAt, current.remaining ?? null, current.refill ?? null),
            }
      const stored: StoredKeyPolicies =
        roles === undefined
          ? rest
          : { ...rest, roleIds: await roleIdsOf(writes, 'project', current.ownerId, roles) }
      const audited = auditRows.keys(
        'key.policies_set',
        context,
        await developersOf([current]),
        () => current,
      )
      const updated = await storeCall('setKeyPolicies', () =>
        store.setKeyPolicies!(id, stored, audited),
      ).finally(() => wrote(current.hash))
      if (updated) {
        const { id: keyId, keyPrefix, ownerType, ownerId } = updated
        emit({ type: 'key.policies_set', keyId, keyPrefix, ownerType, ownerId })
      }
      return updated
    },
    clientAddress: (request) => clientAddress(request, trustedProxy),
    keyAccessProblem: (record, address, permissions) => accessProblem(record, address, permissions),
  }
}
