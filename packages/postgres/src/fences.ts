// Strict revocation: how fresh a change feed is, told by fences (notifications a process sends
// to itself), and how a revocation waits before it is acknowledged. Pure bookkeeping on a
// monotonic clock that comes from outside, so the rules can be read, and tested, on their own.

import { ErrorType, KeywardError } from '@keyward/core'

/**
 * The bound of strict revocation when none is given, in milliseconds: a revocation is
 * acknowledged this long after its commit.
 *
 * @example
 * ```ts
 * const changes = pgChangeFeed({ connectionString: process.env.DIRECT_URL!, freshnessBoundMs: DEFAULT_REVOCATION_BOUND_MS })
 * ```
 */
export const DEFAULT_REVOCATION_BOUND_MS = 250

/**
 * A feed counts as fresh for 99 % of the bound: two processes measure the bound on clocks that
 * may run at slightly different rates (NTP slews a clock by at most 0.05 %), and the writer's
 * wait must never be shorter than the reader's window.
 */
const FRESH_SHARE = 0.99

/**
 * The change feed is late: no fence of this process came back within the bound, so changes
 * committed in the meantime may not have been heard. It is the `error` of the feed's
 * `disconnected` event, and the verification cache and the read replicas are bypassed until a
 * fence comes back.
 *
 * @example
 * ```ts
 * store.changes?.subscribe((event) => {
 *   if (event.type === 'disconnected' && event.error instanceof ChangeFeedLateError) metrics.increment('feed.late')
 * })
 * ```
 */
export class ChangeFeedLateError extends Error {
  /** The bound, in milliseconds. */
  readonly boundMs: number

  constructor(boundMs: number) {
    super(
      `The change feed is late: none of its fences came back within ${boundMs} ms, so it may have missed ` +
        'changes. Lookups skip the verification cache and the read replicas until one does.',
    )
    this.name = 'ChangeFeedLateError'
    this.boundMs = boundMs
  }
}

/**
 * A revocation (a deactivation, a roll, an owner's deletion) was committed, but this process's
 * change feed did not confirm in time that the primary went on delivering notifications after
 * it: other processes may still accept the key from a read replica or a cache until their feed
 * catches up. A `KeywardError` (from `@keyward/core`) of type `revocation_unconfirmed` (503, with
 * `Retry-After`), so that a client knows the revocation itself was made; revoking again is
 * harmless and confirms it. The key service also reports it as `store.error`.
 *
 * @example
 * ```ts
 * const keyward = createKeyward({
 *   store,
 *   onEvent: (event) => {
 *     if (event.type === 'store.error' && event.error instanceof RevocationUnconfirmedError) alert('revocation not confirmed')
 *   },
 * })
 * ```
 */
export class RevocationUnconfirmedError extends KeywardError {
  /** Always `'unknown'`: the write is committed, but not every process may refuse the key yet. */
  readonly outcome = 'unknown' as const
  /** How long the confirmation was waited for, in milliseconds. */
  readonly waitedMs: number

  constructor(waitedMs: number) {
    super(
      ErrorType.revocationUnconfirmed,
      `The revocation was committed, but its confirmation timed out after ${waitedMs} ms: other servers may ` +
        'accept the key until their change feed catches up. Revoking it again is harmless and confirms it.',
      [],
    )
    this.name = 'RevocationUnconfirmedError'
    this.waitedMs = waitedMs
  }
}

/**
 * Options of strict revocation (`strictRevocation` of `createPgKeyStore` and `PostgresKeyStore`).
 *
 * @example
 * ```ts
 * const store = await createPgKeyStore(source, { replicas: [replicaUrl], strictRevocation: { boundMs: 500 } })
 * ```
 */
export interface StrictRevocationOptions {
  /**
   * The bound B, in milliseconds (default 250). A revocation is acknowledged B after its commit;
   * a process reads a read replica or its verification cache only while its change feed heard a
   * fence of its own sent within the last B. Every process that writes or reads the same
   * database must use the same bound (a writer may use a larger one).
   */
  readonly boundMs?: number
  /**
   * How long a revocation waits, after the bound, for this process's own fence to come back
   * before it fails with {@link RevocationUnconfirmedError}. Default 1000; `createPgKeyStore`
   * uses `queryTimeoutMs`.
   */
  readonly confirmTimeoutMs?: number
}

/** @internal Checks a positive integer option, naming it. */
export function positiveOption(who: string, name: string, value: unknown, fallback: number): number {
  if (value === undefined) return fallback
  if (!(Number.isInteger(value) && (value as number) > 0)) {
    throw new TypeError(`${who}: option \`${name}\` must be a positive integer, got ${String(value)}.`)
  }
  return value as number
}

