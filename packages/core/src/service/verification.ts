import { echoValue } from '../errors/echo.js'
import { type KeywardError, refusal } from '../errors/error.js'
import { ErrorType } from '../errors/types.js'
import { sha256Hex } from '../hash/digest.js'
import type { KeywardRequest } from '../http/types.js'
import { KEY_LENGTH, KEY_PREFIX } from '../key/constants.js'
import { KEY_HEADER, type KeyKind, type LegacyDeveloperKeyPolicy } from '../key/format.js'
import { accessProblem, grantedPermissions, type PermissionRequirement } from '../policy/policies.js'
import type { ProtectionOptions } from '../protection/options.js'
import { createProtection, type Protection } from '../protection/protection.js'
import type { KeyRecord } from '../store/types.js'
import type { VerificationCacheStats } from './cache.js'
import { projectKeyRef } from './credits.js'
import type { KeywardEvent } from './events.js'
import type { Lookup } from './lookup.js'
import { type Failed, INVALID } from './refusals.js'
import type { AuthContext, AuthContextFor, Credentials, KeyRef, Requirement } from './requirements.js'
import type { Usage } from './usage.js'
import { OUTCOME, type UsageCounts } from './usage-counts.js'
import type { VerificationSpans } from './verification-spans.js'

/** @internal The verification's part of the key service's interface (`Keyward`): who is calling. */
export interface KeywardVerification {
  readonly legacyDeveloperKeys: LegacyDeveloperKeyPolicy
  /** Whether the service was given `projectOwner`, which requirements that name an owner need. */
  readonly hasProjectOwner: boolean
  /** The guards' abuse protection, from the `protection` option; `undefined` when off. */
  readonly protection: Protection | undefined
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
    permissions?: PermissionRequirement,
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
}

/** @internal What {@link Keyward.verifyApiKey} checks of an API key besides the guard's format, lookup and state. */
export interface ApiKeyCheck {
  /** The key must be one of this project's. */
  readonly projectId?: string
  /** The key must carry these permissions. */
  readonly permissions?: PermissionRequirement
  /** The key's project must be owned by this developer, else the key is answered as unknown. */
  readonly developerId?: string
}

const ref = (record: KeyRecord): KeyRef => ({ id: record.id, keyPrefix: record.keyPrefix })

// What an API key hands its guard besides its ref: its permissions and metadata.
const projectAuth = (key: KeyRecord) => ({
  scope: 'project' as const,
  projectId: key.ownerId,
  projectKey: projectKeyRef(key),
  permissions: grantedPermissions(key),
  metadata: key.metadata ?? null,
  identity: key.identity ?? null,
})

const ACCEPTED = OUTCOME.accepted
const RATE_LIMITED = OUTCOME.rate_limited

/** @internal What the verification of requests needs of the service. */
export interface VerificationDependencies {
  readonly lookup: Lookup
  readonly failed: Failed
  readonly emit: (event: KeywardEvent) => void
  readonly legacy: LegacyDeveloperKeyPolicy
  readonly hasProjectOwner: boolean
  /** The guards' abuse protection (option `protection`); off when absent. */
  readonly protection: ProtectionOptions | undefined
  /** The service's usage counts; absent without them. */
  readonly counts: UsageCounts | undefined
  /** The service's last-used tracker, told of each success when `noteUse`. */
  readonly usage: Usage
  /** Whether the service records or reports uses of keys. */
  readonly noteUse: boolean
  /** Whether each success is reported as `auth.succeeded` (option `auditSuccesses`, with a hook). */
  readonly reportSuccesses: boolean
  /** The spans of verifications (option `telemetry`); absent without. */
  readonly spans?: VerificationSpans | undefined
}

/**
 * @internal The service's verification methods: the checks of presented keys against an
 * operation's requirement, in the specification's order, after their lookup.
 */
export function verificationMethods(deps: VerificationDependencies): KeywardVerification {
  const { lookup, failed, emit, counts, usage, noteUse, reportSuccesses } = deps
  const { cache, verify, recordProblem, projectOwner } = lookup
  // With `telemetry`, each verification opens a span; without, the methods are the plain ones.
  const spans = deps.spans

  // After every check passed: note the use (off the hot path) and tell a listening host.
  function succeeded(record: KeyRecord): void {
    if (counts) counts.count(record, ACCEPTED)
    if (noteUse) usage.used(record)
    if (reportSuccesses) {
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
  const keyNow: KeywardVerification['keyNow'] = (kind, value, projectId, address, permissions, request) => {
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
  const answerNow = spans ? spans.keyNow(keyNow) : keyNow

  function authenticateNow(
    credentials: Credentials,
    requirement: Requirement,
  ): AuthContext | KeywardError | undefined {
    const scope = requirement?.scope
    if (scope === 'project') {
      return answerNow(
        'project',
        credentials.projectKey,
        requirement.projectId,
        credentials.address,
        requirement.permissions,
        credentials.request,
      )
    }
    if (scope === 'developer' && requirement.projectId === undefined) {
      return answerNow(
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
    check: { readonly projectId?: string; readonly permissions?: PermissionRequirement | undefined },
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
    permissions: PermissionRequirement | undefined,
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
  function checkAccess(
    key: KeyRecord,
    address: string | undefined,
    rule: PermissionRequirement | undefined,
  ): void {
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

  return {
    legacyDeveloperKeys: deps.legacy,
    hasProjectOwner: deps.hasProjectOwner,
    protection: deps.protection
      ? createProtection(deps.protection, emit, (key) => counts?.move(key, ACCEPTED, RATE_LIMITED))
      : undefined,
    keyUsable: (record, kind): record is KeyRecord => lookup.stateProblem(record, kind) === null,
    projectOwner,
    authenticate: (spans
      ? spans.authenticate(authenticate)
      : authenticate) as KeywardVerification['authenticate'],
    authenticateNow,
    keyNow: answerNow,
    verifyApiKey: spans ? spans.verifyApiKey(verifyApiKey) : verifyApiKey,
    cacheStats: lookup.cacheStats,
  }
}
