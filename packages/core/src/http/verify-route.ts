import { CREDITS_HEADER } from '../credits/spender.js'
import { isKeywardError, KeywardError } from '../errors/error.js'
import { ErrorType } from '../errors/types.js'
import { sha256Hex } from '../hash/digest.js'
import { KEY_HEADER } from '../key/format.js'
import { VERIFY_CODES, VerifyKeyBodySchema } from '../openapi/schemas.js'
import { checkBody } from '../openapi/validate.js'
import { parseIp } from '../policy/ip.js'
import { compilePermissions, type PermissionCheck } from '../policy/permission-check.js'
import { checkPermissions, grantedPermissions } from '../policy/policies.js'
import { type PermissionQuery, PermissionQueryError, refusedText } from '../policy/query.js'
import type { KeyRate } from '../protection/key-rate-limit.js'
import type { RatedKey } from '../protection/options.js'
import type { Keyward } from '../service/keyward.js'
import type { DeveloperAuth } from '../service/requirements.js'
import type { ApiKeyCheck } from '../service/verification.js'
import type { KeyRecord } from '../store/types.js'
import { readJsonObjectBody } from './body.js'
import { bearerGuard, developerGuard } from './guards.js'
import { checkQueryNames } from './query-parameters.js'
import { errorResponse, jsonResponse } from './response.js'
import type { BearerAuth, Guard, KeywardRequest, KeywardResponse } from './types.js'

/**
 * Options of the verification endpoint, `POST /api/v1/keys/verify` (option `verify` of
 * `createKeyRoutes`).
 *
 * @example
 * ```ts
 * // The SHA-256 of each service token, hex: `printf %s "$TOKEN" | sha256sum`.
 * createKeyRoutes(keyward, { verify: { serviceTokens: [process.env.VERIFY_TOKEN_SHA256!] } })
 * ```
 */
export interface VerifyRouteOptions {
  /**
   * Service credentials: the SHA-256 digests (64 hex characters) of bearer tokens that may call
   * the endpoint with `Authorization: Bearer <token>`, to verify API keys of any project. Only
   * the digests are kept, and a presented token's digest is compared with each in constant time.
   * Default none: the endpoint takes developer keys only, for keys of their own projects.
   */
  readonly serviceTokens?: readonly string[]
}

/**
 * What the endpoint answers: a verdict on the key, and what a valid key carries (snake_case, as
 * on the wire). A refused key has every field `null` but `valid` and `code`.
 *
 * @example
 * ```ts
 * const result: VerifyKeyResult = await (await fetch(`${base}/api/v1/keys/verify`, init)).json()
 * if (!result.valid) refuse(result.code) // 'key_invalid', 'ip_not_allowed', ...
 * ```
 */
export interface VerifyKeyResult {
  readonly valid: boolean
  /** The refusal's error type (`key_invalid`, `ip_not_allowed`, ...), `null` when valid. */
  readonly code: ErrorType | null
  readonly key_id: string | null
  readonly owner: { readonly type: 'project'; readonly id: string } | null
  readonly permissions: readonly string[] | null
  readonly metadata: Readonly<Record<string, unknown>> | null
  /** The identity the key belongs to, or `null`. */
  readonly identity: {
    readonly id: string
    readonly external_id: string
    readonly metadata: Readonly<Record<string, unknown>> | null
  } | null
  /** The key's credits left; `null` for a key without credits. */
  readonly remaining: number | null
  readonly expires_at: string | null
  readonly ratelimit: {
    readonly limit: number
    readonly window_seconds: number
    readonly remaining: number
    readonly reset_seconds: number
  } | null
}

/** The caller: a developer, or a service token (its claims: the token's digest). */
type Caller = DeveloperAuth | BearerAuth<string>

const DIGEST = /^[0-9a-f]{64}$/
const VERDICTS: ReadonlySet<string> = new Set(VERIFY_CODES)
const NO_STORE = { 'cache-control': 'no-store' }

/** A refusal: nothing about the key, whatever made it fail. Built once per code. */
const REFUSALS = new Map<string, string>(
  VERIFY_CODES.map((code) => [
    code,
    JSON.stringify({
      valid: false,
      code,
      key_id: null,
      owner: null,
      permissions: null,
      metadata: null,
      identity: null,
      remaining: null,
      expires_at: null,
      ratelimit: null,
    } satisfies VerifyKeyResult),
  ]),
)

