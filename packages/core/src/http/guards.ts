import { checkCost } from '../credits/checks.js'
import { isKeywardError } from '../errors/error.js'
import { checkOptionNames, optionNames } from '../errors/extra-fields.js'
import { KEY_HEADER, type KeyKind } from '../key/format.js'
import type { PermissionCheck, PermissionRule } from '../policy/permission-check.js'
import { checkPermissionRule, type KeyMetadata } from '../policy/policies.js'
import type { PermissionQuery } from '../policy/query.js'
import type { RatedKey } from '../protection/options.js'
import { checkRateLimitCosts, type RateLimitCosts } from '../protection/stored-limits.js'
import type { Keyward } from '../service/keyward.js'
import type {
  AuthContext,
  DeveloperAuth,
  ElevatedAuth,
  KeyRef,
  ProjectAuth,
  Requirement,
} from '../service/requirements.js'
import { explainMissingKey, invalidToken, readBearerToken, readKey } from './credentials.js'
import { errorResponse } from './response.js'
import type { BearerAuth, Guard, GuardResult, KeywardRequest } from './types.js'

/** What a guard attaches to a request: a key context, or a bearer context. Switch on `scope`. */
export type KeywardContext = AuthContext | BearerAuth

/** Options of {@link developerGuard}. */
export interface DeveloperGuardOptions {
  /**
   * A path parameter naming a project, e.g. `'project_id'`: the developer must own that
   * project (404 `not_found` when there is none, 403 `not_project_owner` when it is another's).
   * Needs the service's `projectOwner` option.
   */
  readonly projectParam?: string
}

/** Options of {@link projectGuard} and {@link elevatedGuard}. */
export interface ProjectGuardOptions {
  /** The path parameter that holds the request's project id. Default `'project_id'`. */
  readonly projectParam?: string
  /**
   * The permissions the route requires of the API key: a query (`'reports:read and
   * (billing:read or admin)'`, or `{ and: [...] }` / `{ or: [...] }` nested), or every one of
   * `allOf`, or one of `anyOf`, among the permissions the service declares. Checked and compiled
   * when the guard is built (a `TypeError` that gives the position of a problem). A key without
   * them gets 403 `permission_denied`, whose message names what it lacks.
   */
  readonly permissions?: PermissionRule | PermissionQuery
  /**
   * The credits a request costs an API key that has a credit limit: an integer from 0 to 1000,
   * default 1. Spent after every other check passed (a request refused for another reason costs
   * nothing); a key that cannot pay gets 429 `usage_exceeded`. Accepted requests of a metered
   * key carry `X-Credits-Remaining`.
   */
  readonly cost?: number
  /**
   * What a request costs the stored rate limits of the API key and of its identity, by limit
   * name, e.g. `{ generations: 10, exports: 0 }`: an integer from 0 (this route does not count
   * against that limit) to 1000. A limit not named costs 1. Taken after the key's other checks
   * and before its credits: a request a limit refuses (429 `rate_limited`) spends no credits.
   */
  readonly rateLimitCosts?: RateLimitCosts
}

/** Options of {@link apiKeyGuard}. */
export interface ApiKeyGuardOptions {
  /**
   * Accept only API keys of this project, e.g. one taken from your configuration. Default: an
   * active API key of any project (the context's `projectId` says whose).
   */
  readonly project?: string
  /** The permissions the route requires of the API key, as {@link ProjectGuardOptions.permissions}. */
  readonly permissions?: PermissionRule | PermissionQuery
  /** The credits a request costs, as {@link ProjectGuardOptions.cost}. Default 1. */
  readonly cost?: number
  /** What a request costs each stored rate limit, as {@link ProjectGuardOptions.rateLimitCosts}. */
  readonly rateLimitCosts?: RateLimitCosts
}

/** Options of {@link bearerGuard}. */
export interface BearerGuardOptions<T> {
  /**
   * Verifies a bearer token and returns what it grants (its claims), or `null` when it is not
   * valid. A thrown {@link KeywardError} is answered as it is (throw `store_unavailable` when
   * your verifier's storage is down); any other exception counts as an invalid token.
   */
  readonly verify: (
    token: string,
    request: KeywardRequest,
  ) => T | null | undefined | Promise<T | null | undefined>
  /**
   * The Keyward service whose `protection` applies to this guard too: a refused token counts as
   * a failed verification of the client's address, and a throttled address is refused first.
   */
  readonly keyward?: Keyward
}

