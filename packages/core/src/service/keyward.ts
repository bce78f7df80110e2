import type { AuditContext } from '../audit/types.js'
import { checkCreditOptions, createCreditSpender } from '../credits/spender.js'
import type { CreditRefill } from '../credits/types.js'
import { echoValue } from '../errors/echo.js'
import { isKeywardError, KeywardError, refusal } from '../errors/error.js'
import { checkOptionNames, optionNames } from '../errors/extra-fields.js'
import { ErrorType } from '../errors/types.js'
import { sha256Hex } from '../hash/digest.js'
import { clientAddress } from '../http/client-address.js'
import { routeOf } from '../http/route-of.js'
import type { KeywardRequest } from '../http/types.js'
import { KEY_LENGTH, KEY_PATTERN, KEY_PREFIX } from '../key/constants.js'
import {
  KEY_HEADER,
  type KeyKind,
  KIND_WORDS,
  keyFormatProblem,
  type LegacyDeveloperKeyPolicy,
} from '../key/format.js'
import {
  accessProblem,
  checkDeclaredPermissions,
  type KeyPolicies,
  type PermissionRule,
} from '../policy/policies.js'
import { createProtection, type Protection } from '../protection/protection.js'
import { countsAgainstLimit } from '../store/limit.js'
import { DEFAULT_PAGE_LIMIT, keyPage, MAX_PAGE_LIMIT } from '../store/page.js'
import type {
  KeyOwner,
  KeyOwnerSummary,
  KeyPage,
  KeyPagePosition,
  KeyRecord,
  KeyStore,
} from '../store/types.js'
import type { UsageOutcome } from '../store/usage.js'
import { auditMethods, developerLookup, type KeywardAudit } from './audit.js'
import { AuditRows, SYSTEM } from './audit-rows.js'
import { VerificationCache, type VerificationCacheStats } from './cache.js'
import { creditMethods, type KeywardCredits, newKeyCredits, projectKeyRef } from './credits.js'
import { type AuthFailureReason, deactivatedEvent, emitter, type KeywardEvent } from './events.js'
import { expirySetter, type KeyExpiryChange } from './expiry.js'
import { LookupFlights } from './flight.js'
import { type LeakedKey, type LeakedKeyResult, leakedKeyRevoker } from './leaked.js'
import { checkExpiry, DAY_MS, lifecycleRefusal } from './lifecycle.js'
import { type IssuedKey, mintKey } from './mint.js'
import { checkName } from './name.js'
import { checkOptions, type KeywardOptions, usageSettings } from './options.js'
import { boundedExpiry, type KeywardPolicies, newKeyPolicies, policyMethods } from './policies.js'
import type { AuthContext, AuthContextFor, Credentials, KeyRef, Requirement } from './requirements.js'
import { type RolledKey, type RollKeyOptions, rollWith } from './roll.js'
import type { PolicyRules, Writes } from './types.js'
import { createUsage, type KeywardUsage, usageMethods } from './usage.js'
import { createUsageCounts, OUTCOME } from './usage-counts.js'

export type { IssuedKey } from './mint.js'

/**
 * Options of the issue methods. An API key may also carry policies: an IP allowlist,
 * permissions (among the declared ones; all of them when absent) and metadata.
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
}

// Every option of the issue methods: any other is refused, as a typo of a policy.
const ISSUE_OPTIONS = optionNames<IssueKeyOptions>({
  name: true,
  expiresAt: true,
  expiresInDays: true,
  ipAllowlist: true,
  permissions: true,
  metadata: true,
  remaining: true,
  refill: true,
})
const ISSUERS = { developer: 'issueDeveloperKey', project: 'issueProjectKey' } as const

/** Options of {@link Keyward.listKeysPage}. */
export interface ListKeysPageOptions {
  /** How many keys at most, 1 to 200. Default 100. */
  readonly limit?: number
  /** Start after this key (the `next` of the previous page); absent for the first page. */
  readonly after?: KeyPagePosition | null
}

