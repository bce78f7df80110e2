import { KeywardError } from '../errors/error.js'
import { ErrorType } from '../errors/types.js'
import type { CreditLease, KeyRecord } from '../store/record.js'
import type { CreditChange, CreditRefill, CreditState } from './types.js'

/** The most credits a key holds, and the most one change moves: far below 2^53, so sums stay exact. */
export const MAX_CREDITS = 1_000_000_000_000

/** The highest cost a route may declare per request. */
export const MAX_COST = 1000

const DAY_MS = 86_400_000

const daysIn = (year: number, month: number) => new Date(Date.UTC(year, month + 1, 0)).getUTCDate()

/** The refill day of a month, clamped to its end, at 00:00 UTC. */
const monthlyAt = (year: number, month: number, day: number) =>
  Date.UTC(year, month, Math.min(day, daysIn(year, month)))

/**
 * The start of the refill period that contains `at`: the last refill time at or before it.
 *
 * @example
 * ```ts
 * refillPeriodStart({ amount: 5, interval: 'monthly', day: 31 }, new Date('2027-02-28T12:00:00Z'))
 * // 2027-02-28T00:00:00Z: February's last day stands for the 31st
 * ```
 */
export function refillPeriodStart(refill: CreditRefill, at: Date): Date {
  const ms = at.getTime()
  if (refill.interval === 'daily') return new Date(Math.floor(ms / DAY_MS) * DAY_MS)
  const year = at.getUTCFullYear()
  const month = at.getUTCMonth()
  const thisMonth = monthlyAt(year, month, refill.day)
  return new Date(thisMonth <= ms ? thisMonth : monthlyAt(year, month - 1, refill.day))
}

/**
 * When the next refill comes after `at`.
 *
 * @example
 * ```ts
 * nextRefillAt({ amount: 5, interval: 'daily' }, new Date('2027-01-01T12:00:00Z')) // 2027-01-02T00:00:00Z
 * ```
 */
export function nextRefillAt(refill: CreditRefill, at: Date): Date {
  if (refill.interval === 'daily') return new Date(refillPeriodStart(refill, at).getTime() + DAY_MS)
  const start = refillPeriodStart(refill, at)
  return new Date(monthlyAt(start.getUTCFullYear(), start.getUTCMonth() + 1, refill.day))
}

/**
 * The credits after the refill due at `now`, if any: the balance topped up to the rule's amount
 * once per period, however many times it is asked. Stores apply it in the same atomic write as
 * the lease or change that follows it, so that a period is refilled once across processes.
 *
 * @example
 * ```ts
 * const state = refilled(stored, now) // then lease from state.remaining, and store both
 * ```
 */
export function refilled(state: CreditState, now: Date): CreditState {
  const { remaining, refill, refilledAt } = state
  if (remaining === null || refill === null) return state
  const start = refillPeriodStart(refill, now)
  if (refilledAt !== null && start.getTime() <= refilledAt.getTime()) return state
  return { remaining: Math.max(remaining, refill.amount), refill, refilledAt: start }
}

/**
 * A lease of credits as they are at `now`: the refill due applied (see {@link refilled}), then
 * `min(want, balance)` taken when the balance holds at least `need`, else nothing. Credits
 * without a limit grant `want`. `after` is what to store, or `null` when nothing changed (no
 * limit, or nothing taken and no refill due). Stores compute it under the row's lock.
 *
 * @example
 * ```ts
 * const { lease, after } = leasedCredits(stored, 100, 3, now) // then write `after`, if any
 * ```
 */
export function leasedCredits(
  state: CreditState,
  want: number,
  need: number,
  now: Date,
): { readonly lease: CreditLease; readonly after: CreditState | null } {
  const credits = refilled(state, now)
  if (credits.remaining === null)
    return { lease: { granted: want, remaining: null, refill: null }, after: null }
  const granted = credits.remaining >= need ? Math.min(want, credits.remaining) : 0
  const after = { ...credits, remaining: credits.remaining - granted }
  const lease = {
    granted,
    remaining: after.remaining,
    refill: credits.refill,
    refilledAt: credits.refilledAt,
  }
  return { lease, after: granted === 0 && credits === state ? null : after }
}

/**
 * Whose credits a change acts on: an API key's own, or the pool of an identity, which the
 * messages of the errors below name.
 */
export type CreditHolder = 'key' | 'identity'

/**
 * The error a store throws when a subtraction asks for more than the balance holds (422,
 * nothing changed).
 *
 * @example
 * ```ts
 * if (balance < amount) throw creditsTooFewError(balance, amount)
 * ```
 */
