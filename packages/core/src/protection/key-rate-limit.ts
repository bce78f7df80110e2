import { KeywardError } from '../errors/error.js'
import { ErrorType } from '../errors/types.js'
import { KEY_HEADER } from '../key/format.js'
import { isLimiterState, type Limiter, type LimiterState, secondsLeft } from './limiter.js'
import { checkPolicy, type ProtectionOptions, type RatedKey, type RateLimitPolicy } from './options.js'

/** @internal Takes one request from the rate limit of each verified key, or throws 429. */
export interface KeyRateLimiter {
  take(
    keys: readonly RatedKey[],
    onBackendError: (operation: string, error: unknown) => void,
    onTaken?: (key: RatedKey, rate: KeyRate) => void,
    onLimited?: (key: RatedKey) => void,
  ): Promise<void>
}

/**
 * What is left of a key's rate limit after a request took from it: `limit` requests per
 * `windowSeconds`, `remaining` of them until the window ends in `resetSeconds`.
 *
 * @example
 * ```ts
 * const rate: KeyRate = { limit: 600, windowSeconds: 60, remaining: 599, resetSeconds: 60 }
 * ```
 */
export interface KeyRate {
  readonly limit: number
  readonly windowSeconds: number
  readonly remaining: number
  readonly resetSeconds: number
}

/**
 * @internal The IETF httpapi RateLimit fields (draft-ietf-httpapi-ratelimit-headers) of a spent
 * limit named `name`: its policy (`q` per `w` seconds), what is left of it (`r`, for `t`
 * seconds), and `Retry-After`.
 */
export function rateLimitHeaders(
  name: string,
  policy: RateLimitPolicy,
  state: LimiterState,
): Record<string, string> {
  const seconds = secondsLeft(state)
  return {
    'retry-after': String(seconds),
    'ratelimit-policy': `"${name}";q=${policy.limit};w=${policy.windowSeconds}`,
    ratelimit: `"${name}";r=${Math.max(0, state.remainingPoints)};t=${seconds}`,
  }
}

/** @internal The key rate limits of a `protection` option, or `undefined` when it sets none. */
export function keyRateLimiter(options: ProtectionOptions, prefix: string): KeyRateLimiter | undefined {
  const { keyRateLimits, rateLimitFor } = options
  if (!rateLimitFor && !keyRateLimits?.developer && !keyRateLimits?.project) return undefined
  // One limiter per distinct policy: a backend counts one fixed window size per limiter.
  const limiters = new Map<string, Limiter>()
  const limiterOf = (policy: RateLimitPolicy) => {
    const id = `${policy.limit}:${policy.windowSeconds}`
    let limiter = limiters.get(id)
    if (!limiter) {
      limiter = options.limiter({
        keyPrefix: `${prefix}:key-rate:${id}`,
        points: policy.limit,
        duration: policy.windowSeconds,
      })
      limiters.set(id, limiter)
    }
    return limiter
  }

  async function hostPolicy(key: RatedKey): Promise<RateLimitPolicy | null | undefined> {
    const policy = await rateLimitFor!(key)
    checkPolicy(policy, 'rateLimitFor: the returned policy')
    return policy
  }

  return {
    async take(keys, onBackendError, onTaken, onLimited) {
      for (const key of keys) {
        // Without the host's callback the policy is known at once: no promise on the hot path.
        const policy = rateLimitFor ? await hostPolicy(key) : keyRateLimits?.[key.ownerType]
        if (!policy) continue
        try {
          const state = await limiterOf(policy).consume(key.id, 1)
          onTaken?.(key, {
            limit: policy.limit,
            windowSeconds: policy.windowSeconds,
            remaining: Math.max(0, state.remainingPoints),
            resetSeconds: secondsLeft(state),
          })
        } catch (spent) {
          if (!isLimiterState(spent)) {
            // Fails open, like the throttle: the key itself was verified.
            onBackendError('rate_limit.consume', spent)
            continue
          }
          onLimited?.(key)
          const kind = key.ownerType === 'developer' ? 'developer key' : 'API key'
          throw new KeywardError(
            ErrorType.rateLimited,
            `The rate limit of this ${kind} is spent: ${policy.limit} requests per ${policy.windowSeconds} seconds; try again in ${secondsLeft(spent)} seconds.`,
            ['header', KEY_HEADER[key.ownerType]],
            { headers: rateLimitHeaders('key', policy, spent) },
          )
        }
      }
    },
  }
}
