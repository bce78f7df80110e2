import type { AuditContext } from '../audit/types.js'
import { type CreditsLowAt, checkCreditsLowAt } from '../credits/low-at.js'
import type { CreditRefill } from '../credits/types.js'
import { isKeywardError } from '../errors/error.js'
import { checkOptionNames, optionNames } from '../errors/extra-fields.js'
import { ErrorType } from '../errors/types.js'
import { isImportedKey } from '../key/foreign.js'
import type { KeyKind } from '../key/format.js'
import type { KeyPolicies } from '../policy/policies.js'
import { countsAgainstLimit } from '../store/limit.js'
import { DEFAULT_PAGE_LIMIT, keyPage, MAX_PAGE_LIMIT } from '../store/page.js'
import type { KeyOwner, KeyOwnerSummary, KeyPage, KeyPagePosition, KeyRecord } from '../store/types.js'
import { SYSTEM } from './audit-rows.js'
import { newKeyCredits } from './credits.js'
import { deactivatedEvent } from './events.js'
import { expirySetter, type KeyExpiryChange } from './expiry.js'
import { identityOfNewKey } from './identities.js'
import { type KeyStatus, keyFilter } from './key-filter.js'
import { type LeakedKey, type LeakedKeyResult, leakedKeyRevoker } from './leaked.js'
import { checkExpiry, DAY_MS, lifecycleRefusal } from './lifecycle.js'
import { type IssuedKey, mintKey } from './mint.js'
import { checkName } from './name.js'
import { boundedExpiry, newKeyPolicies } from './policies.js'
import { roleIdsOf } from './roles.js'
import { type RolledKey, type RollKeyOptions, rollWith } from './roll.js'
import type { Writes } from './types.js'

/**
 * Options of the issue methods. An API key may also carry policies: an IP allowlist,
 * permissions (among the declared ones; all of them when absent), metadata and up to 5 named
 * rate limits (`ratelimits`, counted per key by the guards).
 */
export interface IssueKeyOptions extends KeyPolicies {
  /** A descriptive name, 1 to 100 characters. */
  readonly name?: string | null
  /** When the key expires, a time in the future; or give `expiresInDays` (1 to 3650), not both. */
  readonly expiresAt?: Date
  /** The key expires this many days from now, 1 to 3650. */
  readonly expiresInDays?: number
  /**
   * An API key's credits: an integer from 0, or `null` (absent) for unlimited. Each request
   * through a guard costs the route's `cost` (default 1); a key that cannot pay gets 429
   * `usage_exceeded`.
   */
  readonly remaining?: number | null
  /** How the credits come back (needs `remaining`), or `null` (absent) for never. */
  readonly refill?: CreditRefill | null
  /**
   * When the credits are low (needs `remaining`): the webhook event `credits.low` is written once
   * per refill period when a lease leaves the balance at or below it. `null` (absent) for never.
   */
  readonly creditsLowAt?: CreditsLowAt | null
  /** An API key only: the identity it joins, one of its project's (see the identities guide). */
  readonly identityId?: string
  /** An API key only: the identity it joins by the host's id for it, created on first use. */
  readonly externalId?: string
}

// Every option of the issue methods: any other is refused, as a typo of a policy.
const ISSUE_OPTIONS = optionNames<IssueKeyOptions>({
  name: true,
  expiresAt: true,
  expiresInDays: true,
  ipAllowlist: true,
  permissions: true,
  metadata: true,
  ratelimits: true,
  roles: true,
  remaining: true,
  refill: true,
  creditsLowAt: true,
  identityId: true,
  externalId: true,
})
const ISSUERS = { developer: 'issueDeveloperKey', project: 'issueProjectKey' } as const

/** Options of {@link Keyward.listKeysPage}. */
export interface ListKeysPageOptions {
  /** How many keys at most, 1 to 200. Default 100. */
  readonly limit?: number
  /** Start after this key (the `next` of the previous page); absent for the first page. */
  readonly after?: KeyPagePosition | null
  /** Only keys whose name contains it (any case) or whose prefix starts with it, 1 to 100 characters. */
  readonly q?: string
  /** Only keys of this status now: `active`, `expired` or `revoked`. */
  readonly status?: KeyStatus
}

