// The shapes of credits, apart from their rules (./model.ts) so that a key record can name them.

/**
 * How a key's credits come back: `amount` every day (at 00:00 UTC), or every month on `day`
 * (1 to 31, at 00:00 UTC; a day past the month's end means its last day, so 31 is the end of
 * every month). A refill sets the balance to `amount` when it is below, and leaves a higher
 * balance as it is (credits added on top are not taken away).
 *
 * @example
 * ```ts
 * const refill: CreditRefill = { amount: 10_000, interval: 'monthly', day: 1 }
 * ```
 */
export type CreditRefill =
  | { readonly amount: number; readonly interval: 'daily' }
  | { readonly amount: number; readonly interval: 'monthly'; readonly day: number }

/**
 * A change of a key's credits, each applied atomically by the store:
 * - `set`: the balance becomes `remaining` (`null`: unlimited), and the refill rule `refill` when
 *   given (`null`: none; absent: unchanged);
 * - `add`: the balance grows by `amount`;
 * - `subtract`: the balance shrinks by `amount`, refused (422) when it holds less.
 *
 * @example
 * ```ts
 * await keyward.changeCredits(keyId, { op: 'add', amount: 500 })
 * ```
 */
export type CreditChange =
  | { readonly op: 'set'; readonly remaining: number | null; readonly refill?: CreditRefill | null }
  | { readonly op: 'add' | 'subtract'; readonly amount: number }

/** A key's credits as a store keeps them: the balance, the refill rule, the last period refilled. */
export interface CreditState {
  /** The stored balance, or `null` for unlimited. Credits leased to processes are spent already. */
  readonly remaining: number | null
  readonly refill: CreditRefill | null
  /** The start of the last refill period applied, or `null` without a rule. */
  readonly refilledAt: Date | null
}
