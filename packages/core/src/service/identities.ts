import type { AuditAction, AuditContext, AuditValues } from '../audit/types.js'
import { type CreditsLowAt, checkCreditsLowAt } from '../credits/low-at.js'
import { refillPeriodStart } from '../credits/model.js'
import type { CreditRefill } from '../credits/types.js'
import { KeywardError } from '../errors/error.js'
import { checkOptionNames, optionNames } from '../errors/extra-fields.js'
import { ErrorType } from '../errors/types.js'
import { checkIdentityChange, checkNewIdentity, type GivenIdentityChange } from '../identities/checks.js'
import {
  type IdentityRecord,
  MAX_EXTERNAL_ID_LENGTH,
  type NewIdentity,
  type StoredRateLimit,
} from '../identities/model.js'
import type { IdentityAuditWrite, IdentityPage, IdentityStore } from '../identities/store.js'
import type { KeyKind } from '../key/format.js'
import type { KeyMetadata } from '../policy/policies.js'
import type { KeyPagePosition, KeyRecord } from '../store/types.js'
import type { UsageBucket, UsageQuery } from '../store/usage.js'
import { auditedFields, changed } from './audit-rows.js'
import { roleIdsOf } from './roles.js'
import type { Writes } from './types.js'

/** Options of {@link KeywardIdentities.createIdentity}. */
export interface CreateIdentityOptions {
  /** The host's own id for its customer: 1 to 255 characters, unique within the project. */
  readonly externalId: string
  /** A JSON object of at most 4 KB, answered with every verification of the identity's keys. */
  readonly metadata?: KeyMetadata | null
  /** Up to 5 named limits shared by the identity's keys. */
  readonly ratelimits?: readonly StoredRateLimit[] | null
  /** The credit pool every key of the identity spends from; absent or `null` for none. */
  readonly remaining?: number | null
  readonly refill?: CreditRefill | null
  /** When the pool is low (needs `remaining`), for the webhook event `credits.low`; absent or `null` for never. */
  readonly creditsLowAt?: CreditsLowAt | null
  /**
   * The roles it holds, by name (roles of the project): every key of the identity may do what
   * they allow, besides its own permissions and roles. Absent or `null` for none.
   */
  readonly roles?: readonly string[] | null
}

/** Options of {@link KeywardIdentities.listIdentitiesPage} and {@link KeywardIdentities.listIdentityKeys}. */
export interface IdentityPageOptions {
  /** 1 to 200; default 50. */
  readonly limit?: number
  readonly after?: KeyPagePosition
  /**
   * Only the identities whose `externalId` contains it, in any case (1 to 255 characters); for
   * {@link KeywardIdentities.listIdentitiesPage}.
   */
  readonly q?: string
}

