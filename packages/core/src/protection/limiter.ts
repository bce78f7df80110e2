/**
 * A counter's state, as rate-limiter-flexible's `RateLimiterRes` reports it.
 *
 * @example
 * ```ts
 * const state: LimiterState | null = await limiter.get('203.0.113.7')
 * if (state && state.remainingPoints === 0) retryAfter = Math.ceil(state.msBeforeNext / 1000)
 * ```
 */
export interface LimiterState {
  /** Points counted in the current window. */
  readonly consumedPoints: number
  /** Points left in the current window. */
  readonly remainingPoints: number
  /** Milliseconds until the window ends and the count starts again. */
  readonly msBeforeNext: number
}

/**
 * A fixed-window counter per key, shared by whatever processes share its storage. Keyward uses
 * three methods of it, with the meaning and shape of rate-limiter-flexible's limiters
 * (`RateLimiterMemory`, `RateLimiterRedis`, `RateLimiterPostgres`, ...), which fit as they are.
 *
 * @example
 * ```ts
 * const limiter: Limiter = new RateLimiterMemory({ keyPrefix: 'kw', points: 100, duration: 60 })
 * await limiter.penalty('203.0.113.7', 1)
 * ```
 */
export interface Limiter {
  /** The key's state, or `null` when it has no count in the current window. */
  get(key: string): Promise<LimiterState | null>
  /** Adds points and resolves with the new state, whatever the count. */
  penalty(key: string, points?: number): Promise<LimiterState>
  /** Takes points: resolves with the state, or rejects with it when the window's points are spent. */
  consume(key: string, points?: number): Promise<LimiterState>
}

/**
 * What Keyward asks a {@link LimiterFactory} for: `points` per `duration` seconds, keys under
 * `keyPrefix`. The names are rate-limiter-flexible's, so the settings pass on as they are.
 *
 * @example
 * ```ts
 * const limiter = (settings: LimiterSettings) => new RateLimiterRedis({ storeClient: redis, ...settings })
 * ```
 */
export interface LimiterSettings {
  readonly keyPrefix: string
  readonly points: number
  readonly duration: number
}

/**
 * Builds a {@link Limiter} with the given settings. The backend is the host's choice: in memory
 * for one process, Redis or PostgreSQL to share the counts between processes.
 *
 * @example
 * ```ts
 * import { RateLimiterMemory, RateLimiterRedis } from 'rate-limiter-flexible'
 * const inMemory: LimiterFactory = (settings) => new RateLimiterMemory(settings)
 * const shared: LimiterFactory = (settings) => new RateLimiterRedis({ storeClient: redis, ...settings })
 * ```
 */
export type LimiterFactory = (settings: LimiterSettings) => Limiter

/** @internal Whether a rejection of `consume` is the spent state (and not a backend error). */
export function isLimiterState(value: unknown): value is LimiterState {
  return (
    typeof value === 'object' &&
    value !== null &&
    typeof (value as LimiterState).msBeforeNext === 'number' &&
    typeof (value as LimiterState).consumedPoints === 'number' &&
    !(value instanceof Error)
  )
}

/** @internal Whole seconds until a window ends, at least 1: the value of `Retry-After`. */
export const secondsLeft = (state: LimiterState): number => Math.max(1, Math.ceil(state.msBeforeNext / 1000))