/** The key service that {@link createKeyward} builds. */
export interface Keyward extends KeywardAudit, KeywardCredits, KeywardPolicies, KeywardUsage {
  readonly store: KeyStore
  readonly developerKeyLimit: number
  readonly legacyDeveloperKeys: LegacyDeveloperKeyPolicy
  /** Whether the service was given `projectOwner`, which requirements that name an owner need. */
  readonly hasProjectOwner: boolean
  /** The guards' abuse protection, from the `protection` option; `undefined` when off. */
  readonly protection: Protection | undefined
  /** Keys older than this many days are due for rotation. */
  readonly rotationPeriodDays: number
  /**
   * Whether a key read by id ({@link Keyward.findKey}) can still act as a key of `kind`, by the
   * guards' own check of its state: it exists, is active, is of that kind, and has not expired (a
   * rolled key until the end of its grace window), on the service's clock. Call it, before
   * {@link Keyward.keyAccessProblem}, wherever a key acts through something it issued, such as an
   * access token that names the key: the token then ends when the key does.
   *
   * @example
   * ```ts
   * const key = await keyward.findKey(claims.keyId)
   * if (!keyward.keyUsable(key, 'project') || key.ownerId !== claims.projectId) return null
   * ```
   */
  keyUsable(record: KeyRecord | null, kind: KeyKind): record is KeyRecord
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
  /** Whether a key is due for rotation: it counts against the limit and is older than the rotation period. */
  isRotationDue(record: KeyRecord): boolean
  /**
   * Stops the service's timers, writes what it holds (`lastUsedAt` uses, usage counts) and gives
   * back the credits this process leased and did not spend. Call it on a clean stop, before
   * closing the store: then nothing counted is lost. A process killed without it loses the usage
   * counts of its last flush interval and strands at most one leased block of credits per key
   * (see the credits guide).
   *
   * @example
   * ```ts
   * process.once('SIGTERM', async () => {
   *   server.close()
   *   await keyward.close()
   *   await store.close()
   * })
   * ```
   */
  close(): Promise<void>
  /**
   * Deactivates keys reported as leaked, by hash, in one batched lookup and one atomic batched
   * deactivation: `key.deactivated` for each key it deactivates, `key.leaked` (prefix, owner,
   * `url`, `source`; never the key) for each report of a known key. Reporting a leak again
   * changes nothing. Results come in the order of `leaks`.
   */
  revokeLeakedKeys(leaks: readonly LeakedKey[], context?: AuditContext): Promise<LeakedKeyResult[]>
  /** The developer that owns a project, through the `projectOwner` option; `null` if none. */
  projectOwner(projectId: string): Promise<string | null>
  /**
   * Verifies the presented keys against a requirement and returns who is calling.
   * Throws a {@link KeywardError} at the first failed check, in the specification's order.
   */
  authenticate<R extends Requirement>(credentials: Credentials, requirement: R): Promise<AuthContextFor<R>>
  /**
   * @internal What {@link authenticate} would answer, when it is known at once, with no store
   * lookup: a key the verification cache holds, for a requirement that needs no owner lookup.
   * `undefined` when it is not known (a malformed key among them: its refusal is reported with
   * its reason the asynchronous way); then call `authenticate`.
   */
  authenticateNow(credentials: Credentials, requirement: Requirement): AuthContext | KeywardError | undefined
  /**
   * @internal {@link authenticateNow} for one key, as its header holds it: a project key of
   * `projectId` (of any project when it is undefined), or a developer key. The guards' hot path:
   * it builds no credentials and no requirement.
   */
  keyNow(
    kind: KeyKind,
    value: unknown,
    projectId: string | undefined,
    address?: string,
    permissions?: PermissionRule,
    request?: KeywardRequest,
  ): AuthContext | KeywardError | undefined
  /**
   * @internal The verification service's check of an API key (`POST /api/v1/keys/verify`): the
   * guard's checks, in its order, for a key presented in a body rather than a header, and the
   * record of the key that passed them. With `developerId`, a key of a project that developer
   * does not own is refused right after the lookup as an unknown key is (`key_invalid`), before
   * the project, IP allowlist and permission checks could tell anything about it.
   */
  verifyApiKey(credentials: Credentials, check: ApiKeyCheck): Promise<KeyRecord>
  /** What the verification cache has done (hits, misses, bypassed lookups), or `null` without one. */
  cacheStats(): VerificationCacheStats | null
  /** @internal Hands an event to the host's `onEvent` hook (the guards report a misplaced guard). */
  report(event: KeywardEvent): void
}