/** @internal The identities of a project's customers: part of {@link Keyward}. */
export interface KeywardIdentities {
  /**
   * Creates an identity in a project. 409 `identity_exists` when the project has one with its
   * `externalId`; 422 at the faulty option (`role_unknown` at `["body", "roles", i]` for a name
   * the project has no role of). Appends the audit row `identity.created`.
   *
   * @example
   * ```ts
   * await keyward.createIdentity('proj_1', { externalId: 'customer_acme', roles: ['billing'] })
   * ```
   */
  createIdentity(
    projectId: string,
    options: CreateIdentityOptions,
    context?: AuditContext,
  ): Promise<IdentityRecord>
  /** The identity with this id, or `null`. */
  findIdentity(id: string): Promise<IdentityRecord | null>
  /** The project's identity with this `externalId`, or `null`. */
  findIdentityByExternalId(projectId: string, externalId: string): Promise<IdentityRecord | null>
  /** A project's identities, newest first, a page at a time; with `q`, those whose `externalId` contains it. */
  listIdentitiesPage(projectId: string, options?: IdentityPageOptions): Promise<IdentityPage>
  /**
   * Changes an identity's metadata, limits, roles (by name) or low-credits threshold
   * (`creditsLowAt`, checked against its pool as at creation; 422 at `["body", "credits_low_at"]`);
   * `null` clears, absent keeps; `null` when there is no such identity. Its `externalId` never changes. A change of its roles
   * reaches every key of the identity, as a change of a role does. Appends the audit row
   * `identity.updated`.
   *
   * @example
   * ```ts
   * await keyward.updateIdentity(identity.id, { roles: ['billing', 'reports'] })
   * ```
   */
  updateIdentity(
    id: string,
    change: GivenIdentityChange,
    context?: AuditContext,
  ): Promise<IdentityRecord | null>
  /**
   * Deletes an identity; 409 `identity_has_keys` while keys belong to it, unless `revokeKeys`,
   * which revokes them and deletes it in one transaction. `null` when there is no such identity.
   */
  deleteIdentity(
    id: string,
    options?: { readonly revokeKeys?: boolean },
    context?: AuditContext,
  ): Promise<{ readonly identity: IdentityRecord; readonly revoked: readonly KeyRecord[] } | null>
  /**
   * Joins an API key to an identity of its project, or takes it out (`null`); `null` when there
   * is no such key or identity. Appends the audit row `key.identity_set`.
   */
  setKeyIdentity(keyId: string, identityId: string | null, context?: AuditContext): Promise<KeyRecord | null>
  /** The keys of an identity, newest first, a page at a time. */
  listIdentityKeys(
    id: string,
    options?: IdentityPageOptions,
  ): Promise<{ readonly records: KeyRecord[]; readonly next: KeyPagePosition | null }>
  /**
   * The usage of an identity: the counts of the keys that belong to it now, per bucket, key and
   * outcome, as `readUsage` answers them for its project (with `keyId`, of that key alone, when it
   * is one of them). The identity's total is their sum. `null` when there is no such identity.
   * Throws a `TypeError` when the store does not implement `readUsage`.
   *
   * @example
   * ```ts
   * const rows = await keyward.readIdentityUsage(identity.id, { granularity: 'hour', from, to })
   * const total = rows.reduce((sum, row) => sum + row.count, 0)
   * ```
   */
  readIdentityUsage(id: string, query: Omit<UsageQuery, 'owner' | 'keyIds'>): Promise<UsageBucket[] | null>
}

const CREATE_OPTIONS = optionNames<CreateIdentityOptions>({
  externalId: true,
  metadata: true,
  ratelimits: true,
  remaining: true,
  refill: true,
  creditsLowAt: true,
  roles: true,
})
const DEFAULT_PAGE_LIMIT = 50
const MAX_PAGE_LIMIT = 200

// As a key's: the host's data about its customer is redacted (see auditedFields).
const identityFields = (identity: IdentityRecord): AuditValues =>
  auditedFields({
    external_id: identity.externalId,
    metadata: identity.metadata,
    ratelimits: identity.ratelimits,
    remaining: identity.remaining,
    refill: identity.refill,
    credits_low_at: identity.creditsLowAt ?? null,
    role_ids: identity.roleIds?.length ? identity.roleIds : null,
  })

const newIdentity = (projectId: string, given: NewIdentity, at: Date): IdentityRecord => ({
  id: crypto.randomUUID(),
  projectId,
  ...given,
  // As a key's: its first refill is at the start of the next period, not at its first lease.
  refilledAt: given.refill ? refillPeriodStart(given.refill, at) : null,
  createdAt: at,
  updatedAt: at,
})

/** @internal The developer whose audit log holds the rows of a project's identities. */
export async function projectDeveloper(writes: Writes, projectId: string): Promise<string | null> {
  const project = { ownerType: 'project', ownerId: projectId } as const
  return (await writes.developersOf([project]))(project)
}

/** @internal The identity store of the service's store; a `TypeError` when it keeps none. */
export function identityStore({ store }: Pick<Writes, 'store'>): IdentityStore {
  if (store.identities === undefined) {
    throw new TypeError('This key store keeps no identities (it has no `identities`).')
  }
  return store.identities
}

// The rows of an identity's write, in the log of the developer who owns its project. A key that
// joins or leaves one names the identity it had (`left`) as its row's `before`.
async function identityRows(
  writes: Writes,
  action: AuditAction,
  context: AuditContext | undefined,
  projectId: string,
  left?: string | null,
): Promise<IdentityAuditWrite | undefined> {
  const { auditRows } = writes
  if (!auditRows.on) return undefined
  const developerId = await projectDeveloper(writes, projectId)
  const at = writes.now()
  return (identity, keys, before) => {
    // A change names the fields that changed, as a key's does; a creation all of them.
    const diff =
      before !== null && action === 'identity.updated'
        ? changed(identityFields(before), identityFields(identity))
        : null
    const after = action === 'identity.deleted' ? null : (diff?.after ?? identityFields(identity))
    const was = before === null ? null : (diff?.before ?? identityFields(before))
    const own =
      action === 'key.identity_set'
        ? []
        : [
            auditRows.event(
              {
                action,
                targetType: 'identity',
                targetId: identity.id,
                developerId,
                projectId: identity.projectId,
                before: was,
                after,
              },
              context,
              at,
            ),
          ]
    return [
      ...own,
      ...keys.map((key) =>
        auditRows.event(
          {
            action: action === 'identity.deleted' ? 'key.revoked' : 'key.identity_set',
            targetType: 'key',
            targetId: key.id,
            developerId,
            projectId: identity.projectId,
            ...(left === undefined ? {} : { before: { identity_id: left } }),
            after: { key_prefix: key.keyPrefix, identity_id: key.identityId ?? null, active: key.active },
          },
          context,
          at,
        ),
      ),
    ]
  }
}