// Every option of each guard: any other is refused when the guard is built, as a typo of a policy
// (`permisions`) would otherwise leave the route open to every key.
const DEVELOPER_OPTIONS = optionNames<DeveloperGuardOptions>({ projectParam: true })
const PROJECT_OPTIONS = optionNames<ProjectGuardOptions>({
  projectParam: true,
  permissions: true,
  cost: true,
  rateLimitCosts: true,
})
const API_KEY_OPTIONS = optionNames<ApiKeyGuardOptions>({
  project: true,
  permissions: true,
  cost: true,
  rateLimitCosts: true,
})

function checkKeyward(keyward: Keyward, guard: string): void {
  if (typeof keyward?.authenticate !== 'function') {
    throw new TypeError(`${guard}: the first argument must be a Keyward service (createKeyward).`)
  }
}

/** @internal Refuses, at construction, a guard or route that needs project owners from a service without them. */
export function checkProjectOwner(keyward: Keyward, who: string): void {
  if (!keyward.hasProjectOwner) {
    throw new TypeError(
      `${who} needs to know who owns a project: give createKeyward the option \`projectOwner\`, ` +
        'e.g. projectOwner: async (projectId) => (await db.projects.find(projectId))?.developerId ?? null.',
    )
  }
}

function checkParam(value: string | undefined, guard: string): void {
  if (value !== undefined && (typeof value !== 'string' || value === '')) {
    throw new TypeError(`${guard}: option \`projectParam\` must be a non-empty string.`)
  }
}

/**
 * A guard on a route without the path parameter it reads: a mistake in the host's routes, not a
 * refusal of the client. It reaches the framework's error handler and the `onEvent` hook.
 */
class MissingRouteParam extends TypeError {
  override name = 'MissingRouteParam'
  constructor(
    readonly guard: string,
    readonly route: string,
    readonly param: string,
  ) {
    super(
      `${guard} needs the path parameter \`${param}\`, and the route ${route} has none: ` +
        `put it on a route such as /projects/:${param}/..., give the guard the parameter's name ` +
        '(`projectParam`), or use requireKey for a route without a project.',
    )
  }
}

/** The method and path of a request (its `url` is a path, or an absolute URL on Web runtimes). */
function routeOf(request: KeywardRequest): string {
  const url = request.url
  const origin = url.indexOf('://')
  const start = url.startsWith('/') || origin === -1 ? 0 : Math.max(url.indexOf('/', origin + 3), 0)
  const query = url.indexOf('?', start)
  return `${request.method} ${url.slice(start, query === -1 ? url.length : query) || '/'}`
}

function projectIdOf(request: KeywardRequest, param: string, guard: string): string {
  const projectId = request.param ? request.param(param) : request.params[param]
  if (typeof projectId !== 'string' || projectId === '') {
    throw new MissingRouteParam(guard, routeOf(request), param)
  }
  return projectId
}

const readsParam = <A>(guard: Guard<A>, param: string): Guard<A> =>
  Object.assign(guard, { routeParam: param })

/** Reports a misplaced guard to the host's hook, once per guard and route. */
function misplacedReporter(keyward: Keyward): (error: MissingRouteParam) => void {
  const reported = new Set<string>()
  return (error) => {
    if (reported.has(error.route) || reported.size >= 100) return
    reported.add(error.route)
    keyward.report?.({
      type: 'guard.misconfigured',
      guard: error.guard,
      route: error.route,
      param: error.param,
      error,
    })
  }
}

/** The verified keys of a context, for their rate limits (objects of one shape: a hot path). */
function keysOf(auth: AuthContext): RatedKey[] {
  const keys: RatedKey[] = []
  if (auth.scope !== 'project') {
    const { id, keyPrefix } = auth.developerKey
    keys.push({ id, keyPrefix, ownerType: 'developer', ownerId: auth.developerId })
  }
  if (auth.scope !== 'developer') {
    const { id, keyPrefix } = auth.projectKey
    keys.push({ id, keyPrefix, ownerType: 'project', ownerId: auth.projectId })
  }
  return keys
}

/**
 * The one key of a requirement that can be answered at once from the verification cache: a
 * project key (of the project named by `param`, or `fixedProject`, or any), or a developer key.
 */
interface SingleKey {
  readonly kind: KeyKind
  /** The path parameter naming the project, or none. */
  readonly param?: string
  /** The project of a project key when no parameter names it; any project when absent. */
  readonly fixedProject?: string
  readonly guardName: string
  readonly permissions?: PermissionCheck
}