export function creditsTooFewError(
  balance: number,
  amount: number,
  holder: CreditHolder = 'key',
): KeywardError {
  return new KeywardError(
    ErrorType.greaterThanEqual,
    `Cannot subtract ${amount} credits: the ${holder} holds ${balance}.`,
    ['body', 'amount'],
  )
}

/**
 * The error a store throws when an addition would take the balance past {@link MAX_CREDITS}
 * (422, nothing changed).
 *
 * @example
 * ```ts
 * if (balance + amount > MAX_CREDITS) throw creditsTooManyError(balance, amount)
 * ```
 */
export function creditsTooManyError(
  balance: number,
  amount: number,
  holder: CreditHolder = 'key',
): KeywardError {
  return new KeywardError(
    ErrorType.lessThanEqual,
    `Cannot add ${amount} credits: the ${holder} holds ${balance}, and holds at most ${MAX_CREDITS}.`,
    ['body', 'amount'],
  )
}

/**
 * The error a store throws when `add` or `subtract` names a key without a credit limit (422):
 * set its credits first.
 *
 * @example
 * ```ts
 * if (balance === null) throw creditsUnlimitedError()
 * ```
 */
export function creditsUnlimitedError(holder: CreditHolder = 'key'): KeywardError {
  return new KeywardError(
    ErrorType.valueError,
    holder === 'key'
      ? 'This key has no credit limit: set its credits (op "set") before adding or subtracting.'
      : 'This identity has no credit pool: set its credits (op "set") before adding or subtracting.',
    ['body', 'op'],
  )
}

/**
 * Applies a change to credits as they are now (after the due refill), or throws the store's 422,
 * whose message names the `holder` (a key's own credits, or an identity's pool). The memory store
 * uses it; so does the PostgreSQL store, under the row's lock.
 *
 * @example
 * ```ts
 * const after = changedCredits(refilled(before, now), { op: 'add', amount: 5 }, now)
 * ```
 */
export function changedCredits(
  current: CreditState,
  change: CreditChange,
  now: Date,
  holder: CreditHolder = 'key',
): CreditState {
  if (change.op === 'set') {
    const refill =
      change.remaining === null ? null : change.refill === undefined ? current.refill : change.refill
    const ruleChanged = change.refill !== undefined || change.remaining === null || current.remaining === null
    return {
      remaining: change.remaining,
      refill,
      refilledAt: refill === null ? null : ruleChanged ? refillPeriodStart(refill, now) : current.refilledAt,
    }
  }
  if (current.remaining === null) throw creditsUnlimitedError(holder)
  if (change.op === 'add') {
    if (current.remaining + change.amount > MAX_CREDITS)
      throw creditsTooManyError(current.remaining, change.amount, holder)
    return { ...current, remaining: current.remaining + change.amount }
  }
  if (current.remaining < change.amount) throw creditsTooFewError(current.remaining, change.amount, holder)
  return { ...current, remaining: current.remaining - change.amount }
}

/**
 * A record with these credits: a key without a limit carries no credit fields at all (as records
 * did before credits existed), a metered one carries `remaining`, `refill` and `refilledAt`.
 *
 * @example
 * ```ts
 * const stored = withCredits(record, { remaining: 100, refill: null, refilledAt: null })
 * ```
 */
export function withCredits(record: KeyRecord, credits: CreditState): KeyRecord {
  // Copied field by field, in the record's order, rather than with a rest pattern: V8 gives each
  // object a rest pattern builds a map of its own, and the verification cache's records would then
  // make every property read on the hot path megamorphic (a metered key's verification ran at
  // half the speed of a plain one's). Records built the same way share one map.
  const copy: Record<string, unknown> = {}
  for (const field in record) {
    if (field !== 'remaining' && field !== 'refill' && field !== 'refilledAt') {
      copy[field] = record[field as keyof KeyRecord]
    }
  }
  if (credits.remaining !== null) {
    copy.remaining = credits.remaining
    copy.refill = credits.refill
    copy.refilledAt = credits.refilledAt
  }
  return copy as unknown as KeyRecord
}

/**
 * The credits a record carries (`null`s for a key without a limit).
 *
 * @example
 * ```ts
 * const { remaining } = creditState(record)
 * ```
 */
export function creditState(record: KeyRecord): CreditState {
  return {
    remaining: record.remaining ?? null,
    refill: record.refill ?? null,
    refilledAt: record.refilledAt ?? null,
  }
}