/** How a new API key names its identity: by id, or by external id (created on first use). */
export interface NewKeyIdentity {
  readonly identityId?: string
  readonly externalId?: string
}

/**
 * @internal The identity a new API key of `projectId` joins, or `null` for none: the one named by
 * `identityId` (422 at `identity_id` when the project has no such identity), or the one of
 * `externalId`, created on first use, as Unkey does. Not both.
 */
export async function identityOfNewKey(
  writes: Writes,
  ownerType: KeyKind,
  projectId: string,
  { identityId, externalId }: NewKeyIdentity,
  context: AuditContext | undefined,
): Promise<string | null> {
  if (identityId === undefined && externalId === undefined) return null
  const field = identityId === undefined ? 'external_id' : 'identity_id'
  const refuse = (msg: string) => new KeywardError(ErrorType.valueError, msg, ['body', field])
  if (ownerType !== 'project') throw refuse('Only API keys belong to identities.')
  if (identityId !== undefined && externalId !== undefined) {
    throw refuse('Give identity_id or external_id, not both.')
  }
  const identities = identityStore(writes)
  if (identityId !== undefined) {
    const identity = await writes.storeCall('findIdentity', () => identities.findIdentity(identityId))
    if (identity === null || identity.projectId !== projectId)
      throw refuse('The project has no such identity.')
    return identity.id
  }
  const record = newIdentity(projectId, checkNewIdentity({ external_id: externalId }), writes.now())
  const audit = await identityRows(writes, 'identity.created', context, projectId)
  const { identity } = await writes.storeCall('ensureIdentity', () =>
    identities.ensureIdentity(record, audit),
  )
  return identity.id
}

/** @internal A page's query from the options of a listing (identities', roles'). */
export function pageQuery(options: IdentityPageOptions = {}) {
  const limit = options.limit ?? DEFAULT_PAGE_LIMIT
  if (!Number.isInteger(limit) || limit < 1 || limit > MAX_PAGE_LIMIT) {
    throw new TypeError(`option \`limit\` must be an integer from 1 to ${MAX_PAGE_LIMIT}.`)
  }
  return options.after ? { limit, after: options.after } : { limit }
}