/** The API key of a context, whose stored rate limits and credits a request takes from. */
const meteredKey = (auth: AuthContext): KeyRef | undefined =>
  auth.scope === 'developer' ? undefined : auth.projectKey

/** What a request through a guard costs its API key: credits, and from its stored rate limits. */
interface Price {
  readonly cost: number
  readonly rateLimitCosts?: RateLimitCosts | undefined
}
const FREE: Price = { cost: 0 }

function keyGuard<A>(
  keyward: Keyward,
  needs: { developer: boolean; project: boolean },
  requirementOf: (request: KeywardRequest) => Requirement,
  single?: SingleKey,
  { cost, rateLimitCosts }: Price = FREE,
): Guard<A> {
  const refuse = (error: unknown, request: KeywardRequest): GuardResult<A> => ({
    ok: false,
    response: errorResponse(explainMissingKey(error, request)),
  })
  // The credits are the last check: a request refused for any other reason costs nothing.
  const charge = (
    auth: A,
    key: KeyRef | undefined,
    request: KeywardRequest,
  ): GuardResult<A> | Promise<GuardResult<A>> => {
    const spending = key && cost !== 0 && keyward.spendCredits(key, cost)
    if (!spending) return { ok: true, auth }
    return spending.then(
      (outcome): GuardResult<A> =>
        isKeywardError(outcome) ? refuse(outcome, request) : { ok: true, auth, headers: outcome },
      (error: unknown) => refuse(error, request),
    )
  }
  // The key's stored rate limits and its identity's, after every other check of the key and
  // before its credits: a request a limit refuses spends none.
  const admit = (auth: A, request: KeywardRequest): GuardResult<A> | Promise<GuardResult<A>> => {
    const key = meteredKey(auth as AuthContext)
    const limited = key && keyward.takeRateLimits(key, rateLimitCosts)
    if (limited === undefined) return charge(auth, key, request)
    if (!(limited instanceof Promise)) return refuse(limited, request)
    return limited.then(
      (refusal) => (refusal ? refuse(refusal, request) : charge(auth, key, request)),
      (error: unknown) => refuse(error, request),
    )
  }
  const { protection } = keyward
  const misplaced = misplacedReporter(keyward)
  // The client's address is read for API keys only: their IP allowlists are checked against it.
  const credentialsOf = (request: KeywardRequest) => ({
    developerKey: needs.developer ? readKey(request, 'developer') : undefined,
    projectKey: needs.project ? readKey(request, 'project') : undefined,
    address: needs.project ? keyward.clientAddress(request) : undefined,
    request,
  })
  // Written with `then` rather than `async`: this is the hot path, and one promise fewer shows.
  const guard: Guard<A> = (request) => {
    let authenticated: Promise<unknown>
    try {
      const requirement = requirementOf(request)
      const credentials = credentialsOf(request)
      authenticated = protection
        ? protection.run({
            request,
            presented: {
              [KEY_HEADER.developer]: credentials.developerKey,
              [KEY_HEADER.project]: credentials.projectKey,
            },
            verify: () => keyward.authenticate(credentials, requirement),
            keys: keysOf,
          })
        : keyward.authenticate(credentials, requirement)
    } catch (error) {
      // A misplaced guard is the host's mistake: it goes to the framework's error handler.
      if (error instanceof MissingRouteParam) {
        misplaced(error)
        return Promise.reject(error)
      }
      return Promise.resolve(refuse(error, request))
    }
    return authenticated.then(
      (auth) => admit(auth as A, request),
      (error: unknown) => refuse(error, request),
    )
  }
  // With the throttle, every verification waits for its counters: only the refusal of an address
  // this process already knows to be throttled is known at once.
  if (protection) {
    const throttledNow = (request: KeywardRequest): GuardResult<A> | undefined => {
      const refusal = protection.refusalNow(request)
      return refusal ? refuse(refusal, request) : undefined
    }
    return Object.assign(guard, { now: throttledNow })
  }
  if (single === undefined || typeof keyward.keyNow !== 'function') return guard
  // The cache's answer, read straight from the header: a value that is not one well-formed key
  // (several values, a list, a wrong length) is not known at once, and the asynchronous way
  // answers it with its reason.
  const { kind, param, fixedProject, guardName, permissions } = single
  const header = KEY_HEADER[kind]
  const now = (request: KeywardRequest): GuardResult<A> | undefined => {
    let known: ReturnType<Keyward['keyNow']>
    try {
      known = keyward.keyNow(
        kind,
        request.header(header),
        param === undefined ? fixedProject : projectIdOf(request, param, guardName),
        kind === 'project' ? keyward.clientAddress(request) : undefined,
        permissions,
        request,
      )
    } catch {
      return undefined // the asynchronous way answers it, with its reason
    }
    if (known === undefined) return undefined
    if (isKeywardError(known)) return refuse(known, request)
    const key = meteredKey(known)
    if (key === undefined) return { ok: true, auth: known as A }
    // Credits that need a lease go the asynchronous way before the rate limits are taken here:
    // that way takes them, and would take them twice.
    if (cost !== 0 && !keyward.creditsKnownNow(key, cost)) return undefined
    // Stored rate limits counted in memory are taken at once (without protection they are).
    const limited = keyward.takeRateLimits(key, rateLimitCosts, true)
    if (limited === null) return undefined
    if (limited !== undefined) return refuse(limited, request)
    if (cost === 0) return { ok: true, auth: known as A }
    // Credits in this process's block are spent at once; a lease goes the asynchronous way.
    const outcome = keyward.spendCredits(key, cost, true)
    if (outcome === null) return undefined
    if (outcome === undefined) return { ok: true, auth: known as A }
    return isKeywardError(outcome)
      ? refuse(outcome, request)
      : { ok: true, auth: known as A, headers: outcome }
  }
  return Object.assign(guard, { now })
}