function checkServiceTokens(value: unknown): readonly string[] {
  if (value === undefined) return []
  if (!Array.isArray(value) || value.some((digest) => typeof digest !== 'string' || !DIGEST.test(digest))) {
    throw new TypeError(
      'createKeyRoutes: option `verify.serviceTokens` must be an array of SHA-256 digests, 64 lower-case hex ' +
        'characters each (printf %s "$TOKEN" | sha256sum), never the tokens themselves.',
    )
  }
  return [...value]
}

// Every character of both, whatever differs first: the time says nothing of where they differ.
function sameDigest(a: string, b: string): boolean {
  let difference = a.length ^ b.length
  for (let i = 0; i < a.length; i++) difference |= a.charCodeAt(i) ^ b.charCodeAt(i % b.length)
  return difference === 0
}

/**
 * The caller's credential, as the throttle's counter names it: refused keys count against it (and
 * its address), never against the `ip` it names, which it could choose at will.
 */
const callerCounter = (caller: Caller): string =>
  caller.scope === 'developer' ? `developer:${caller.developerId}` : `service:${caller.claims.slice(0, 16)}`

const ratedKey = (record: KeyRecord): RatedKey[] => [
  { id: record.id, keyPrefix: record.keyPrefix, ownerType: 'project', ownerId: record.ownerId },
]

/**
 * @internal `POST /api/v1/keys/verify`: verification as a service, for programs that cannot run
 * Keyward in process. It answers whether an API key would pass the guard of an API key, with the
 * guard's checks and refusals (as `valid: false` and `code`), and what a valid key carries. The
 * caller authenticates with a developer key (for keys of its own projects: any other key is
 * answered as an unknown one) or a service token; never with the key being verified.
 */
export function createVerifyRoute(
  keyward: Keyward,
  options: VerifyRouteOptions,
  bodyLimit: number,
): {
  readonly method: 'POST'
  readonly path: string
  handle(request: KeywardRequest): Promise<KeywardResponse>
} {
  const tokens = checkServiceTokens(options.serviceTokens)
  const developer = developerGuard(keyward) as Guard<Caller>
  const isServiceToken = async (token: string): Promise<string | null> => {
    const digest = await sha256Hex(token)
    let found: string | null = null
    for (const known of tokens) if (sameDigest(digest, known)) found = known
    return found
  }
  const service =
    tokens.length > 0 ? (bearerGuard({ verify: isServiceToken, keyward }) as Guard<Caller>) : undefined
  // A service token only when the server has some, and the request sends no developer key.
  const callerGuard = (request: KeywardRequest) =>
    service &&
    request.header(KEY_HEADER.developer) === undefined &&
    request.header('authorization') !== undefined
      ? service
      : developer
  const { protection } = keyward

  // The checks the body asks for; 422 for a permission the server does not declare, a malformed
  // query, an address that is none.
  function checkOf(value: { project_id?: string; permissions?: unknown }, caller: Caller): ApiKeyCheck {
    const permissions = requiredOf(value.permissions, keyward.permissions)
    return {
      ...(value.project_id === undefined ? {} : { projectId: value.project_id }),
      ...(permissions ? { permissions } : {}),
      ...(caller.scope === 'developer' ? { developerId: caller.developerId } : {}),
    }
  }

  function addressOf(ip: string | undefined): string | undefined {
    if (ip === undefined || parseIp(ip) !== null) return ip
    throw new KeywardError(ErrorType.ipInvalid, 'Input should be an IPv4 or IPv6 address.', ['body', 'ip'])
  }

  async function verdict(
    request: KeywardRequest,
    caller: Caller,
    key: string,
    ip: string | undefined,
    check: ApiKeyCheck,
    cost: number,
  ) {
    let rate: KeyRate | undefined
    let verified = false
    // `ip` is met with the key's IP allowlist, and nothing else.
    const verify = () => {
      verified = true
      return keyward.verifyApiKey({ projectKey: key, address: ip, request }, check)
    }
    try {
      // Through the guards' protection: a throttled caller (its address, or its credential) is
      // refused before any lookup, a refused key counts against both, and the key's own rate
      // limit takes this request.
      const record = protection
        ? await protection.run({
            request,
            caller: callerCounter(caller),
            presented: { [KEY_HEADER.project]: key },
            verify,
            keys: ratedKey,
            rated: (_, taken) => {
              rate = taken
            },
          })
        : await verify()
      // Then the stored rate limits of the key and its identity (1 each), and the credits last,
      // as in the guards: a key refused for any other reason spends nothing. Refusals are the
      // verdicts `rate_limited` and `usage_exceeded`.
      const ref = keyward.keyRef(record)
      const limited = await keyward.takeRateLimits(ref)
      if (limited) throw limited
      const spent = cost === 0 ? undefined : await keyward.spendCredits(ref, cost)
      if (isKeywardError(spent)) throw spent
      const remaining = spent ? Number(spent[CREDITS_HEADER]) : null
      return jsonResponse(200, validResult(record, rate, remaining), NO_STORE)
    } catch (error) {
      // Refused before the key was looked at: the caller is throttled, which is no verdict on the key.
      if (!isKeywardError(error) || !VERDICTS.has(error.type) || !verified) throw error
      return { status: 200, headers: REFUSED_HEADERS, body: REFUSALS.get(error.type)! }
    }
  }

  return {
    method: 'POST',
    path: '/api/v1/keys/verify',
    async handle(request) {
      const caller = await callerGuard(request)(request)
      if (!caller.ok) return caller.response
      try {
        checkQueryNames(request, [])
        const body = checkBody(
          VerifyKeyBodySchema,
          (await readJsonObjectBody(request, { limit: bodyLimit }))?.value,
        )
        const check = checkOf(body, caller.auth)
        return await verdict(request, caller.auth, body.key, addressOf(body.ip), check, body.cost ?? 1)
      } catch (error) {
        return errorResponse(error)
      }
    },
  }
}