/** @internal The identities' part of the service. */
export function identityMethods(writes: Writes): KeywardIdentities {
  const { store, storeCall, now, wrote } = writes
  const identities = () => identityStore(writes)
  const rows = (
    action: AuditAction,
    context: AuditContext | undefined,
    projectId: string,
    left?: string | null,
  ) => identityRows(writes, action, context, projectId, left)

  const findIdentity = (id: string) => storeCall('findIdentity', () => identities().findIdentity(id))

  return {
    async createIdentity(projectId, options, context) {
      checkOptionNames('createIdentity', options, CREATE_OPTIONS)
      const { roles, ...given } = checkNewIdentity({
        external_id: options?.externalId,
        metadata: options?.metadata,
        ratelimits: options?.ratelimits,
        remaining: options?.remaining,
        refill: options?.refill,
        credits_low_at: options?.creditsLowAt,
        roles: options?.roles,
      })
      const roleIds = await roleIdsOf(writes, 'project', projectId, roles)
      const record = newIdentity(projectId, roleIds === null ? given : { ...given, roleIds }, now())
      const audit = await rows('identity.created', context, projectId)
      const inserted = await storeCall('insertIdentity', () => identities().insertIdentity(record, audit))
      if (inserted === null) {
        throw new KeywardError(
          ErrorType.identityExists,
          'The project has an identity with this external_id already.',
          ['body', 'external_id'],
        )
      }
      return inserted
    },
    findIdentity,
    findIdentityByExternalId: (projectId, externalId) =>
      storeCall('findIdentityByExternalId', () =>
        identities().findIdentityByExternalId(projectId, externalId),
      ),
    listIdentitiesPage: async (projectId, options = {}) => {
      const { q } = options
      if (q !== undefined && (typeof q !== 'string' || q.length < 1 || q.length > MAX_EXTERNAL_ID_LENGTH)) {
        throw new TypeError(
          `listIdentitiesPage: option \`q\` must be a string of 1 to ${MAX_EXTERNAL_ID_LENGTH} characters.`,
        )
      }
      const query = { ...pageQuery(options), ...(q === undefined ? {} : { q }) }
      return storeCall('listIdentitiesPage', () => identities().listIdentitiesPage(projectId, query))
    },
    async updateIdentity(id, change, context) {
      // The threshold by its option name, or as a body names it (`credits_low_at`).
      const { creditsLowAt: option, ...fields } = change ?? {}
      const { roles, creditsLowAt: field, ...rest } = checkIdentityChange(fields)
      const creditsLowAt = option === undefined ? field : option
      const current = await findIdentity(id)
      if (current === null) return null
      // The threshold needs the pool (as at creation): checked once read, before any write.
      const lowAt =
        creditsLowAt === undefined
          ? {}
          : { creditsLowAt: checkCreditsLowAt(creditsLowAt, current.remaining, current.refill) }
      const checked =
        roles === undefined
          ? { ...rest, ...lowAt }
          : { ...rest, ...lowAt, roleIds: await roleIdsOf(writes, 'project', current.projectId, roles) }
      const audit = await rows('identity.updated', context, current.projectId)
      return storeCall('updateIdentity', () => identities().updateIdentity(id, checked, now(), audit))
    },
    async deleteIdentity(id, options = {}, context) {
      const current = await findIdentity(id)
      if (current === null) return null
      const audit = await rows('identity.deleted', context, current.projectId)
      const outcome = await storeCall('deleteIdentity', () =>
        identities().deleteIdentity(id, options.revokeKeys === true, audit),
      )
      if (outcome === null) return null
      if ('kept' in outcome) {
        throw new KeywardError(
          ErrorType.identityHasKeys,
          `The identity has ${outcome.keys} keys: move or revoke them first, or delete it with revoke_keys.`,
          ['path', 'identity_id'],
        )
      }
      for (const key of outcome.revoked) wrote(key.hash)
      return { identity: outcome.deleted, revoked: outcome.revoked }
    },
    async setKeyIdentity(keyId, identityId, context) {
      const key = await storeCall('findKeyById', () => store.findKeyById(keyId))
      if (key === null || key.ownerType !== 'project') return null
      if (identityId !== null) {
        const identity = await findIdentity(identityId)
        // An identity of another project is no identity of this key's.
        if (identity === null || identity.projectId !== key.ownerId) return null
      }
      const audit = await rows('key.identity_set', context, key.ownerId, key.identityId ?? null)
      const updated = await storeCall('setKeyIdentity', () =>
        identities().setKeyIdentity(keyId, identityId, audit),
      )
      if (updated) wrote(updated.hash)
      return updated
    },
    listIdentityKeys: async (id, options) => {
      const query = pageQuery(options)
      return storeCall('listIdentityKeys', () => identities().listIdentityKeys(id, query))
    },
    async readIdentityUsage(id, query) {
      if (!store.readUsage) throw new TypeError('This key store cannot read usage (no `readUsage`).')
      const identity = await findIdentity(id)
      if (identity === null) return null
      // Its keys now, every page of them: their counts, whichever identity they had when counted.
      const keyIds = new Set<string>()
      let after: KeyPagePosition | undefined
      do {
        const page = await storeCall('listIdentityKeys', () =>
          identities().listIdentityKeys(
            id,
            after ? { limit: MAX_PAGE_LIMIT, after } : { limit: MAX_PAGE_LIMIT },
          ),
        )
        for (const key of page.records) keyIds.add(key.id)
        after = page.next ?? undefined
      } while (after !== undefined)
      if (query.keyId !== undefined && !keyIds.has(query.keyId)) return []
      if (keyIds.size === 0) return []
      const owner = { type: 'project', id: identity.projectId } as const
      const rows = await storeCall('readUsage', () =>
        store.readUsage!({ ...query, owner, keyIds: [...keyIds] }),
      )
      // A store that reads every key of the project answers the same: only the identity's count.
      return rows.filter((row) => keyIds.has(row.keyId))
    },
  }
}
