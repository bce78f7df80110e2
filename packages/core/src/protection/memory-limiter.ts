import type { Limiter, LimiterSettings, LimiterState } from './limiter.js'

/** How long {@link coarseClock} keeps the time it read, in milliseconds. */
export const CLOCK_RESOLUTION_MS = 10

/**
 * @internal `Date.now`, read at most once per {@link CLOCK_RESOLUTION_MS}: reading the clock costs
 * about as much as the rest of counting a request (0.1 µs on a virtual machine). A window of the
 * shortest duration (1 s) is then right to within 1%, plus what the event loop lags.
 */
export function coarseClock(): () => number {
  let cached: number | undefined
  const forget = () => {
    cached = undefined
  }
  return () => {
    if (cached === undefined) {
      cached = Date.now()
      const timer = setTimeout(forget, CLOCK_RESOLUTION_MS) as { unref?: () => void }
      timer?.unref?.()
    }
    return cached
  }
}

/** The count of one key in its window, which starts at the key's first point. */
interface Window {
  consumed: number
  readonly endsAt: number
}

/**
 * @internal A fixed-window counter in this process's memory, with the meaning of
 * rate-limiter-flexible's `RateLimiterMemory`: a key's window starts at its first point, and
 * points past the limit are counted too. The counters of stored rate limits when the service has
 * no `protection`. It also answers at once (`add`), so that a guard can answer a cached key
 * without a promise. Ended windows are swept once per window length, so memory holds only the
 * keys counted in the last two windows.
 */
export class MemoryLimiter implements Limiter {
  readonly points: number
  readonly #ms: number
  readonly #clock: () => number
  readonly #windows = new Map<string, Window>()
  #sweepAt: number

  constructor(settings: Pick<LimiterSettings, 'points' | 'duration'>, clock: () => number = Date.now) {
    this.points = settings.points
    this.#ms = settings.duration * 1000
    this.#clock = clock
    this.#sweepAt = clock() + this.#ms
  }

  /** Adds `points` to the key's count in its window and returns the count: past `points`, it is spent. */
  add(key: string, points: number): number {
    return this.#add(key, points, this.#clock()).consumed
  }

  /** The key's state now, or `null` when it has no count in a current window. */
  state(key: string): LimiterState | null {
    const window = this.#windows.get(key)
    const now = this.#clock()
    return window === undefined || window.endsAt <= now ? null : this.#stateOf(window, now)
  }

  get(key: string): Promise<LimiterState | null> {
    return Promise.resolve(this.state(key))
  }

  penalty(key: string, points = 1): Promise<LimiterState> {
    const now = this.#clock()
    return Promise.resolve(this.#stateOf(this.#add(key, points, now), now))
  }

  consume(key: string, points = 1): Promise<LimiterState> {
    const now = this.#clock()
    const window = this.#add(key, points, now)
    const state = this.#stateOf(window, now)
    return window.consumed > this.points ? Promise.reject(state) : Promise.resolve(state)
  }

  #add(key: string, points: number, now: number): Window {
    if (now >= this.#sweepAt) this.#sweep(now)
    let window = this.#windows.get(key)
    if (window === undefined || window.endsAt <= now) {
      window = { consumed: 0, endsAt: now + this.#ms }
      this.#windows.set(key, window)
    }
    window.consumed += points
    return window
  }

  #stateOf(window: Window, now: number): LimiterState {
    return {
      consumedPoints: window.consumed,
      remainingPoints: Math.max(0, this.points - window.consumed),
      msBeforeNext: window.endsAt - now,
    }
  }

  #sweep(now: number): void {
    for (const [key, window] of this.#windows) if (window.endsAt <= now) this.#windows.delete(key)
    this.#sweepAt = now + this.#ms
  }
}
