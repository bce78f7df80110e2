import { useState } from 'preact/hooks'
import { ApiError, type ApiKeyInfo, type ChangeCreditsBody, type KeyInfo, messageOf } from '../api'
import { Dialog, DialogButtons, DialogError } from './Dialog'

type Op = ChangeCreditsBody['op']
type Refill = NonNullable<ChangeCreditsBody['refill']>
/** The refill a `set` gives: left as it is, none, daily or monthly. */
type RefillChoice = 'keep' | 'none' | Refill['interval']

const OPS: readonly { op: Op; label: string; action: string }[] = [
  { op: 'add', label: 'Add credits', action: 'Add' },
  { op: 'subtract', label: 'Subtract credits', action: 'Subtract' },
  { op: 'set', label: 'Set the balance', action: 'Set balance' },
]

// The fields of the credit endpoint's body, as the dialog names them.
const FIELDS: Readonly<Record<string, string>> = {
  'body.amount': 'Amount',
  'body.refill': 'Refill',
  'body.refill.amount': 'Refill amount',
  'body.refill.interval': 'Refill interval',
  'body.refill.day': 'Refill day',
}

/** Whether a key has a credit limit (an API key with credits; never a developer key). */
const limited = (keyInfo: KeyInfo): keyInfo is KeyInfo & ApiKeyInfo =>
  'project_id' in keyInfo && keyInfo.remaining != null

/** An API key's credits in a few words: `1500, refills to 2000 monthly on day 1`, or `unlimited`. */
export function creditsText(keyInfo: KeyInfo): string {
  if (!limited(keyInfo)) return 'unlimited'
  const refill = keyInfo.refill
  if (!refill) return String(keyInfo.remaining)
  const when = refill.interval === 'daily' ? 'daily' : `monthly on day ${refill.day ?? 1}`
  return `${keyInfo.remaining}, refills to ${refill.amount} ${when}`
}

/**
 * A refusal in plain words: the server's message, after the field it is about when the message
 * does not say (`Refill day: Input should be less than or equal to 31.`).
 */
function explain(failure: unknown): string {
  if (!(failure instanceof ApiError)) return messageOf(failure)
  // Adding to or subtracting from a key without a limit: the API names its `op`, the reader a choice.
  if (failure.status === 422 && failure.type === 'value_error' && failure.loc.join('.') === 'body.op') {
    return 'This key has unlimited credits: nothing can be added or subtracted. Choose “Set the balance” to give it a limit first.'
  }
  const generic = /^(Input should|Field required)/.test(failure.message)
  const field = failure.status === 422 && generic ? FIELDS[failure.loc.join('.')] : undefined
  return field ? `${field}: ${failure.message}` : failure.message
}

/** A whole number typed in a field, as the body takes it (the server refuses what is not one), or `null`. */
function numberOf(text: string): number | null {
  const trimmed = text.trim()
  if (trimmed === '') return null
  const value = Number(trimmed)
  return Number.isFinite(value) ? value : null
}

/**
 * Sets, adds to or subtracts from an API key's credits; a `set` may change the refill too. The
 * server's refusals (a subtraction below zero, an amount or refill day out of range) are shown in
 * the dialog, which stays open; `onChanged` gets the key as it is after a change.
 */
