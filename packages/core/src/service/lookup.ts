import { type KeywardError, refusal } from '../errors/error.js'
import { ErrorType } from '../errors/types.js'
import { sha256Hex } from '../hash/digest.js'
import type { KeyHashing } from '../hash/pepper.js'
import type { KeywardRequest } from '../http/types.js'
import type { IdentityRecord } from '../identities/model.js'
import { KEY_LENGTH, KEY_PATTERN } from '../key/constants.js'
import {
  KEY_HEADER,
  type KeyKind,
  KIND_WORDS,
  keyFormatProblem,
  type LegacyDeveloperKeyPolicy,
} from '../key/format.js'
import type { RoleRecord } from '../roles/model.js'
import type { KeyRecord, KeyStore } from '../store/types.js'
import { VerificationCache, type VerificationCacheOptions, type VerificationCacheStats } from './cache.js'
import type { AuthFailureReason, KeywardEvent } from './events.js'
import { LookupFlights } from './flight.js'
import type { KeywardOptions } from './options.js'
import { type Failed, INVALID, refused } from './refusals.js'
import type { Credentials } from './requirements.js'
import type { StoreCalls } from './store-call.js'
import type { LookupObserver } from './verification-spans.js'

const OTHER_KIND: Readonly<Record<KeyKind, KeyKind>> = { developer: 'project', project: 'developer' }

/** @internal What a record's own state can refuse it for (see `stateProblem`). */
export type KeyStateProblem = Extract<
  AuthFailureReason,
  'unknown_key' | 'inactive_key' | 'wrong_type' | 'expired_key'
>

/** @internal What the lookup of keys needs of the service. */
export interface LookupDependencies extends StoreCalls {
  readonly store: KeyStore
  readonly emit: (event: KeywardEvent) => void
  /** The service's clock, in milliseconds: a key expires by it. */
  readonly clock: () => number
  readonly legacy: LegacyDeveloperKeyPolicy
  /** The verification cache's options (`cache` of `createKeyward`); none without a change feed. */
  readonly cache: VerificationCacheOptions | false | undefined
  readonly failed: Failed
  /** The host's `projectOwner`. */
  readonly ownerLookup: KeywardOptions['projectOwner']
  /** Told what each lookup found, for its verification's span; absent without `telemetry`. */
  readonly observe?: LookupObserver | undefined
  /** How keys are hashed (option `hashing`): with peppers, a key is looked up under each of its hashes. */
  readonly hashing: KeyHashing
  /** Whether a value has a foreign format the service accepts (option `foreignKeys`); absent without. */
  readonly foreign?: ((value: string) => boolean) | undefined
}

/**
 * @internal The service's lookups: of a presented key, from its format to its checked record, and
 * of a project's owner, both through the verification cache (when there is one), the key's
 * through single flight too; and what the service's writes tell them.
 */
export interface Lookup {
  /** The verification cache; `undefined` without one. */
  readonly cache: VerificationCache | undefined
  /** The record of a presented key that passed the checks of its format and state, else its refusal. */
  verify(value: string | null | undefined, kind: KeyKind, origin?: Credentials): Promise<KeyRecord>
  stateProblem(record: KeyRecord | null, kind: KeyKind): KeyStateProblem | null
  recordProblem(
    record: KeyRecord | null,
    kind: KeyKind,
    address?: string,
    request?: KeywardRequest,
  ): KeywardError | null
  projectOwner(projectId: string): Promise<string | null>
  /** A key was written (or may have been): see `Writes.wrote`. */
  wrote(hash: string): void
  /** Keys were written, which ones unknown (a call that failed may still commit): forget them all. */
  forgetAll(): void
  /** An owner was closed: forget every project's owner. */
  forgetOwners(): void
  cacheStats(): VerificationCacheStats | null
}

/**
 * A record with its identity joined: copied field by field, not spread, as `withCredits` copies
 * one (a spread of records of several shapes gave each record a hidden class of its own, and the
 * cache's records of identities' keys made every read of the verification megamorphic).
 */
function joined(record: KeyRecord, found: IdentityRecord | null): KeyRecord {
  const copy: Record<string, unknown> = {}
  for (const field in record) copy[field] = record[field as keyof KeyRecord]
  copy.identity = found && { id: found.id, externalId: found.externalId, metadata: found.metadata }
  copy.identityRemaining = found?.remaining ?? null
  // Its limits, shared by all its keys: the guards count them under the identity's id. Always
  // set, `undefined` for none, so that every joined record has one shape.
  copy.identityRatelimits = found?.ratelimits.length ? found.ratelimits : undefined
  // Its roles, whose permissions every key of it has (read with the key's own, in `withRoles`).
  copy.identityRoleIds = found?.roleIds?.length ? found.roleIds : undefined
  return copy as unknown as KeyRecord
}

/**
 * @internal A record with its roles joined, copied field by field as {@link joined} copies one:
 * the names of its own roles, and the union of the permissions of `found`, its own roles and its
 * identity's. Roles deleted since are left out.
 */