/** @internal What {@link Keyward.verifyApiKey} checks of an API key besides the guard's format, lookup and state. */
export interface ApiKeyCheck {
  /** The key must be one of this project's. */
  readonly projectId?: string
  /** The key must carry these permissions. */
  readonly permissions?: PermissionRule
  /** The key's project must be owned by this developer, else the key is answered as unknown. */
  readonly developerId?: string
}

const OTHER_KIND: Readonly<Record<KeyKind, KeyKind>> = { developer: 'project', project: 'developer' }

const ref = (record: KeyRecord): KeyRef => ({ id: record.id, keyPrefix: record.keyPrefix })

// What an API key hands its guard besides its ref: its permissions and metadata.
const projectAuth = (key: KeyRecord) => ({
  scope: 'project' as const,
  projectId: key.ownerId,
  projectKey: projectKeyRef(key),
  permissions: key.permissions ?? null,
  metadata: key.metadata ?? null,
})

const settled = Promise.resolve()

// The refusals that usage counts, by the outcome it counts them under (a missing key and an
// unreachable store are no verification of a key).
const REFUSAL_OUTCOME: Readonly<Partial<Record<AuthFailureReason, UsageOutcome>>> = {
  malformed: 'malformed',
  legacy_prefix: 'malformed',
  unknown_key: 'unknown',
  inactive_key: 'inactive',
  expired_key: 'expired',
  wrong_type: 'wrong_type',
  project_mismatch: 'wrong_project',
  not_project_owner: 'not_project_owner',
  project_not_found: 'project_not_found',
  ip_not_allowed: 'ip_not_allowed',
  permission_denied: 'permission_denied',
}
// What a record's own state can refuse it for (see `stateProblem`).
type KeyStateProblem = Extract<
  AuthFailureReason,
  'unknown_key' | 'inactive_key' | 'wrong_type' | 'expired_key'
>

const ACCEPTED = OUTCOME.accepted
const RATE_LIMITED = OUTCOME.rate_limited

// Unknown, inactive and expired keys get one answer: the API is no oracle of which keys exist.
// Its text never varies, so each kind's is built once, frozen, and shared by every refusal: a
// flood of bad keys allocates nothing for them.
const INVALID: Readonly<Record<KeyKind, KeywardError>> = {
  developer: frozenRefusal('developer'),
  project: frozenRefusal('project'),
}

function frozenRefusal(kind: KeyKind): KeywardError {
  const error = refusal(
    ErrorType.keyInvalid,
    `The ${KIND_WORDS[kind].label} is not valid: it is unknown or no longer active.`,
    ['header', KEY_HEADER[kind]],
  )
  Object.freeze(error.loc)
  for (const detail of error.details) Object.freeze(detail)
  Object.freeze(error.details)
  return Object.freeze(error)
}

// A promise that rejects with `error` a tick later, once the caller has attached its handlers.
// Refusals are built this way, neither thrown nor `Promise.reject`ed: a throw, and a rejection
// that has no handler yet (Node's unhandled-rejection bookkeeping), each cost more than the whole
// verification (see bench/).
function refused(error: KeywardError): Promise<never> {
  return new Promise((_, reject) => {
    settled.then(() => reject(error))
  })
}

