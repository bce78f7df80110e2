import type { IdentityRecord } from '../identities/model.js'
import { displayKey } from '../key/display.js'
import type { ApiValue } from '../openapi/schemas.js'
import type { RoleRecord } from '../roles/model.js'
import type { IssuedKey } from '../service/mint.js'
import type { RolledKey } from '../service/roll.js'
import type { KeyRecord } from '../store/types.js'

/** A key as listings show it (the `L` shape): everything but the key itself. */
export type KeyJson = ApiValue<'DeveloperKey'> | ApiValue<'ApiKey'>

/** A newly created key (the `K` shape): the listing fields plus the full `key`, shown once. */
export type IssuedKeyJson = ApiValue<'CreatedDeveloperKey'> | ApiValue<'CreatedApiKey'>

/** A rolled key: the new key (the `K` shape) and the old key's id and new expiry. */
export type RolledKeyJson = ApiValue<'RolledDeveloperKey'> | ApiValue<'RolledApiKey'>

/** An identity in a response. */
export type IdentityJson = ApiValue<'Identity'>

/** A role in a response. */
export type RoleJson = ApiValue<'Role'>

/** A project as the host created it. */
export interface ProjectRecord {
  readonly id: string
  readonly name: string
  readonly developerId: string
  readonly createdAt: Date | string
}

/** A project in a response: `{"id","name","developer_id","created_at"}`. */
export type ProjectJson = ApiValue<'Project'>

const iso = (date: Date | string) => (typeof date === 'string' ? date : date.toISOString())
const isoOrNull = (date: Date | null | undefined) => (date ? date.toISOString() : null)
const owner = (record: KeyRecord) =>
  record.ownerType === 'developer' ? { developer_id: record.ownerId } : { project_id: record.ownerId }
// An API key's policies; a developer key has none.
const policies = (record: KeyRecord) =>
  record.ownerType === 'developer'
    ? {}
    : {
        ip_allowlist: record.ipAllowlist ?? null,
        permissions: record.permissions ?? null,
        metadata: record.metadata ?? null,
        ratelimits: record.ratelimits ?? [],
        remaining: record.remaining ?? null,
        refill: record.refill ?? null,
        credits_low_at: record.creditsLowAt ?? null,
        identity_id: record.identityId ?? null,
        roles: record.roles ?? null,
      }

/**
 * A key record as JSON, without the key: the only shape that listings return. `rotationDue`
 * is the service's verdict (`keyward.isRotationDue(record)`). An API key's `roles` are the names
 * the record carries: read them with `keyward.withRoleNames` first (`null` without them).
 *
 * @example
 * ```ts
 * keyToJson(record, keyward.isRotationDue(record))
 * // { id, key_prefix: 'ak_Ab3xY', display: 'ak_Ab3xY...', name, project_id, active, created_at,
 * //   expires_at: null, last_used_at: '2026-11-21T11:22:01.000Z', rotation_due: false, revoked_reason: null,
 * //   ip_allowlist: null, permissions: ['reports:read'], metadata: { plan: 'pro' }, ratelimits: [],
 * //   remaining: null, refill: null, identity_id: null, roles: ['billing'] }
 * ```
 */
export function keyToJson(record: KeyRecord, rotationDue = false): KeyJson {
  return <KeyJson>{
    id: record.id,
    key_prefix: record.keyPrefix,
    display: displayKey(record.keyPrefix),
    name: record.name,
    ...owner(record),
    active: record.active,
    created_at: iso(record.createdAt),
    expires_at: isoOrNull(record.expiresAt),
    last_used_at: isoOrNull(record.lastUsedAt),
    rotation_due: rotationDue,
    revoked_reason: revokedReason(record),
    ...policies(record),
  }
}

/**
 * Why a key no longer works, or is on its way out: `'leaked'` or `'revoked'` for an inactive key
 * (`'revoked'` when the store keeps no reason), `'rolled'` for an active key replaced by a roll
 * (in its grace window), `null` for any other active key.
 *
 * @example
 * ```ts
 * revokedReason(record) // 'leaked'
 * ```
 */
export function revokedReason(record: KeyRecord): 'leaked' | 'revoked' | 'rolled' | null {
  if (!record.active) return record.revokedReason ?? 'revoked'
  return record.replacedBy ? 'rolled' : null
}

/**
 * A newly issued key as JSON, with the full key: the response that creates it, and no other.
 *
 * @example
 * ```ts
 * issuedKeyToJson(await keyward.issueProjectKey(projectId)) // { id, key: 'ak_...', key_prefix, ... }
 * ```
 */
export function issuedKeyToJson(issued: IssuedKey): IssuedKeyJson {
  const { id, ...rest } = keyToJson(issued.record)
  return <IssuedKeyJson>{ id, key: issued.key, ...rest }
}

/**
 * A rolled key as JSON: the new key, shown once, and the old key's id and new expiry.
 *
 * @example
 * ```ts
 * rolledKeyToJson(await keyward.rollKey(keyId)) // { id, key: 'ak_...', ..., previous_key: { id, expires_at } }
 * ```
 */
export function rolledKeyToJson(rolled: RolledKey): RolledKeyJson {
  return <RolledKeyJson>{
    ...issuedKeyToJson(rolled),
    previous_key: { id: rolled.previous.id, expires_at: isoOrNull(rolled.previous.expiresAt) },
  }
}

/**
 * A project as JSON.
 *
 * @example
 * ```ts
 * projectToJson({ id: 'p1', name: 'Shop', developerId: 'd1', createdAt: new Date() })
 * ```
 */
export function projectToJson(project: ProjectRecord): ProjectJson {
  return {
    id: project.id,
    name: project.name,
    developer_id: project.developerId,
    created_at: iso(project.createdAt),
  }
}

/**
 * An identity as JSON: `{"id","project_id","external_id","metadata","ratelimits","remaining","refill","roles","created_at","updated_at"}`.
 * Its `roles` are the names the record carries: read them with `keyward.withRoleNames` first
 * (`null` without them).
 *
 * @example
 * ```ts
 * const [identity] = await keyward.withRoleNames([await keyward.createIdentity('p1', { externalId: 'customer_acme' })])
 * identityToJson(identity)
 * // { id, project_id: 'p1', external_id: 'customer_acme', metadata: null, ratelimits: [], remaining: null, ..., roles: null }
 * ```
 */
export function identityToJson(
  identity: IdentityRecord & { readonly roles?: readonly string[] },
): IdentityJson {
  return {
    id: identity.id,
    project_id: identity.projectId,
    external_id: identity.externalId,
    metadata: identity.metadata,
    ratelimits: identity.ratelimits.map(({ name, limit, duration }) => ({ name, limit, duration })),
    remaining: identity.remaining,
    refill: identity.refill,
    credits_low_at: identity.creditsLowAt ?? null,
    roles: identity.roles ? [...identity.roles] : null,
    created_at: identity.createdAt.toISOString(),
    updated_at: identity.updatedAt.toISOString(),
  }
}

/**
 * A role as JSON: `{"id","project_id","name","permissions","created_at","updated_at"}`.
 *
 * @example
 * ```ts
 * roleToJson(await keyward.createRole('p1', { name: 'billing', permissions: ['billing:read'] }))
 * // { id, project_id: 'p1', name: 'billing', permissions: ['billing:read'], created_at, updated_at }
 * ```
 */
export function roleToJson(role: RoleRecord): RoleJson {
  return {
    id: role.id,
    project_id: role.projectId,
    name: role.name,
    permissions: [...role.permissions],
    created_at: role.createdAt.toISOString(),
    updated_at: role.updatedAt.toISOString(),
  }
}