/** @internal The keys' part of the key service's interface (`Keyward`): their issue, listing and lifecycle. */
export interface KeywardKeys {
  readonly developerKeyLimit: number
  /** Keys older than this many days are due for rotation. */
  readonly rotationPeriodDays: number
  /**
   * Issues a developer key; 409 `limit_exceeded` when the developer has its limit of active keys,
   * 404 `not_found` when the developer was deleted ({@link Keyward.deactivateOwnerKeys}).
   */
  issueDeveloperKey(
    developerId: string,
    options?: IssueKeyOptions,
    context?: AuditContext,
  ): Promise<IssuedKey>
  /** Issues an API key for a project (no limit); 404 `not_found` when the project was deleted ({@link Keyward.deactivateOwnerKeys}). */
  issueProjectKey(projectId: string, options?: IssueKeyOptions, context?: AuditContext): Promise<IssuedKey>
  /**
   * Registers a developer: issues their first developer key, refused (409 `limit_exceeded`) while
   * they have an active one, the check and the issue one atomic step of the store. The audit log
   * records `developer.registered` and `key.issued` with it.
   *
   * @example
   * ```ts
   * const { key } = await keyward.registerDeveloper('dev_1', { name: 'laptop' }, { actor: { type: 'operator' } })
   * ```
   */
  registerDeveloper(
    developerId: string,
    options?: IssueKeyOptions,
    context?: AuditContext,
  ): Promise<IssuedKey>
  /** The owner's keys, active or not, oldest first. */
  listKeys(owner: KeyOwner): Promise<KeyRecord[]>
  /**
   * One page of the owner's keys, active or not, newest first (`createdAt`, then `id`,
   * descending): at most `limit` (1 to 200, default 100) after `after`, and where the next page
   * starts (`next`, `null` on the last page). Through the store's `listKeysPage` when it has one
   * (an index on PostgreSQL), else from `listKeysByOwner`, sorted and sliced.
   *
   * @example
   * ```ts
   * let page = await keyward.listKeysPage({ type: 'project', id: projectId }, { limit: 100 })
   * while (page.next) page = await keyward.listKeysPage(owner, { limit: 100, after: page.next })
   * ```
   */
  listKeysPage(owner: KeyOwner, options?: ListKeysPageOptions): Promise<KeyPage>
  /**
   * Every owner of this type that has keys, with counts (for operators' listings).
   * Throws a `TypeError` when the store does not implement `listOwners`.
   */
  listOwners(type: KeyKind): Promise<KeyOwnerSummary[]>
  /** A key record by id, or `null`. */
  findKey(id: string): Promise<KeyRecord | null>
  /** Deactivates a key; it fails authentication from then on. `null` if there is no such key. */
  deactivateKey(id: string, context?: AuditContext): Promise<KeyRecord | null>
  /**
   * Deletes an owner's keys: closes the owner (a deleted project or developer) and deactivates
   * all its active keys, atomically, then reports `key.deactivated` for each. From then on a key
   * of that owner cannot be issued or re-activated (404 `not_found`); a creation that races the
   * call is either refused or deactivated by it, never left active. Returns the records it
   * deactivated; calling it again returns none. Inside a transaction of the host's store
   * (`store.transaction` of `@keyward/postgres`) it commits with the host's own deletion.
   * Throws a `TypeError` when the store does not implement `deactivateOwnerKeys`.
   *
   * @example
   * ```ts
   * await store.transaction(async (tx) => {
   *   await createKeyward({ store: tx.store }).deactivateOwnerKeys({ type: 'project', id: projectId })
   *   await tx.query('DELETE FROM app.projects WHERE id = $1', [projectId])
   * })
   * ```
   */
  deactivateOwnerKeys(owner: KeyOwner, context?: AuditContext): Promise<KeyRecord[]>
  /**
   * Re-activates a key, within the owner's limit (409 `limit_exceeded`); an expired key (409
   * `key_expired`) or a rolled one (409 `key_rolled`) cannot be. `null` if there is no such key.
   */
  activateKey(id: string, context?: AuditContext): Promise<KeyRecord | null>
  /**
   * Replaces an active key with a new one of the same owner, name and lifetime; the old key
   * keeps working for the grace window, then expires. It no longer counts against the limit
   * and cannot be rolled again (409 `key_rolled`); of concurrent rolls of one key, one wins.
   * `null` if there is no such key; 409 `key_expired` or `key_inactive` for a key that cannot be rolled.
   */
  rollKey(id: string, options?: RollKeyOptions, context?: AuditContext): Promise<RolledKey | null>
  /**
   * Sets a key's expiry: `expiresAt` (a time in the future, or `null` for never) or
   * `expiresInDays` (1 to 3650), as at creation (422 with the same messages). A key in a roll's
   * grace window keeps the end of its window (409 `key_rolled`), an expired key stays expired
   * (409 `key_expired`). Every process's verification cache hears of it as of a deactivation: an
   * earlier expiry is a revocation. `null` if there is no such key. Throws a `TypeError` when the
   * store does not implement `setKeyExpiry`.
   *
   * @example
   * ```ts
   * await keyward.setKeyExpiry(keyId, { expiresAt: new Date('2027-01-31T00:00:00Z') })
   * ```
   */
  setKeyExpiry(id: string, change: KeyExpiryChange, context?: AuditContext): Promise<KeyRecord | null>
  /**
   * Whether a key is due for rotation: it counts against the limit and is older than the rotation
   * period, or was imported from another system (its format is not Keyward's).
   */
  isRotationDue(record: KeyRecord): boolean
  /**
   * Deactivates keys reported as leaked, by hash, in one batched lookup and one atomic batched
   * deactivation: `key.deactivated` for each key it deactivates, `key.leaked` (prefix, owner,
   * `url`, `source`; never the key) for each report of a known key. Reporting a leak again
   * changes nothing. Results come in the order of `leaks`.
   */
  revokeLeakedKeys(leaks: readonly LeakedKey[], context?: AuditContext): Promise<LeakedKeyResult[]>
}