/**
 * @internal The settings of option `strictRevocation` (`true` or an object), checked once, with
 * the bound filled in; `undefined` for `false`.
 */
export function strictSettings(
  who: string,
  value: boolean | StrictRevocationOptions,
): (StrictRevocationOptions & { readonly boundMs: number }) | undefined {
  if (value === false) return undefined
  if (value !== true && (typeof value !== 'object' || value === null)) {
    throw new TypeError(
      `${who}: option \`strictRevocation\` must be true, false or { boundMs }, got ${String(value)}.`,
    )
  }
  const settings = value === true ? {} : value
  const boundMs = positiveOption(
    who,
    'strictRevocation.boundMs',
    settings.boundMs,
    DEFAULT_REVOCATION_BOUND_MS,
  )
  return { ...settings, boundMs }
}

interface Waiter {
  readonly after: number
  readonly resolve: (confirmed: boolean) => void
}

/**
 * @internal The fences of one change feed. The feed sends a fence (a notification on a channel
 * only it listens to) every quarter of the bound, and on request; {@link sent} records the
 * time before it goes out. PostgreSQL queues notifications in commit order, so when the fence
 * comes back ({@link received}), every change committed before it was sent has been delivered
 * already. The feed is {@link fresh} while the latest fence heard was sent within the bound.
 */
export class FeedFences {
  /** The bound, in milliseconds. */
  readonly boundMs: number
  readonly #windowMs: number
  readonly #now: () => number
  readonly #request: () => void
  readonly #sent = new Map<number, number>()
  #next = 0
  /** When the latest fence heard was sent; -Infinity before the first. */
  #freshSince = Number.NEGATIVE_INFINITY
  #waiters: Waiter[] = []

  constructor(boundMs: number, request: () => void, now: () => number = () => performance.now()) {
    this.boundMs = boundMs
    this.#windowMs = boundMs * FRESH_SHARE
    this.#request = request
    this.#now = now
  }

  /** Whether a fence sent within the window has come back (whatever the connection does now). */
  get fresh(): boolean {
    return this.#now() - this.#freshSince <= this.#windowMs
  }

  /** Milliseconds since the latest fence heard was sent (Infinity before the first). */
  get ageMs(): number {
    return this.#now() - this.#freshSince
  }

  /** Numbers a fence about to be sent and records when. */
  sent(): number {
    const n = this.#next++
    this.#sent.set(n, this.#now())
    return n
  }

  /**
   * Fence `n` came back. Returns whether the feed was late just before (a fence heard after
   * the window had passed), so that the feed reports the gap even if no timer saw it.
   */
  received(n: number): boolean {
    const at = this.#sent.get(n)
    if (at === undefined) return false
    const wasLate = !this.fresh
    for (const m of this.#sent.keys()) if (m <= n) this.#sent.delete(m)
    if (at > this.#freshSince) this.#freshSince = at
    this.#waiters = this.#waiters.filter((waiter) => {
      if (waiter.after > this.#freshSince) return true
      waiter.resolve(true)
      return false
    })
    return wasLate
  }

  /** The connection was lost: its fences in flight will never come back. */
  lost(): void {
    this.#sent.clear()
  }

  /**
   * Resolves `true` once a fence sent at or after `after` (on this clock) has come back, or
   * `false` after `timeoutMs`. Asks the feed for a fence now, which is at or after `after`
   * when called then.
   */
  confirm(after: number, timeoutMs: number): Promise<boolean> {
    if (this.#freshSince >= after) return Promise.resolve(true)
    return new Promise<boolean>((resolve) => {
      const timer = setTimeout(() => {
        this.#waiters = this.#waiters.filter((w) => w !== waiter)
        resolve(false)
      }, timeoutMs)
      const waiter: Waiter = {
        after,
        resolve: (confirmed) => {
          clearTimeout(timer)
          resolve(confirmed)
        },
      }
      this.#waiters.push(waiter)
      this.#request()
    })
  }

  /**
   * The acknowledgement of a revocation whose commit returned at `committedAt`: waits until
   * the bound has passed since then, then for a fence sent after that to come back (the
   * primary delivered notifications past the commit, and was up a bound after it). Throws
   * {@link RevocationUnconfirmedError} when it does not come back within `timeoutMs`.
   */
  async acknowledge(committedAt: number, timeoutMs: number): Promise<void> {
    const due = committedAt + this.boundMs
    // A timer may wake a fraction of a millisecond early on this clock: wait out the rest.
    for (let wait = due - this.#now(); wait > 0; wait = due - this.#now()) {
      await new Promise((resolve) => setTimeout(resolve, Math.ceil(wait)))
    }
    if (!(await this.confirm(this.#now(), timeoutMs))) {
      throw new RevocationUnconfirmedError(timeoutMs)
    }
  }
}
