import { KeywardError } from '../errors/error.js'
import { ErrorType } from '../errors/types.js'
import { RATE_LIMIT_NAME_PATTERN } from '../identities/model.js'
import { KEY_HEADER } from '../key/format.js'
import type { StoredRateLimit } from '../policy/policies.js'
import type { KeyRecord } from '../store/record.js'
import { rateLimitHeaders } from './key-rate-limit.js'
import {
  isLimiterState,
  type Limiter,
  type LimiterFactory,
  type LimiterState,
  secondsLeft,
} from './limiter.js'
import { MemoryLimiter } from './memory-limiter.js'

/**
 * What a route's requests cost each stored rate limit, by the limit's name (option
 * `rateLimitCosts` of the API-key guards): an integer from 0 (the route does not count against
 * it) to 1000. A limit the route does not name costs 1.
 *
 * @example
 * ```ts
 * const costs: RateLimitCosts = { requests: 1, generations: 10, exports: 0 }
 * ```
 */
export type RateLimitCosts = Readonly<Record<string, number>>

/** The largest cost a route gives a stored rate limit. */
const MAX_RATE_LIMIT_COST = 1000

/** @internal Checks a guard's `rateLimitCosts` once, when it is built; `undefined` for none. */
export function checkRateLimitCosts(value: unknown, who: string): RateLimitCosts | undefined {
  if (value === undefined) return undefined
  const option = `${who}: option \`rateLimitCosts\``
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new TypeError(`${option} must be an object of rate limit names to costs, e.g. { generations: 10 }.`)
  }
  for (const [name, cost] of Object.entries(value)) {
    if (!RATE_LIMIT_NAME_PATTERN.test(name)) {
      throw new TypeError(
        `${option}: ${JSON.stringify(name)} is not a rate limit name (a letter or digit, then letters, digits, _ . : -, at most 64).`,
      )
    }
    if (!(Number.isInteger(cost) && cost >= 0 && cost <= MAX_RATE_LIMIT_COST)) {
      throw new TypeError(
        `${option}: the cost of \`${name}\` must be an integer from 0 to ${MAX_RATE_LIMIT_COST}.`,
      )
    }
  }
  // Without a prototype: a limit named `toString` or `constructor` costs what the route says, or 1.
  return Object.assign(Object.create(null), value) as RateLimitCosts
}

/** @internal What the stored limits of a verified API key are read from: its record. */
export type LimitedKey = Pick<KeyRecord, 'id' | 'ratelimits' | 'identityId' | 'identityRatelimits'>

/** @internal Whether a verified key has stored rate limits to take from, its own or its identity's. */
export const hasStoredLimits = (key: LimitedKey): boolean =>
  !!(key.ratelimits?.length || key.identityRatelimits?.length)

/** @internal The outcome of taking a request from stored limits: `undefined` when they allow it, else the 429. */
export type LimitOutcome = KeywardError | undefined

/** @internal The stored rate limits of verified API keys, counted per key and per identity. */
export interface StoredLimits {
  /** Whether `take` answers at once: the counters are in this process's memory. */
  readonly atOnce: boolean
  /**
   * Takes the request's cost from each limit of the key, then of its identity, in order, and
   * stops at the first that is spent. Answers at once with the counters in memory; a promise
   * with a shared backend.
   */
  take(key: LimitedKey, costs: RateLimitCosts | undefined): LimitOutcome | Promise<LimitOutcome>
}

/** Whose counter a limit takes from: the key's own, or its identity's, which all its keys share. */
type Whose = 'key' | 'identity'
const WHOSE_WORDS: Readonly<Record<Whose, string>> = { key: 'API key', identity: "API key's identity" }

/** A limit's counter: its limiter (one per limit and duration) and its key in it. */
interface Counter {
  readonly whose: Whose
  readonly id: string
  readonly limiter: Limiter
  readonly key: string
}

/** @internal The most limiters (distinct limit and duration pairs) kept at once; the oldest go first. */
export const MAX_LIMITERS = 10_000

function refusal(limit: StoredRateLimit, whose: Whose, state: LimiterState): KeywardError {
  const windowSeconds = limit.duration / 1000
  return new KeywardError(
    ErrorType.rateLimited,
    `The rate limit \`${limit.name}\` of this ${WHOSE_WORDS[whose]} is spent: ${limit.limit} per ${windowSeconds} seconds; try again in ${secondsLeft(state)} seconds.`,
    ['header', KEY_HEADER.project],
    { headers: rateLimitHeaders(limit.name, { limit: limit.limit, windowSeconds }, state) },
  )
}