/**
 * Requires a developer key (`X-Developer-Key`); with `projectParam`, of the owner of that project.
 *
 * @example
 * ```ts
 * const guard = developerGuard(keyward)
 * const result = await guard(request)
 * if (result.ok) result.auth.developerId
 * ```
 */
export function developerGuard(keyward: Keyward, options: DeveloperGuardOptions = {}): Guard<DeveloperAuth> {
  checkKeyward(keyward, 'developerGuard')
  checkOptionNames('developerGuard', options, DEVELOPER_OPTIONS)
  const param = options.projectParam
  checkParam(param, 'developerGuard')
  if (param !== undefined) checkProjectOwner(keyward, 'developerGuard with `projectParam`')
  const developerOnly: Requirement = { scope: 'developer' }
  const guard = keyGuard<DeveloperAuth>(
    keyward,
    { developer: true, project: false },
    (request) =>
      param === undefined
        ? developerOnly
        : { scope: 'developer', projectId: projectIdOf(request, param, 'requireDeveloper') },
    param === undefined ? { kind: 'developer', guardName: 'requireDeveloper' } : undefined,
  )
  return param === undefined ? guard : readsParam(guard, param)
}

/**
 * Requires an API key (`X-API-Key`) of the request's project (the `project_id` path parameter).
 *
 * @example
 * ```ts
 * const guard = projectGuard(keyward)
 * const result = await guard(request) // request.params.project_id names the project
 * if (result.ok) result.auth.projectId
 * ```
 */
export function projectGuard<M extends KeyMetadata = KeyMetadata>(
  keyward: Keyward,
  options: ProjectGuardOptions = {},
): Guard<ProjectAuth<M>> {
  checkKeyward(keyward, 'projectGuard')
  checkOptionNames('projectGuard', options, PROJECT_OPTIONS)
  checkParam(options.projectParam, 'projectGuard')
  const param = options.projectParam ?? 'project_id'
  const permissions = permissionsOf(keyward, options, 'projectGuard')
  const guard = keyGuard<ProjectAuth<M>>(
    keyward,
    { developer: false, project: true },
    (request) => ({
      scope: 'project',
      projectId: projectIdOf(request, param, 'requireProject'),
      permissions,
    }),
    { kind: 'project', param, guardName: 'requireProject', ...(permissions ? { permissions } : {}) },
    priceOf(options, 'projectGuard'),
  )
  return readsParam(guard, param)
}

/**
 * Requires an active API key (`X-API-Key`) for a route without a project in its path: of any
 * project, or with `project` of that one. The context's `projectId` says whose key it is.
 *
 * @example
 * ```ts
 * const guard = apiKeyGuard(keyward)
 * const result = await guard(request) // any route: no path parameter is read
 * if (result.ok) result.auth.projectId // the project the key belongs to
 * ```
 */
