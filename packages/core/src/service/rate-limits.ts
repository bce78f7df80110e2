import type { KeywardError } from '../errors/error.js'
import { hasStoredLimits, type RateLimitCosts, type StoredLimits } from '../protection/stored-limits.js'
import type { KeyRecord } from '../store/types.js'
import { CheckedKeyRef, projectKeyRef } from './credits.js'
import type { KeyRef } from './requirements.js'
import { OUTCOME, type UsageCounts } from './usage-counts.js'

/** @internal The stored rate limits' part of the key service's interface (`Keyward`). */
export interface KeywardRateLimits {
  /**
   * @internal Takes a request of a verified API key from its stored rate limits and its
   * identity's, at `costs` (1 each by default): `undefined` when they allow it, the 429
   * `rate_limited` of the first one spent; at once with the counters in memory, a promise with a
   * shared backend. A key without stored limits answers `undefined` at once. With `now`, only
   * what memory decides: `null`, having taken nothing, when a shared backend must be asked.
   */
  takeRateLimits(key: KeyRef, costs: RateLimitCosts | undefined, now: true): KeywardError | undefined | null
  /** @internal Takes a request from the stored limits, asking a shared backend when there is one. */
  takeRateLimits(
    key: KeyRef,
    costs?: RateLimitCosts,
  ): KeywardError | undefined | Promise<KeywardError | undefined>
  /** @internal The ref a guard gets for a verified API key, what its limits and credits need included. */
  keyRef(record: KeyRecord): KeyRef
}

/** @internal The service's stored rate limits over their counters. */
export function rateLimitMethods(limits: StoredLimits, counts: UsageCounts | undefined): KeywardRateLimits {
  // Counted as accepted when it was verified: its limit refused it after all.
  const refused = (key: KeyRecord, outcome: KeywardError | undefined) => {
    if (outcome && counts) counts.move(key, OUTCOME.accepted, OUTCOME.rate_limited)
    return outcome
  }
  function takeRateLimits(key: KeyRef, costs?: RateLimitCosts, now?: boolean) {
    const record = CheckedKeyRef.recordOf(key)
    if (record === undefined || !hasStoredLimits(record)) return undefined
    if (now && !limits.atOnce) return null
    const outcome = limits.take(record, costs)
    return outcome instanceof Promise
      ? outcome.then((taken) => refused(record, taken))
      : refused(record, outcome)
  }
  return {
    takeRateLimits: takeRateLimits as KeywardRateLimits['takeRateLimits'],
    keyRef: projectKeyRef,
  }
}