/**
 * Builds the key service over a store: issuing, listing, (de)activating and verifying keys.
 *
 * @example
 * ```ts
 * const keyward = createKeyward({
 *   store: new MemoryKeyStore(),
 *   projectOwner: async (projectId) => (await db.projects.find(projectId))?.developerId ?? null,
 *   onEvent: (event) => logger.info(event), // prefixes only, never a full key
 * })
 * const { key } = await keyward.issueDeveloperKey('dev_1', { name: 'laptop' })
 * const auth = await keyward.authenticate({ developerKey: key }, { scope: 'developer' })
 * auth.developerId // 'dev_1'
 * ```
 */
export function createKeyward(options: KeywardOptions): Keyward {
  checkOptions(options)
  const store = options.store
  const developerKeyLimit = options.developerKeyLimit ?? 10
  const legacy = options.legacyDeveloperKeys ?? 'reject'
  const emit = emitter(options.onEvent)
  const now = options.now ?? (() => new Date())
  const clock = options.now ? () => now().getTime() : Date.now
  const ownerLookup = options.projectOwner
  const rules: PolicyRules = {
    declared: checkDeclaredPermissions(options.permissions),
    owners: options.keyPolicies ?? {},
  }
  const trustedProxy = options.protection?.trustedProxy
  const cache =
    options.cache && store.changes ? new VerificationCache(options.cache, store.changes, emit) : undefined

  // Every write through the service ends here before it returns, whether it succeeded or not
  // (a write that timed out may still commit): the cache forgets the key, and no request from
  // now on joins a lookup of it sent before.
  const wrote = (hash: string) => {
    cache?.forget(hash)
    flights.forget(hash)
  }
  const rotationPeriodDays = options.rotationPeriodDays ?? 90
  const rotationPeriodMs = rotationPeriodDays * DAY_MS
  const listening = options.onEvent !== undefined
  const track = options.trackLastUsed ?? true
  const usage = createUsage({
    store,
    emit,
    listening,
    track,
    intervalMs: (options.lastUsedIntervalSeconds ?? 60) * 1000,
    rotationPeriodMs,
    clock,
  })
  const noteUse = track || listening
  const usageOptions = usageSettings(options)
  const counts =
    usageOptions && store.recordUsage
      ? createUsageCounts({
          store: store as Parameters<typeof createUsageCounts>[0]['store'],
          emit,
          clock,
          exactClock: options.now !== undefined,
          ...usageOptions,
        })
      : undefined
  const audit = listening && options.auditSuccesses === true
  // The audit log, when the store keeps one: every write below appends its rows with it.
  const auditRows = new AuditRows(typeof store.appendAudit === 'function', now, options.auditContext)
  const developersOf = developerLookup(auditRows, ownerLookup ? projectOwner : undefined)

  const storeUnavailable = (operation: string, error: unknown) => {
    emit({ type: 'store.error', operation, error })
    return new KeywardError(
      ErrorType.storeUnavailable,
      'The key store is unavailable. Try again later.',
      [],
      {
        cause: error,
      },
    )
  }

  // One store lookup per hash at a time, for every request that arrived before it was sent; the
  // cache may have been filled since those requests missed it.
  const flights = new LookupFlights(
    cache
      ? (hash) => {
          const cached = cache.peek(hash)
          if (cached !== undefined) return Promise.resolve(cached)
          const version = cache.version
          return findKey(hash).then((record) => {
            cache.fill(version, hash, record)
            return record
          })
        }
      : findKey,
  )
  // The requests of one failed lookup share its error, reported once.
  const lookupFailures = new WeakMap<object, KeywardError>()
  function lookupFailure(error: unknown): KeywardError {
    if (typeof error !== 'object' || error === null) return storeUnavailable('findKeyByHash', error)
    let failure = lookupFailures.get(error)
    if (failure === undefined) {
      failure = storeUnavailable('findKeyByHash', error)
      lookupFailures.set(error, failure)
    }
    return failure
  }
  // With a cache (a service that listens to the feed), changes heard close lookups to later
  // requests as writes here do; a notification from another process comes in a later tick anyway.
  if (cache) {
    store.changes?.subscribe((event) => {
      if (event.type === 'changed') flights.forget(event.hash)
      else flights.forgetAll()
    })
  }

  async function storeCall<T>(operation: string, run: () => Promise<T>): Promise<T> {
    try {
      return await run()
    } catch (error) {
      if (isKeywardError(error)) {
        // A revocation committed but not confirmed is answered as it is, and reported as a failure.
        if (error.type === ErrorType.revocationUnconfirmed) emit({ type: 'store.error', operation, error })
        throw error
      }
      throw storeUnavailable(operation, error)
    }
  }

  function failed(
    kind: KeyKind,
    reason: AuthFailureReason,
    error: KeywardError,
    record?: KeyRecord,
    address?: string,
    request?: KeywardRequest,
  ): KeywardError {
    if (counts) countRefusal(reason, record, address, request)
    // Without a hook, no event is built: a flood of refusals costs no garbage.
    if (!options.onEvent) return error
    emit({
      type: 'auth.failed',
      reason,
      header: KEY_HEADER[kind],
      errorType: error.type,
      ...(record ? { keyId: record.id, keyPrefix: record.keyPrefix } : {}),
    })
    return error
  }

  // Usage counts of a refusal: per key when it names one, else per route and the address of the
  // request (a request's own, not an address it names for the allowlist).
  function countRefusal(
    reason: AuthFailureReason,
    record: KeyRecord | undefined,
    address: string | undefined,
    request: KeywardRequest | undefined,
  ): void {
    const outcome = REFUSAL_OUTCOME[reason]
    if (outcome === undefined || !counts) return
    if (record) counts.count(record, OUTCOME[outcome])
    else if (outcome === 'unknown' || outcome === 'malformed') {
      const from = request ? clientAddress(request, trustedProxy) : address
      counts.refusedUnknown(outcome, request ? routeOf(request) : '', from ?? 'unknown')
    }
  }

  // The hot path. It is written with one `.then` per step instead of async functions: each
  // async frame costs more than the rest of the verification together (see bench/).
  function verify(value: string | null | undefined, kind: KeyKind, origin?: Credentials): Promise<KeyRecord> {
    if (typeof value !== 'string' || value.length !== KEY_LENGTH || !KEY_PATTERN.test(value)) {
      const problem = keyFormatProblem(value, kind, legacy)
      if (problem) {
        const reason =
          problem.type === ErrorType.keyMissing
            ? 'missing'
            : problem.type === ErrorType.keyLegacyPrefix
              ? 'legacy_prefix'
              : 'malformed'
        return refused(failed(kind, reason, problem, undefined, origin?.address, origin?.request))
      }
    }
    const digest = sha256Hex(value as string)
    return typeof digest === 'string'
      ? lookup(digest, kind, origin)
      : digest.then((hash) => lookup(hash, kind, origin))
  }

  function lookup(hash: string, kind: KeyKind, origin: Credentials | undefined): Promise<KeyRecord> {
    if (cache) {
      const cached = cache.get(hash)
      // The same checks as after a store lookup: a cached record is checked every time.
      if (cached !== undefined) return settle(cached, kind, origin)
    }
    return flights.lookup(hash).then(
      (record) => {
        const problem = recordProblem(record, kind, origin?.address, origin?.request)
        if (problem) throw problem
        return record as KeyRecord
      },
      (error: unknown) => {
        throw failed(kind, 'store_unavailable', lookupFailure(error))
      },
    )
  }

  function settle(
    record: KeyRecord | null,
    kind: KeyKind,
    origin: Credentials | undefined,
  ): Promise<KeyRecord> {
    const problem = recordProblem(record, kind, origin?.address, origin?.request)
    return problem ? refused(problem) : Promise.resolve(record as KeyRecord)
  }

  function findKey(hash: string): Promise<KeyRecord | null> {
    try {
      return store.findKeyByHash(hash)
    } catch (error) {
      return Promise.reject(error)
    }
  }

  /**
   * Why a looked-up record cannot act as a key of `kind`, or `null` when it can: the guards'
   * check of the key's own state, and `keyUsable`'s. Checked on the record, after the lookup: a
   * record read from the cache expires on time too, and a rolled key at the end of its grace.
   */
  function stateProblem(record: KeyRecord | null, kind: KeyKind): KeyStateProblem | null {
    if (record === null) return 'unknown_key'
    if (!record.active) return 'inactive_key'
    if (record.ownerType !== kind) return 'wrong_type'
    return record.expiresAt == null || record.expiresAt.getTime() > clock() ? null : 'expired_key'
  }

  /** The refusal of a looked-up record, or `null` when it passes. */
  function recordProblem(
    record: KeyRecord | null,
    kind: KeyKind,
    address?: string,
    request?: KeywardRequest,
  ): KeywardError | null {
    const problem = stateProblem(record, kind)
    if (problem === null) return null
    if (problem === 'unknown_key' || problem === 'inactive_key') {
      return failed(kind, problem, INVALID[kind], record ?? undefined, address, request)
    }
    const key = record as KeyRecord
    if (problem === 'expired_key') return failed(kind, problem, INVALID[kind], key)
    const other = OTHER_KIND[kind]
    const error = refusal(
      ErrorType.keyWrongType,
      `This is ${KIND_WORDS[other].withArticle}, not ${KIND_WORDS[kind].withArticle}; send it in the ${KIND_WORDS[other].header} header.`,
      ['header', KEY_HEADER[kind]],
    )
    return failed(kind, 'wrong_type', error, key)
  }

  async function projectOwner(projectId: string): Promise<string | null> {
    if (!ownerLookup) {
      throw new TypeError(
        'createKeyward: option `projectOwner` is required for requirements that name a project owner.',
      )
    }
    const cached = cache?.ownerOf(projectId)
    if (cached !== undefined) return cached
    const version = cache ? cache.version : -1
    const owner = await storeCall('projectOwner', async () => ownerLookup(projectId))
    cache?.fillOwner(version, projectId, owner)
    return owner
  }

  async function checkOwner(developer: KeyRecord, projectId: string): Promise<void> {
    const owner = await projectOwner(projectId)
    if (owner === null) {
      const error = refusal(ErrorType.notFound, `Project ${echoValue(projectId)} was not found.`, [
        'path',
        'project_id',
      ])
      throw failed('developer', 'project_not_found', error, developer)
    }
    if (owner !== developer.ownerId) {
      const error = refusal(
        ErrorType.notProjectOwner,
        'The developer key does not belong to the owner of this project.',
        ['header', KEY_HEADER.developer],
      )
      throw failed('developer', 'not_project_owner', error, developer)
    }
  }

  // The key's IP allowlist and the route's permissions; they cost no failed-verification count.
  function checkAccess(key: KeyRecord, address: string | undefined, rule: PermissionRule | undefined): void {
    const problem = accessProblem(key, address, rule)
    if (problem) {
      throw failed(
        'project',
        problem.type === ErrorType.ipNotAllowed ? 'ip_not_allowed' : 'permission_denied',
        problem,
        key,
      )
    }
  }

  function checkProject(key: KeyRecord, projectId: string): void {
    if (key.ownerId !== projectId) {
      const error = refusal(
        ErrorType.projectMismatch,
        `The API key is not a key of project ${echoValue(projectId)}.`,
        ['header', KEY_HEADER.project],
      )
      throw failed('project', 'project_mismatch', error, key)
    }
  }

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
    const expiresAt = boundedExpiry(rules, ownerType, createdAt, checkExpiry(issueOptions, createdAt), [
      'body',
      issueOptions.expiresInDays === undefined ? 'expires_at' : 'expires_in_days',
    ])
    const policies = newKeyPolicies(rules, ownerType, issueOptions)
    const owner = { type: ownerType, id: ownerId }
    const { key, record } = await mintKey(owner, name, expiresAt, createdAt, policies, credits)
    // Registering a developer: "no active key yet" and the issue are one step of the store.
    const limit = registering ? 1 : ownerType === 'developer' ? developerKeyLimit : undefined
    const registered = {
      action: 'developer.registered',
      targetType: 'developer',
      targetId: ownerId,
      developerId: ownerId,
    } as const
    const given = context ?? options.auditContext ?? SYSTEM
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
      cache?.forgetAll()
      flights.forgetAll()
      throw error
    })
    // The owner is gone even if it had no active key: no cached owner may outlive it here.
    cache?.forgetOwners()
    for (const record of changed) {
      wrote(record.hash)
      emit(deactivatedEvent(record))
    }
    return changed
  }

  // After every check passed: note the use (off the hot path) and tell a listening host.
  function succeeded(record: KeyRecord): void {
    if (counts) counts.count(record, ACCEPTED)
    if (noteUse) usage.used(record)
    if (audit) {
      emit({
        type: 'auth.succeeded',
        keyId: record.id,
        keyPrefix: record.keyPrefix,
        ownerType: record.ownerType,
        ownerId: record.ownerId,
      })
    }
  }

  // The synchronous twin of `verify` and the checks after it, for one key: the answer when the
  // cache knows the key, else `undefined`, and the asynchronous way answers (refusals of the
  // format among them, reported there with their reason). The format check is implied by a hit:
  // the cache is filled only by lookups, which only well-formed keys reach, so a hash it holds is
  // that of a well-formed key (the length and prefix are checked first, so a legacy `dk_` key the
  // cache may hold is answered the asynchronous way, under the legacy policy).
  function keyNow(
    kind: KeyKind,
    value: unknown,
    projectId: string | undefined,
    address?: string,
    permissions?: PermissionRule,
    request?: KeywardRequest,
  ): AuthContext | KeywardError | undefined {
    if (!cache || typeof value !== 'string' || value.length !== KEY_LENGTH || !value.startsWith(KEY_PREFIX)) {
      return undefined
    }
    const digest = sha256Hex(value)
    if (typeof digest !== 'string') return undefined
    const record = cache.peek(digest)
    if (record === undefined) return undefined
    const problem = recordProblem(record, kind, address, request)
    if (problem) return problem
    const key = record as KeyRecord
    if (kind === 'developer') {
      succeeded(key)
      return { scope: 'developer', developerId: key.ownerId, developerKey: ref(key) }
    }
    try {
      if (projectId !== undefined && key.ownerId !== projectId) checkProject(key, projectId)
      checkAccess(key, address, permissions)
    } catch (error) {
      return error as KeywardError
    }
    succeeded(key)
    return projectAuth(key)
  }

  function authenticateNow(
    credentials: Credentials,
    requirement: Requirement,
  ): AuthContext | KeywardError | undefined {
    const scope = requirement?.scope
    if (scope === 'project') {
      return keyNow(
        'project',
        credentials.projectKey,
        requirement.projectId,
        credentials.address,
        requirement.permissions,
        credentials.request,
      )
    }
    if (scope === 'developer' && requirement.projectId === undefined) {
      return keyNow(
        'developer',
        credentials.developerKey,
        undefined,
        undefined,
        undefined,
        credentials.request,
      )
    }
    return undefined
  }

  function authenticate(credentials: Credentials, requirement: Requirement): Promise<unknown> {
    switch (requirement?.scope) {
      case 'project':
        return verify(credentials.projectKey, 'project', credentials).then((key) => {
          checkProjectKey(key, credentials.address, requirement)
          return projectAuth(key)
        })
      case 'developer': {
        const projectId = requirement.projectId
        return verify(credentials.developerKey, 'developer', credentials).then((key) => {
          if (projectId === undefined) {
            succeeded(key)
            return { scope: 'developer', developerId: key.ownerId, developerKey: ref(key) }
          }
          return checkOwner(key, projectId).then(() => {
            succeeded(key)
            return { scope: 'developer', developerId: key.ownerId, projectId, developerKey: ref(key) }
          })
        })
      }
      case 'elevated':
        return authenticateElevated(credentials, requirement.projectId, requirement.permissions)
      default:
        return Promise.reject(
          new TypeError(`authenticate: unknown requirement ${JSON.stringify(requirement)}.`),
        )
    }
  }

  // The checks of a verified API key after its lookup: its project, then its access policies.
  function checkProjectKey(
    key: KeyRecord,
    address: string | undefined,
    check: { readonly projectId?: string; readonly permissions?: PermissionRule | undefined },
  ): void {
    if (check.projectId !== undefined) checkProject(key, check.projectId)
    checkAccess(key, address, check.permissions)
    succeeded(key)
  }

  function verifyApiKey(credentials: Credentials, check: ApiKeyCheck): Promise<KeyRecord> {
    const { developerId } = check
    return verify(credentials.projectKey, 'project', credentials).then((key) => {
      if (developerId === undefined) {
        checkProjectKey(key, credentials.address, check)
        return key
      }
      return projectOwner(key.ownerId).then((owner) => {
        // Another developer's key tells nothing more than an unknown one, whose answer it gets.
        if (owner !== developerId) throw failed('project', 'not_project_owner', INVALID.project, key)
        checkProjectKey(key, credentials.address, check)
        return key
      })
    })
  }

  async function authenticateElevated(
    credentials: Credentials,
    projectId: string,
    permissions: PermissionRule | undefined,
  ) {
    const developer = await verify(credentials.developerKey, 'developer', credentials)
    const project = await verify(credentials.projectKey, 'project', credentials)
    checkProject(project, projectId)
    checkAccess(project, credentials.address, permissions)
    await checkOwner(developer, projectId)
    succeeded(developer)
    succeeded(project)
    return {
      ...projectAuth(project),
      scope: 'elevated',
      developerId: developer.ownerId,
      developerKey: ref(developer),
    }
  }

  const writes: Writes = { store, storeCall, now, emit, wrote, rules, auditRows, developersOf }

  const spender = createCreditSpender(store, checkCreditOptions(options.credits), clock, storeUnavailable)

  return {
    store,
    developerKeyLimit,
    legacyDeveloperKeys: legacy,
    hasProjectOwner: ownerLookup !== undefined,
    protection: options.protection
      ? createProtection(options.protection, emit, (key) => counts?.move(key, ACCEPTED, RATE_LIMITED))
      : undefined,
    rotationPeriodDays,
    close: async () => {
      const [stranded] = await Promise.all([spender.close(), usage.flush(), counts?.close()])
      for (const { keyId, keyPrefix, credits } of stranded)
        emit({ type: 'credits.stranded', keyId, keyPrefix, credits })
    },
    keyUsable: (record, kind): record is KeyRecord => stateProblem(record, kind) === null,
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
      const query = pageOptions.after ? { limit, after: pageOptions.after } : { limit }
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
    rollKey: rollWith(writes),
    setKeyExpiry: expirySetter(writes),
    isRotationDue: (record) =>
      countsAgainstLimit(record, now()) && record.createdAt.getTime() <= clock() - rotationPeriodMs,
    revokeLeakedKeys: leakedKeyRevoker(writes),
    ...auditMethods({ store, rows: auditRows, storeCall }),
    ...policyMethods(writes, trustedProxy),
    ...creditMethods({ ...writes, spender, counts, listening }),
    ...usageMethods({ store, storeCall, usage, counts, retention: usageOptions?.retention ?? null }),
    projectOwner,
    authenticate: authenticate as Keyward['authenticate'],
    authenticateNow,
    keyNow,
    verifyApiKey,
    cacheStats: () => cache?.stats() ?? null,
    report: emit,
  }
}