export function joinedRoles(record: KeyRecord, found: readonly RoleRecord[]): KeyRecord {
  const copy: Record<string, unknown> = {}
  for (const field in record) copy[field] = record[field as keyof KeyRecord]
  const own = record.roleIds ?? []
  copy.roles = found.flatMap((role) => (own.includes(role.id) ? [role.name] : []))
  copy.rolePermissions = [...new Set(found.flatMap((role) => role.permissions))]
  return copy as unknown as KeyRecord
}

/** @internal The lookups of a service. */
export function createLookup(deps: LookupDependencies): Lookup {
  const {
    store,
    clock,
    legacy,
    storeCall,
    storeUnavailable,
    failed,
    ownerLookup,
    observe,
    hashing,
    foreign,
  } = deps
  const peppered = hashing.peppered
  const cache =
    deps.cache && store.changes
      ? new VerificationCache(deps.cache, store.changes, deps.emit, peppered)
      : undefined

  // Every write through the service ends here before it returns, whether it succeeded or not
  // (a write that timed out may still commit): the cache forgets the key, and no request from
  // now on joins a lookup of it sent before. Lookups are keyed by the key's plain SHA-256; with
  // peppers a write names the stored hash, so no request joins any lookup sent before it.
  const forgetFlight = peppered ? () => flights.forgetAll() : (hash: string) => flights.forget(hash)
  const wrote = (hash: string) => {
    cache?.forget(hash)
    forgetFlight(hash)
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
      if (event.type === 'changed') forgetFlight(event.hash)
      else flights.forgetAll()
    })
  }

  // The hot path. It is written with one `.then` per step instead of async functions: each
  // async frame costs more than the rest of the verification together (see bench/).
  function verify(value: string | null | undefined, kind: KeyKind, origin?: Credentials): Promise<KeyRecord> {
    if (typeof value !== 'string' || value.length !== KEY_LENGTH || !KEY_PATTERN.test(value)) {
      // A key of a foreign format the service accepts is looked up as a native one is.
      const problem =
        foreign !== undefined && typeof value === 'string' && foreign(value)
          ? null
          : keyFormatProblem(value, kind, legacy)
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
      if (cached !== undefined) {
        observe?.(origin, kind, cached, -1)
        return settle(cached, kind, origin)
      }
    }
    return (observe ? observed(observe, hash, kind, origin) : flights.lookup(hash)).then(
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

  // A store lookup told to the verification's span: what it found and how long the store took.
  function observed(
    tell: LookupObserver,
    hash: string,
    kind: KeyKind,
    origin: Credentials | undefined,
  ): Promise<KeyRecord | null> {
    const started = performance.now()
    return flights.lookup(hash).then(
      (record) => {
        tell(origin, kind, record, performance.now() - started)
        return record
      },
      (error: unknown) => {
        tell(origin, kind, undefined, performance.now() - started)
        throw error
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
      const found = peppered ? findPeppered(hash) : store.findKeyByHash(hash)
      // One step after the lookup, which reads more only for a key that needs it.
      return identities === undefined && roles === undefined ? found : found.then(completed)
    } catch (error) {
      return Promise.reject(error)
    }
  }

  // With peppers: one store call for every hash the key may be stored under. A record counts
  // only under the hash of the pepper it names (a plain hash names none).
  function findPeppered(plain: string): Promise<KeyRecord | null> {
    const candidates = hashing.candidates(plain)
    return Array.isArray(candidates) ? findAmong(candidates) : candidates.then(findAmong)
  }
  function findAmong(candidates: string[]): Promise<KeyRecord | null> {
    return store.findKeysByHashes(candidates).then((found) => {
      for (const record of found) {
        const at = candidates.indexOf(record.hash)
        if (at !== -1 && hashing.pepperIds[at] === (record.pepperId ?? null)) return record
      }
      return null
    })
  }

  // A key of an identity answers what it is, and spends from its pool: read after the key unless
  // the store joined both. Then its roles, and its identity's, give it their permissions: both
  // lists in one store call, unless the store joined them. A key that needs neither is answered
  // as it was read, without a promise of its own (most keys: see bench/).
  const identities = store.identities
  const roles = store.roles
  function completed(record: KeyRecord | null): KeyRecord | null | Promise<KeyRecord | null> {
    if (record === null) return null
    if (
      identities === undefined ||
      !record.identityId ||
      (record.identity !== undefined && record.identityRemaining !== undefined)
    ) {
      return withRoles(record)
    }
    return identities.findIdentity(record.identityId).then((identity) => withRoles(joined(record, identity)))
  }
  function withRoles(record: KeyRecord): KeyRecord | Promise<KeyRecord> {
    if (roles === undefined || record.rolePermissions !== undefined) return record
    const own = record.roleIds ?? []
    const theirs = record.identityRoleIds ?? []
    if (own.length === 0 && theirs.length === 0) return record
    const ids = theirs.length === 0 ? own : own.length === 0 ? theirs : [...new Set([...own, ...theirs])]
    return roles.findRoles(ids).then((found) => joinedRoles(record, found))
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

  return {
    cache,
    verify,
    stateProblem,
    recordProblem,
    projectOwner,
    wrote,
    forgetAll: () => {
      cache?.forgetAll()
      flights.forgetAll()
    },
    forgetOwners: () => cache?.forgetOwners(),
    cacheStats: () => cache?.stats() ?? null,
  }
}