// A route whose cost is above the limit: no window ever lets it through, so no Retry-After.
function neverPasses(limit: StoredRateLimit, whose: Whose, cost: number): KeywardError {
  return new KeywardError(
    ErrorType.rateLimited,
    `A request to this route costs ${cost} of the rate limit \`${limit.name}\` of this ${WHOSE_WORDS[whose]}, which allows ${limit.limit} per ${limit.duration / 1000} seconds: it never passes.`,
    ['header', KEY_HEADER.project],
  )
}

/**
 * @internal The counters of stored rate limits: built by `limiter` (the `protection` option's
 * factory, shared between processes with Redis or PostgreSQL), or in this process's memory
 * without one, on the service's clock (`clock`). A backend that fails lets the request through
 * (as the throttle does: the key was verified), reported once per outage through `onBackendError`.
 */
export function storedLimits(
  limiter: LimiterFactory | undefined,
  prefix: string,
  onBackendError: (operation: string, error: unknown) => void,
  clock: () => number = Date.now,
  onRefused?: (key: LimitedKey, whose: Whose, limit: StoredRateLimit) => void,
): StoredLimits {
  // One limiter per distinct limit and duration: a backend counts one window size per limiter.
  const limiters = new Map<string, Limiter>()
  const limiterOf = (limit: StoredRateLimit): Limiter => {
    const id = `${limit.limit}:${limit.duration / 1000}`
    let found = limiters.get(id)
    if (found === undefined) {
      const settings = {
        keyPrefix: `${prefix}:ratelimit:${id}`,
        points: limit.limit,
        duration: limit.duration / 1000,
      }
      found = limiter ? limiter(settings) : new MemoryLimiter(settings, clock)
      if (limiters.size >= MAX_LIMITERS) limiters.delete(limiters.keys().next().value as string)
      limiters.set(id, found)
    }
    return found
  }
  // A limit's counter, kept with the limit's object: a cached record's limits are the same
  // objects request after request, so the hot path builds no string. Checked against the subject
  // in case a store hands one object to several records.
  const counters = new WeakMap<StoredRateLimit, Counter>()
  const counterOf = (limit: StoredRateLimit, whose: Whose, id: string): Counter => {
    let counter = counters.get(limit)
    if (counter === undefined || counter.id !== id || counter.whose !== whose) {
      counter = { whose, id, limiter: limiterOf(limit), key: `${whose}:${id}:${limit.name}` }
      counters.set(limit, counter)
    }
    return counter
  }

  // With the counters in memory: every count is known at once.
  function takeNow(key: LimitedKey, costs: RateLimitCosts | undefined): LimitOutcome {
    return (
      takeEachNow(key, key.ratelimits, 'key', key.id, costs) ??
      takeEachNow(key, key.identityRatelimits, 'identity', key.identityId, costs)
    )
  }
  function takeEachNow(
    key: LimitedKey,
    limits: readonly StoredRateLimit[] | null | undefined,
    whose: Whose,
    id: string | null | undefined,
    costs: RateLimitCosts | undefined,
  ): LimitOutcome {
    if (!limits || !id) return undefined
    for (const limit of limits) {
      const cost = costs?.[limit.name] ?? 1
      if (cost === 0) continue
      if (cost > limit.limit) return neverPasses(limit, whose, cost)
      const counter = counterOf(limit, whose, id)
      const memory = counter.limiter as MemoryLimiter
      if (memory.add(counter.key, cost) > limit.limit) {
        onRefused?.(key, whose, limit)
        return refusal(limit, whose, memory.state(counter.key)!)
      }
    }
    return undefined
  }

  let outage = false
  async function takeShared(key: LimitedKey, costs: RateLimitCosts | undefined): Promise<LimitOutcome> {
    const subjects: [readonly StoredRateLimit[] | null | undefined, Whose, string | null | undefined][] = [
      [key.ratelimits, 'key', key.id],
      [key.identityRatelimits, 'identity', key.identityId],
    ]
    for (const [limits, whose, id] of subjects) {
      if (!limits || !id) continue
      for (const limit of limits) {
        const cost = costs?.[limit.name] ?? 1
        if (cost === 0) continue
        if (cost > limit.limit) return neverPasses(limit, whose, cost)
        const counter = counterOf(limit, whose, id)
        try {
          await counter.limiter.consume(counter.key, cost)
          outage = false
        } catch (spent) {
          if (isLimiterState(spent)) {
            onRefused?.(key, whose, limit)
            return refusal(limit, whose, spent)
          }
          // Fails open, like the throttle: the key itself was verified.
          if (!outage) onBackendError('ratelimit.consume', spent)
          outage = true
        }
      }
    }
    return undefined
  }

  return limiter ? { atOnce: false, take: takeShared } : { atOnce: true, take: takeNow }
}