/** @internal What the key methods need of the service besides what every write does. */
export interface KeyDependencies extends Writes {
  readonly developerKeyLimit: number
  readonly rotationPeriodDays: number
  /** The service's clock, in milliseconds. */
  readonly clock: () => number
  /** The context of a write given none (option `auditContext`). */
  readonly auditContext: AuditContext | undefined
  /** Keys were written, which ones unknown: every process-local trace of a key is dropped. */
  forgetAll(): void
  /** An owner was closed: no cached owner of a project may outlive it. */
  forgetOwners(): void
}

/** @internal The service's key methods: issuing, listing, (de)activating, rolling and expiring keys. */
export function keyMethods(deps: KeyDependencies): KeywardKeys {
  const { store, storeCall, now, emit, wrote, rules, auditRows, developersOf } = deps
  const { developerKeyLimit, rotationPeriodDays, clock } = deps
  const rotationPeriodMs = rotationPeriodDays * DAY_MS

  async function issue(
    ownerType: KeyKind,
    ownerId: string,
    issueOptions: IssueKeyOptions = {},
    context?: AuditContext,
    registering = false,
  ): Promise<IssuedKey> {
    if (typeof ownerId !== 'string' || ownerId === '') {
      throw new TypeError(
        `issue${ownerType === 'developer' ? 'Developer' : 'Project'}Key: the owner id must be a non-empty string.`,
      )
    }
    checkOptionNames(registering ? 'registerDeveloper' : ISSUERS[ownerType], issueOptions, ISSUE_OPTIONS)
    const name = checkName(issueOptions.name)
    const createdAt = now()
    const credits = newKeyCredits(ownerType, issueOptions.remaining, issueOptions.refill, createdAt)
    const lowAt = checkCreditsLowAt(issueOptions.creditsLowAt, credits.remaining, credits.refill)
    const expiresAt = boundedExpiry(rules, ownerType, createdAt, checkExpiry(issueOptions, createdAt), [
      'body',
      issueOptions.expiresInDays === undefined ? 'expires_at' : 'expires_in_days',
    ])
    const policies = newKeyPolicies(rules, ownerType, issueOptions)
    const owner = { type: ownerType, id: ownerId }
    // Checked before the identity, which `externalId` may create: a refused key creates nothing.
    const roleIds = await roleIdsOf(deps, ownerType, ownerId, policies.roles)
    const identityId = await identityOfNewKey(deps, ownerType, ownerId, issueOptions, context)
    const minted = await mintKey(deps.hashing, owner, name, expiresAt, createdAt, policies, credits)
    const { key } = minted
    const joined = identityId === null ? minted.record : { ...minted.record, identityId }
    const held = roleIds === null ? joined : { ...joined, roleIds }
    const record = lowAt === null ? held : { ...held, creditsLowAt: lowAt }
    // Registering a developer: "no active key yet" and the issue are one step of the store.
    const limit = registering ? 1 : ownerType === 'developer' ? developerKeyLimit : undefined
    const registered = {
      action: 'developer.registered',
      targetType: 'developer',
      targetId: ownerId,
      developerId: ownerId,
    } as const
    const given = context ?? deps.auditContext ?? SYSTEM
    const audit = registering ? { ...given, with: [registered, ...(given.with ?? [])] } : context
    const audited = auditRows.keys('key.issued', audit, await developersOf([record]), () => null)
    const stored = await storeCall('insertKey', () => store.insertKey(record, limit, audited)).catch(
      (error: unknown) => {
        wrote(record.hash)
        if (isKeywardError(error) && error.type === ErrorType.limitExceeded && limit !== undefined) {
          emit({ type: 'key.limit_exceeded', ownerType, ownerId, activeLimit: limit })
        }
        throw error
      },
    )
    wrote(stored.hash)
    emit({ type: 'key.issued', keyId: stored.id, keyPrefix: stored.keyPrefix, ownerType, ownerId })
    return { key, record: stored }
  }

  async function setActive(id: string, active: boolean, context?: AuditContext): Promise<KeyRecord | null> {
    const current = await storeCall('findKeyById', () => store.findKeyById(id))
    if (!current) return null
    const at = now()
    if (active) {
      const problem = lifecycleRefusal(current, 'activate', at.getTime())
      if (problem) throw problem
    }
    const limit = current.ownerType === 'developer' ? developerKeyLimit : undefined
    const action = active ? 'key.activated' : 'key.revoked'
    const audited = auditRows.keys(action, context, await developersOf([current]), () => current)
    const updated = await storeCall('setKeyActive', () =>
      store.setKeyActive(id, active, limit, at, audited),
    ).finally(() => wrote(current.hash))
    if (updated && updated.active === active && current.active !== active) {
      emit({
        type: active ? 'key.activated' : 'key.deactivated',
        keyId: updated.id,
        keyPrefix: updated.keyPrefix,
        ownerType: updated.ownerType,
        ownerId: updated.ownerId,
      })
    }
    return updated
  }

  async function deactivateOwnerKeys(owner: KeyOwner, context?: AuditContext): Promise<KeyRecord[]> {
    if (
      (owner?.type !== 'developer' && owner?.type !== 'project') ||
      typeof owner.id !== 'string' ||
      owner.id === ''
    ) {
      throw new TypeError(
        "deactivateOwnerKeys: expected an owner { type: 'developer' | 'project', id }, the id a non-empty string.",
      )
    }
    if (!store.deactivateOwnerKeys) {
      throw new TypeError('This key store cannot deactivate an owner (no `deactivateOwnerKeys`).')
    }
    const closing = { type: owner.type, id: owner.id }
    const developerOf = await developersOf([{ ownerType: owner.type, ownerId: owner.id }])
    // Each key it deactivated was active before.
    const audited = auditRows.keys('key.revoked', context, developerOf, (record) => ({
      ...record,
      active: true,
    }))
    const changed = await storeCall('deactivateOwnerKeys', () =>
      store.deactivateOwnerKeys!(closing, audited),
    ).catch((error: unknown) => {
      // A failed call (a timeout) may still commit, and which keys it wrote is unknown.
      deps.forgetAll()
      throw error
    })
    // The owner is gone even if it had no active key: no cached owner may outlive it here.
    deps.forgetOwners()
    for (const record of changed) {
      wrote(record.hash)
      emit(deactivatedEvent(record))
    }
    return changed
  }

  return {
    developerKeyLimit,
    rotationPeriodDays,
    issueDeveloperKey: (developerId, issueOptions, context) =>
      issue('developer', developerId, issueOptions, context),
    issueProjectKey: (projectId, issueOptions, context) => issue('project', projectId, issueOptions, context),
    registerDeveloper: (developerId, issueOptions, context) =>
      issue('developer', developerId, issueOptions, context, true),
    listKeys: (owner) => storeCall('listKeysByOwner', () => store.listKeysByOwner(owner)),
    listKeysPage: async (owner, pageOptions = {}) => {
      const limit = pageOptions.limit ?? DEFAULT_PAGE_LIMIT
      if (!Number.isInteger(limit) || limit < 1 || limit > MAX_PAGE_LIMIT) {
        throw new TypeError(`listKeysPage: option \`limit\` must be an integer from 1 to ${MAX_PAGE_LIMIT}.`)
      }
      const query = {
        limit,
        ...(pageOptions.after ? { after: pageOptions.after } : {}),
        ...keyFilter(pageOptions, now()),
      }
      return storeCall('listKeysPage', async () =>
        store.listKeysPage
          ? store.listKeysPage(owner, query)
          : keyPage(await store.listKeysByOwner(owner), query),
      )
    },
    listOwners: async (type) => {
      if (!store.listOwners) throw new TypeError('This key store cannot list owners (no `listOwners`).')
      return storeCall('listOwners', () => store.listOwners!(type))
    },
    findKey: (id) => storeCall('findKeyById', () => store.findKeyById(id)),
    deactivateKey: (id, context) => setActive(id, false, context),
    deactivateOwnerKeys,
    activateKey: (id, context) => setActive(id, true, context),
    rollKey: rollWith(deps),
    setKeyExpiry: expirySetter(deps),
    // An imported key is due at once: rolling it issues a native key.
    isRotationDue: (record) =>
      countsAgainstLimit(record, now()) &&
      (record.createdAt.getTime() <= clock() - rotationPeriodMs || isImportedKey(record)),
    revokeLeakedKeys: leakedKeyRevoker(deps),
  }
}