export function apiKeyGuard<M extends KeyMetadata = KeyMetadata>(
  keyward: Keyward,
  options: ApiKeyGuardOptions = {},
): Guard<ProjectAuth<M>> {
  checkKeyward(keyward, 'apiKeyGuard')
  checkOptionNames('apiKeyGuard', options, API_KEY_OPTIONS)
  const project = options.project
  if (project !== undefined && (typeof project !== 'string' || project === '')) {
    throw new TypeError('apiKeyGuard: option `project` must be a non-empty string (a project id).')
  }
  const permissions = permissionsOf(keyward, options, 'apiKeyGuard')
  const requirement: Requirement = {
    scope: 'project',
    ...(project === undefined ? {} : { projectId: project }),
    ...(permissions ? { permissions } : {}),
  }
  return keyGuard(
    keyward,
    { developer: false, project: true },
    () => requirement,
    {
      kind: 'project',
      guardName: 'requireKey',
      fixedProject: project,
      ...(permissions ? { permissions } : {}),
    },
    priceOf(options, 'apiKeyGuard'),
  )
}

function priceOf(options: ApiKeyGuardOptions, who: string): Price {
  return {
    cost: checkCost(options.cost, who),
    rateLimitCosts: checkRateLimitCosts(options.rateLimitCosts, who),
  }
}

function permissionsOf(
  keyward: Keyward,
  options: { readonly permissions?: PermissionRule | PermissionQuery },
  who: string,
): PermissionCheck | undefined {
  return options.permissions === undefined
    ? undefined
    : checkPermissionRule(options.permissions, keyward.permissions ?? new Set(), who)
}

/**
 * Requires both keys for an elevated operation: a developer key of the project's owner and an
 * API key of the request's project.
 *
 * @example
 * ```ts
 * const guard = elevatedGuard(keyward)
 * const result = await guard(request)
 * if (result.ok) result.auth.developerId // owner of result.auth.projectId
 * ```
 */
export function elevatedGuard<M extends KeyMetadata = KeyMetadata>(
  keyward: Keyward,
  options: ProjectGuardOptions = {},
): Guard<ElevatedAuth<M>> {
  checkKeyward(keyward, 'elevatedGuard')
  checkOptionNames('elevatedGuard', options, PROJECT_OPTIONS)
  checkParam(options.projectParam, 'elevatedGuard')
  checkProjectOwner(keyward, 'elevatedGuard')
  const param = options.projectParam ?? 'project_id'
  const permissions = permissionsOf(keyward, options, 'elevatedGuard')
  const guard = keyGuard<ElevatedAuth<M>>(
    keyward,
    { developer: true, project: true },
    (request) => ({
      scope: 'elevated',
      projectId: projectIdOf(request, param, 'requireElevated'),
      permissions,
    }),
    undefined,
    priceOf(options, 'elevatedGuard'),
  )
  return readsParam(guard, param)
}

/**
 * Requires `Authorization: Bearer <token>` (RFC 6750), verified by the host's `verify`.
 * Failures answer 401 `token_missing` or `token_invalid` with `WWW-Authenticate: Bearer`.
 *
 * @example
 * ```ts
 * const guard = bearerGuard({ verify: async (token) => (await jwtVerify(token, secret)).payload })
 * const result = await guard(request)
 * if (result.ok) result.auth.claims
 * ```
 */
export function bearerGuard<T>(options: BearerGuardOptions<T>): Guard<BearerAuth<T>> {
  if (typeof options?.verify !== 'function') {
    throw new TypeError('bearerGuard: option `verify` must be a function.')
  }
  if (options.keyward !== undefined && typeof options.keyward?.authenticate !== 'function') {
    throw new TypeError('bearerGuard: option `keyward` must be a Keyward service (createKeyward).')
  }
  const { verify } = options
  const protection = options.keyward?.protection
  const check = async (token: string, request: KeywardRequest): Promise<BearerAuth<T>> => {
    let claims: T | null | undefined
    try {
      claims = await verify(token, request)
    } catch (error) {
      if (isKeywardError(error)) throw error
      claims = null
    }
    if (claims === null || claims === undefined) throw invalidToken()
    return { scope: 'bearer', claims }
  }
  const guard: Guard<BearerAuth<T>> = async (request) => {
    try {
      const token = readBearerToken(request)
      const auth = protection
        ? await protection.run({
            request,
            presented: {},
            verify: () => check(token, request),
            keys: () => [],
          })
        : await check(token, request)
      return { ok: true, auth }
    } catch (error) {
      return { ok: false, response: errorResponse(error) }
    }
  }
  if (!protection) return guard
  // A throttled address is refused at once, as by the key guards.
  const now = (request: KeywardRequest): GuardResult<BearerAuth<T>> | undefined => {
    const refusal = protection.refusalNow(request)
    return refusal ? { ok: false, response: errorResponse(refusal) } : undefined
  }
  return Object.assign(guard, { now })
}
