import { checkTrustedProxy, type TrustedProxy } from '../http/client-address.js'
import type { KeyKind } from '../key/format.js'
import type { LimiterFactory } from './limiter.js'

/**
 * A rate limit: at most `limit` requests per `windowSeconds`.
 *
 * @example
 * ```ts
 * const perMinute: RateLimitPolicy = { limit: 600, windowSeconds: 60 }
 * ```
 */
export interface RateLimitPolicy {
  readonly limit: number
  readonly windowSeconds: number
}

/**
 * A key that passed verification, as a rate limit sees it.
 *
 * @example
 * ```ts
 * const rateLimitFor = (key: RatedKey) => (plans.get(key.ownerId) === 'pro' ? { limit: 6000, windowSeconds: 60 } : null)
 * ```
 */
export interface RatedKey {
  readonly id: string
  readonly keyPrefix: string
  readonly ownerType: KeyKind
  readonly ownerId: string
}

/**
 * Defaults of {@link ProtectionOptions}.
 *
 * @example
 * ```ts
 * PROTECTION_DEFAULTS.failedAuthLimit // 100 failed verifications per address and window
 * ```
 */
export const PROTECTION_DEFAULTS = {
  failedAuthLimit: 100,
  failedAuthWindowSeconds: 60,
  reportIntervalSeconds: 60,
  keyPrefix: 'keyward',
} as const

/**
 * Abuse protection of the guards (option `protection` of `createKeyward`): failed verifications
 * throttled per client address, optional rate limits per key, and failures reported aggregated.
 *
 * @example
 * ```ts
 * const keyward = createKeyward({
 *   store,
 *   protection: {
 *     limiter: (settings) => new RateLimiterMemory(settings),
 *     trustedProxy: { header: 'x-forwarded-for', hops: 1 },
 *     keyRateLimits: { project: { limit: 600, windowSeconds: 60 } },
 *   },
 * })
 * ```
 */
export interface ProtectionOptions {
  /**
   * Builds the counters: `(settings) => new RateLimiterMemory(settings)` in one process,
   * `RateLimiterRedis` or `RateLimiterPostgres` (rate-limiter-flexible) to share them.
   */
  readonly limiter: LimiterFactory
  /**
   * Failed verifications allowed per client address and window; past them every credentialed
   * request from the address answers 429 `rate_limited` before any lookup. Default 100; `0` off.
   */
  readonly failedAuthLimit?: number
  /** The window of `failedAuthLimit`, in seconds. Default 60. */
  readonly failedAuthWindowSeconds?: number
  /**
   * Believe this forwarded header for the client address. Never set by default: without it the
   * socket's address is the client's, and a forwarded header is a value the client wrote.
   */
  readonly trustedProxy?: TrustedProxy
  /** A rate limit for every key of an owner type, e.g. `{ project: { limit: 600, windowSeconds: 60 } }`. */
  readonly keyRateLimits?: Partial<Readonly<Record<KeyKind, RateLimitPolicy>>>
  /**
   * A rate limit per key, decided by the host (for instance from its own table of plans);
   * `null` for none. Takes precedence over `keyRateLimits`.
   */
  readonly rateLimitFor?: (
    key: RatedKey,
  ) => RateLimitPolicy | null | undefined | Promise<RateLimitPolicy | null | undefined>
  /** Seconds over which failures are summed into one `auth.failures` event per address. Default 60. */
  readonly reportIntervalSeconds?: number
  /** The prefix of the counters' keys in a shared backend. Default `keyward`. */
  readonly keyPrefix?: string
}

const positiveInteger = (value: unknown) => Number.isInteger(value) && (value as number) > 0

/** @internal Checks the option once, naming what is wrong. */
export function checkPolicy(policy: RateLimitPolicy | null | undefined, name: string): void {
  if (policy === undefined || policy === null) return
  if (!positiveInteger(policy.limit) || !positiveInteger(policy.windowSeconds)) {
    throw new TypeError(`${name} must be { limit, windowSeconds }, both positive integers.`)
  }
}

/** @internal Checks the `protection` option once, naming the field that is wrong. */
export function checkProtectionOptions(options: ProtectionOptions | undefined): void {
  if (options === undefined) return
  const where = 'createKeyward'
  if (typeof options !== 'object' || options === null || typeof options.limiter !== 'function') {
    throw new TypeError(`${where}: option \`protection.limiter\` must be a function that builds a limiter.`)
  }
  const limit = options.failedAuthLimit
  if (limit !== undefined && !(Number.isInteger(limit) && limit >= 0)) {
    throw new TypeError(`${where}: option \`protection.failedAuthLimit\` must be an integer >= 0 (0 is off).`)
  }
  for (const field of ['failedAuthWindowSeconds', 'reportIntervalSeconds'] as const) {
    if (options[field] !== undefined && !positiveInteger(options[field])) {
      throw new TypeError(`${where}: option \`protection.${field}\` must be a positive integer.`)
    }
  }
  checkTrustedProxy(options.trustedProxy, where)
  for (const kind of ['developer', 'project'] as const) {
    checkPolicy(options.keyRateLimits?.[kind], `${where}: option \`protection.keyRateLimits.${kind}\``)
  }
  if (options.rateLimitFor !== undefined && typeof options.rateLimitFor !== 'function') {
    throw new TypeError(`${where}: option \`protection.rateLimitFor\` must be a function.`)
  }
}
