import { LRUCache } from 'lru-cache'
import { isKeywardError, KeywardError } from '../errors/error.js'
import { ErrorType } from '../errors/types.js'
import { clientAddress } from '../http/client-address.js'
import type { KeywardRequest } from '../http/types.js'
import type { KeywardEvent } from '../service/events.js'
import { failureReport } from './failure-report.js'
import { type KeyRate, keyRateLimiter } from './key-rate-limit.js'
import { isLimiterState, type Limiter, type LimiterState, secondsLeft } from './limiter.js'
import { PROTECTION_DEFAULTS, type ProtectionOptions, type RatedKey } from './options.js'

/** The failures that count against an address: a credential was presented and did not verify. */
const COUNTED: ReadonlySet<string> = new Set([
  ErrorType.keyMalformed,
  ErrorType.keyLegacyPrefix,
  ErrorType.keyInvalid,
  ErrorType.keyWrongType,
  ErrorType.tokenInvalid,
])

/** What a throttle counts against: the client address, or a caller's credential. */
type Throttled = 'address' | 'credential'
const THROTTLED_MSG: Readonly<Record<Throttled, string>> = {
  address: 'Too many failed authentications from this address',
  credential: 'Too many failed verifications with this credential',
}
// Counters of credentials are named apart from every address.
const CALLER = 'caller:'

// The first 8 characters of a presented value, when they look like a key's prefix: anything
// else a client sends is not repeated in a log line.
const PREFIX = /^[a-z]{2}_[A-Za-z0-9_-]{5}/

/** @internal What a guard verifies, with the protection around it. */
export interface Protected<A> {
  readonly request: KeywardRequest
  /** The credentials presented, by header name, to name their prefix in failure reports. */
  readonly presented: Readonly<Record<string, string | undefined>>
  readonly verify: () => Promise<A>
  /** The keys to rate-limit once verified. */
  readonly keys: (auth: A) => readonly RatedKey[]
  /** Hears what is left of each key's rate limit once the request took from it. */
  readonly rated?: (key: RatedKey, rate: KeyRate) => void
  /**
   * The credential of a caller that verifies keys for others (the verification endpoint's
   * developer or service token), as a counter's name: its refused keys count against it as
   * against its address, and past the limit it is refused from any address.
   */
  readonly caller?: string
}

/**
 * The guards' abuse protection, built by `createKeyward` from its `protection` option; the
 * guards run every verification through it. Hosts configure it, they do not call it.
 *
 * @example
 * ```ts
 * keyward.protection === undefined // true unless createKeyward was given `protection`
 * ```
 */
export interface Protection {
  /** @internal Runs a guard's verification: throttle first, failures counted, key limits after. */
  run<A>(work: Protected<A>): Promise<A>
  /**
   * @internal The 429 for a request whose address this process already knows to be throttled,
   * decided at once from memory; `undefined` when the counters must be asked.
   */
  refusalNow(request: KeywardRequest): KeywardError | undefined
}

/** @internal How many throttled addresses a process remembers (the least recently refused go first). */
export const BLOCKED_ADDRESSES = 10_000

