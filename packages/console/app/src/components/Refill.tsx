import { useState } from 'preact/hooks'
import type { ChangeCreditsBody } from '../api'
import { Choice, WholeNumber } from './Fields'

/** How credits come back: up to an amount, daily or monthly on a day. */
export type Refill = NonNullable<ChangeCreditsBody['refill']>
/** The refill chosen: left as it is (`keep`, where a change offers it), none, daily or monthly. */
type RefillChoice = 'keep' | 'none' | Refill['interval']

/** A whole number typed in a field, as a body takes it (the server refuses what is not one), or `null`. */
export function numberOf(text: string): number | null {
  const trimmed = text.trim()
  if (trimmed === '') return null
  const value = Number(trimmed)
  return Number.isFinite(value) ? value : null
}

/**
 * The fields of a refill rule, in a fieldset: the rule (with "Keep as it is" when `keep`), and for
 * a daily or monthly one the amount it refills to and, monthly, its day. `read()` gives the rule
 * (`undefined` to keep it, `null` for none) or, for a field left empty, what to fix in words.
 */
export function useRefillFields(idPrefix: string, keep: boolean) {
  const [refill, setRefill] = useState<RefillChoice>(keep ? 'keep' : 'none')
  const [amount, setAmount] = useState('')
  const [day, setDay] = useState('1')

  const read = (): Refill | null | undefined | { readonly invalid: string } => {
    if (refill === 'keep') return undefined
    if (refill === 'none') return null
    const to = numberOf(amount)
    if (to === null) return { invalid: 'Refill amount: give a whole number of credits.' }
    if (refill === 'daily') return { amount: to, interval: 'daily' }
    const monthDay = numberOf(day)
    if (monthDay === null) return { invalid: 'Refill day: give a day of the month, 1 to 31.' }
    return { amount: to, interval: 'monthly', day: monthDay }
  }
  const clear = () => {
    setRefill(keep ? 'keep' : 'none')
    setAmount('')
    setDay('1')
  }

  const choices = [
    ...(keep ? [{ value: 'keep' as const, label: 'Keep as it is' }] : []),
    { value: 'none' as const, label: 'No refill' },
    { value: 'daily' as const, label: 'Daily, at 00:00 UTC' },
    { value: 'monthly' as const, label: 'Monthly, on a day of the month' },
  ]
  const fields = (
    <fieldset class="stack">
      <legend>Refill</legend>
      <label for={`${idPrefix}-refill`}>Refill rule</label>
      <Choice id={`${idPrefix}-refill`} value={refill} choices={choices} onChange={setRefill} />
      {refill === 'daily' || refill === 'monthly' ? (
        <>
          <label for={`${idPrefix}-refill-amount`}>Refill up to (credits)</label>
          <WholeNumber id={`${idPrefix}-refill-amount`} value={amount} onInput={setAmount} />
        </>
      ) : null}
      {refill === 'monthly' ? (
        <>
          <label for={`${idPrefix}-refill-day`}>
            Day of the month (1 to 31; past a month's end, its last day)
          </label>
          <WholeNumber id={`${idPrefix}-refill-day`} max={31} value={day} onInput={setDay} />
        </>
      ) : null}
    </fieldset>
  )
  return { fields, read, clear }
}