const QUERY_ERRORS = {
  malformed: ErrorType.valueError,
  too_long: ErrorType.stringTooLong,
  undeclared: ErrorType.permissionUnknown,
} as const

/** What the body's `permissions` requires: a list (every one), or a query; 422 at the problem. */
function requiredOf(value: unknown, declared: ReadonlySet<string>): PermissionCheck | undefined {
  const loc = ['body', 'permissions']
  if (value === undefined) return undefined
  if (Array.isArray(value)) {
    const names = checkPermissions(value, declared, loc)
    if (names?.some((name) => !declared.has(name))) {
      throw new KeywardError(ErrorType.valueError, WILDCARD_REQUIRED, loc)
    }
    return names && names.length > 0 ? compilePermissions({ allOf: names }, declared) : undefined
  }
  try {
    return compilePermissions(value as PermissionQuery, declared)
  } catch (error) {
    if (!(error instanceof PermissionQueryError)) throw error
    const at = error.path.map(String)
    throw new KeywardError(QUERY_ERRORS[error.kind], `The permission query is ${refusedText(error)}.`, [
      ...loc,
      ...at,
    ])
  }
}

const WILDCARD_REQUIRED = 'A wildcard is granted to keys, never required: name the permissions.'

const REFUSED_HEADERS = jsonResponse(200, null, NO_STORE).headers

function validResult(
  record: KeyRecord,
  rate: KeyRate | undefined,
  remaining: number | null,
): VerifyKeyResult {
  return {
    valid: true,
    code: null,
    key_id: record.id,
    owner: { type: 'project', id: record.ownerId },
    permissions: grantedPermissions(record),
    metadata: record.metadata ?? null,
    identity: record.identity
      ? {
          id: record.identity.id,
          external_id: record.identity.externalId,
          metadata: record.identity.metadata,
        }
      : null,
    remaining,
    expires_at: record.expiresAt ? record.expiresAt.toISOString() : null,
    ratelimit: rate
      ? {
          limit: rate.limit,
          window_seconds: rate.windowSeconds,
          remaining: rate.remaining,
          reset_seconds: rate.resetSeconds,
        }
      : null,
  }
}