/** @internal Builds the protection: the throttle, the key rate limits and the failure report. */
export function createProtection(
  options: ProtectionOptions,
  emit: (event: KeywardEvent) => void,
  onKeyLimited: (key: RatedKey) => void = () => {},
): Protection {
  const limit = options.failedAuthLimit ?? PROTECTION_DEFAULTS.failedAuthLimit
  const windowSeconds = options.failedAuthWindowSeconds ?? PROTECTION_DEFAULTS.failedAuthWindowSeconds
  const prefix = options.keyPrefix ?? PROTECTION_DEFAULTS.keyPrefix
  const report = failureReport(
    options.reportIntervalSeconds ?? PROTECTION_DEFAULTS.reportIntervalSeconds,
    emit,
  )
  const failures: Limiter | undefined =
    limit > 0
      ? options.limiter({ keyPrefix: `${prefix}:failed-auth`, points: limit, duration: windowSeconds })
      : undefined
  const keyRates = keyRateLimiter(options, prefix)
  // Verifications in progress per address, in this process: while an address has failures,
  // they count against its remaining allowance, so concurrent guesses cannot overshoot it.
  const pending = new Map<string, number>()
  let backendErrorReported = false

  const backendError = (operation: string, error: unknown) => {
    // One event per outage, not one per request: a down backend must not flood the log either.
    if (backendErrorReported) return
    backendErrorReported = true
    emit({ type: 'store.error', operation, error })
  }

  // One refusal per number of seconds left, built once: a flood is answered without building
  // an error (and capturing its stack) per request.
  const refusals: Record<Throttled, Map<number, KeywardError>> = { address: new Map(), credential: new Map() }
  const throttled = (seconds: number, subject: Throttled = 'address') => {
    let refusal = refusals[subject].get(seconds)
    if (!refusal) {
      refusal = new KeywardError(
        ErrorType.rateLimited,
        `${THROTTLED_MSG[subject]}: try again in ${seconds} seconds.`,
        [],
        { headers: { 'retry-after': String(seconds) } },
      )
      // Frozen, so that its response is built once too (see errorResponse).
      Object.freeze(refusal.headers)
      for (const detail of refusal.details) Object.freeze(detail)
      Object.freeze(refusal.details)
      refusals[subject].set(seconds, Object.freeze(refusal))
    }
    return refusal
  }

  // Addresses over their limit, with the time their window ends (ms since the epoch), as this
  // process learnt it from the counters: their requests are refused from memory, without asking
  // the counters again (a flood costs the shared backend nothing) and without waiting for them.
  const blocked = new LRUCache<string, number>({ max: BLOCKED_ADDRESSES })
  const block = (address: string, state: LimiterState) => {
    blocked.set(address, Date.now() + state.msBeforeNext)
  }
  const blockedRefusal = (
    counter: string,
    address: string | undefined,
    subject?: Throttled,
  ): KeywardError | undefined => {
    const until = blocked.get(counter)
    if (until === undefined) return undefined
    const ms = until - Date.now()
    if (ms <= 0) {
      blocked.delete(counter)
      return undefined
    }
    report.add(address, ErrorType.rateLimited, undefined)
    return throttled(Math.max(1, Math.ceil(ms / 1000)), subject)
  }

  /**
   * Admits a verification counted against `counter` (the client address, or a caller's
   * credential), or throws 429: never a lookup for a throttled one. `address` is the request's,
   * for the failure report.
   */
  async function admit(counter: string, address: string | undefined, subject?: Throttled): Promise<void> {
    if (!failures) return
    const known = blockedRefusal(counter, address, subject)
    if (known) throw known
    let state: Awaited<ReturnType<Limiter['get']>>
    try {
      state = await failures.get(counter)
      backendErrorReported = false
    } catch (error) {
      // The throttle fails open: the key checks themselves still fail closed.
      backendError('throttle.get', error)
      state = null
    }
    const counted = state?.consumedPoints ?? 0
    const inFlight = counted > 0 ? (pending.get(counter) ?? 0) : 0
    if (state && counted + inFlight >= limit) {
      if (counted >= limit) block(counter, state)
      report.add(address, ErrorType.rateLimited, undefined)
      throw throttled(counted >= limit ? secondsLeft(state) : 1, subject)
    }
    pending.set(counter, (pending.get(counter) ?? 0) + 1)
  }

  function settle(counter: string | undefined): void {
    if (counter === undefined || !failures) return
    const left = (pending.get(counter) ?? 1) - 1
    if (left > 0) pending.set(counter, left)
    else pending.delete(counter)
  }

  async function penalty(counter: string | undefined): Promise<void> {
    if (!failures || counter === undefined) return
    try {
      const state = await failures.penalty(counter, 1)
      if (state.consumedPoints >= limit) block(counter, state)
    } catch (cause) {
      if (!isLimiterState(cause)) backendError('throttle.penalty', cause)
    }
  }

  async function failed(
    address: string | undefined,
    caller: string | undefined,
    error: unknown,
    presented: Protected<unknown>['presented'],
  ) {
    if (!isKeywardError(error) || !COUNTED.has(error.type)) return
    const value = presented[error.loc[1] ?? '']
    report.add(address, error.type, value === undefined ? undefined : PREFIX.exec(value)?.[0])
    await penalty(address)
    await penalty(caller)
  }

  return {
    async run(work) {
      const address = clientAddress(work.request, options.trustedProxy)
      const caller = work.caller === undefined ? undefined : `${CALLER}${work.caller}`
      if (address !== undefined) await admit(address, address)
      if (caller !== undefined) {
        try {
          await admit(caller, address, 'credential')
        } catch (error) {
          settle(address)
          throw error
        }
      }
      let auth: Awaited<ReturnType<typeof work.verify>>
      try {
        auth = await work.verify()
      } catch (error) {
        await failed(address, caller, error, work.presented)
        throw error
      } finally {
        settle(address)
        settle(caller)
      }
      if (keyRates) await keyRates.take(work.keys(auth), backendError, work.rated, onKeyLimited)
      return auth
    },
    refusalNow(request) {
      if (blocked.size === 0) return undefined
      const address = clientAddress(request, options.trustedProxy)
      return address === undefined ? undefined : blockedRefusal(address, address)
    },
  }
}