export function CreditsDialog({
  keyInfo,
  change,
  onClose,
  onChanged,
}: {
  keyInfo: KeyInfo
  change: (body: ChangeCreditsBody) => Promise<KeyInfo>
  onClose: () => void
  onChanged: (updated: KeyInfo) => void
}) {
  // A key without a limit can only be given one: adding or subtracting is refused.
  const [op, setOp] = useState<Op>(limited(keyInfo) ? 'add' : 'set')
  const [amount, setAmount] = useState('')
  const [refill, setRefill] = useState<RefillChoice>('keep')
  const [refillAmount, setRefillAmount] = useState('')
  const [refillDay, setRefillDay] = useState('1')
  const [error, setError] = useState('')
  const [busy, setBusy] = useState(false)

  const send = async (body: ChangeCreditsBody) => {
    setError('')
    setBusy(true)
    try {
      onChanged(await change(body))
    } catch (failure) {
      setError(explain(failure))
    } finally {
      setBusy(false)
    }
  }

  const bodyOf = (): ChangeCreditsBody | string => {
    const value = numberOf(amount)
    if (value === null) return 'Amount: give a whole number of credits.'
    if (op !== 'set') return { op, amount: value }
    if (refill === 'keep') return { op, amount: value }
    if (refill === 'none') return { op, amount: value, refill: null }
    const to = numberOf(refillAmount)
    if (to === null) return 'Refill amount: give a whole number of credits.'
    if (refill === 'daily') return { op, amount: value, refill: { amount: to, interval: 'daily' } }
    const day = numberOf(refillDay)
    if (day === null) return 'Refill day: give a day of the month, 1 to 31.'
    return { op, amount: value, refill: { amount: to, interval: 'monthly', day } }
  }

  const action = OPS.find((choice) => choice.op === op)!.action
  return (
    <Dialog title={`Credits of ${keyInfo.display}`} onClose={onClose}>
      <form
        class="stack"
        noValidate
        onSubmit={(event) => {
          event.preventDefault()
          const body = bodyOf()
          if (typeof body === 'string') setError(body)
          else void send(body)
        }}
      >
        <p>Now: {creditsText(keyInfo)}.</p>
        <label for="credits-op">Change</label>
        <select
          id="credits-op"
          value={op}
          onChange={(event) => {
            setOp(event.currentTarget.value as Op)
            setError('') // a refusal was of the previous choice
          }}
        >
          {OPS.map((choice) => (
            <option key={choice.op} value={choice.op}>
              {choice.label}
            </option>
          ))}
        </select>
        <label for="credits-amount">{op === 'set' ? 'New balance' : 'Credits'}</label>
        <input
          id="credits-amount"
          type="number"
          inputMode="numeric"
          min={op === 'set' ? 0 : 1}
          step={1}
          value={amount}
          onInput={(event) => setAmount(event.currentTarget.value)}
          aria-describedby="credits-error"
        />
        {op === 'set' ? (
          <fieldset class="stack">
            <legend>Refill</legend>
            <label for="credits-refill">Refill rule</label>
            <select
              id="credits-refill"
              value={refill}
              onChange={(event) => setRefill(event.currentTarget.value as RefillChoice)}
            >
              <option value="keep">Keep as it is</option>
              <option value="none">No refill</option>
              <option value="daily">Daily, at 00:00 UTC</option>
              <option value="monthly">Monthly, on a day of the month</option>
            </select>
            {refill === 'daily' || refill === 'monthly' ? (
              <>
                <label for="credits-refill-amount">Refill up to (credits)</label>
                <input
                  id="credits-refill-amount"
                  type="number"
                  inputMode="numeric"
                  min={1}
                  step={1}
                  value={refillAmount}
                  onInput={(event) => setRefillAmount(event.currentTarget.value)}
                />
              </>
            ) : null}
            {refill === 'monthly' ? (
              <>
                <label for="credits-refill-day">
                  Day of the month (1 to 31; past a month's end, its last day)
                </label>
                <input
                  id="credits-refill-day"
                  type="number"
                  inputMode="numeric"
                  min={1}
                  max={31}
                  step={1}
                  value={refillDay}
                  onInput={(event) => setRefillDay(event.currentTarget.value)}
                />
              </>
            ) : null}
          </fieldset>
        ) : null}
        <DialogError id="credits-error">{error}</DialogError>
        <DialogButtons onCancel={onClose}>
          <button type="submit" disabled={busy}>
            {action}
          </button>
          {op === 'set' && limited(keyInfo) ? (
            <button
              type="button"
              class="secondary"
              disabled={busy}
              onClick={() => void send({ op: 'set', amount: null })}
            >
              Make unlimited
            </button>
          ) : null}
        </DialogButtons>
      </form>
    </Dialog>
  )
}
