// The threshold under which a key's credits, or an identity's pool, are low (`credits.low`).
import { KeywardError } from '../errors/error.js'
import { ErrorType } from '../errors/types.js'
import { MAX_CREDITS } from './model.js'
import type { CreditRefill } from './types.js'

/**
 * When credits are low, for the webhook event `credits.low`: at or below `remaining` credits, or
 * at or below `percent` (1 to 99) of the refill rule's amount (rounded down; a threshold in
 * percent needs a refill rule).
 *
 * @example
 * ```ts
 * const lowAt: CreditsLowAt = { percent: 10 } // 1,000 of a 10,000 monthly refill
 * ```
 */
export type CreditsLowAt = { readonly remaining: number } | { readonly percent: number }

const isInteger = (value: unknown): value is number => typeof value === 'number' && Number.isInteger(value)

/**
 * The threshold as given (`credits_low_at` of a key's or an identity's body), checked against
 * the credits it goes with: `null` (absent) for none; else the 422 `loc` names what is wrong.
 *
 * @example
 * ```ts
 * checkCreditsLowAt({ percent: 10 }, 10_000, { amount: 10_000, interval: 'daily' }) // { percent: 10 }
 * ```
 */
export function checkCreditsLowAt(
  value: unknown,
  remaining: number | null,
  refill: CreditRefill | null,
  loc: readonly string[] = ['body', 'credits_low_at'],
): CreditsLowAt | null {
  if (value === undefined || value === null) return null
  const fields = typeof value === 'object' && !Array.isArray(value) ? Object.keys(value) : []
  if (fields.length !== 1 || (fields[0] !== 'remaining' && fields[0] !== 'percent')) {
    throw new KeywardError(
      ErrorType.valueError,
      'Expected an object with one field: `remaining` (credits) or `percent` (of the refill amount).',
      [...loc],
    )
  }
  if (remaining === null) {
    throw new KeywardError(
      ErrorType.valueError,
      'A low-credits threshold needs a credit limit: set `remaining` too.',
      [...loc],
    )
  }
  const field = fields[0] as 'remaining' | 'percent'
  const given = (value as Record<string, unknown>)[field]
  const [least, most] = field === 'percent' ? [1, 99] : [0, MAX_CREDITS]
  if (!isInteger(given) || given < least || given > most) {
    throw new KeywardError(
      isInteger(given)
        ? given < least
          ? ErrorType.greaterThanEqual
          : ErrorType.lessThanEqual
        : ErrorType.intType,
      `Expected an integer from ${least} to ${most}, got ${JSON.stringify(given) ?? 'nothing'}.`,
      [...loc, field],
    )
  }
  if (field === 'percent' && refill === null) {
    throw new KeywardError(
      ErrorType.valueError,
      'A threshold in percent is a share of the refill amount: set `refill` too, or give `remaining`.',
      [...loc, field],
    )
  }
  return field === 'percent' ? { percent: given } : { remaining: given }
}

/**
 * The balance at or below which credits are low, or `null` when there is none (no threshold, or
 * a threshold in percent without a refill rule).
 *
 * @example
 * ```ts
 * lowThreshold({ percent: 10 }, { amount: 5000, interval: 'daily' }) // 500
 * ```
 */
export function lowThreshold(
  lowAt: CreditsLowAt | null | undefined,
  refill: CreditRefill | null,
): number | null {
  if (!lowAt) return null
  if ('remaining' in lowAt) return lowAt.remaining
  return refill === null ? null : Math.floor((refill.amount * lowAt.percent) / 100)
}

/**
 * The threshold that credits keep after a change: `null` when they no longer have a limit, or
 * when they lose their refill rule and the threshold is in percent of it (neither could be set
 * on such credits). A change of credits by `set` applies it in the same write.
 *
 * @example
 * ```ts
 * keptCreditsLowAt({ percent: 10 }, { remaining: 500, refill: null }) // null
 * keptCreditsLowAt({ remaining: 5 }, { remaining: 500, refill: null }) // { remaining: 5 }
 * ```
 */
export function keptCreditsLowAt(
  lowAt: CreditsLowAt | null | undefined,
  credits: { readonly remaining: number | null; readonly refill: CreditRefill | null },
): CreditsLowAt | null {
  if (!lowAt || credits.remaining === null) return null
  return 'percent' in lowAt && credits.refill === null ? null : lowAt
}
