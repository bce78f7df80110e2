import { useState } from 'preact/hooks'
import {
  ApiError,
  type ApiKeyInfo,
  type ChangeCreditsBody,
  type Identity,
  type KeyInfo,
  messageOf,
} from '../api'
import { Dialog, DialogButtons, DialogError, DialogForm, useDialogWork } from './Dialog'
import { Choice, WholeNumber } from './Fields'
import { numberOf, useRefillFields } from './Refill'

type Op = ChangeCreditsBody['op']

/**
 * What holds credits: an API key (its own), or an identity (the pool its keys share). A developer
 * key holds none: it is unlimited.
 */
export type CreditHolder = KeyInfo | Identity

/** Whose credits a dialog changes: a key's, or an identity's pool. */
type Holder = 'key' | 'identity'

const OPS: readonly { value: Op; label: string; action: string }[] = [
  { value: 'add', label: 'Add credits', action: 'Add' },
  { value: 'subtract', label: 'Subtract credits', action: 'Subtract' },
  { value: 'set', label: 'Set the balance', action: 'Set balance' },
]

// The fields of the credit endpoint's body, as the dialog names them.
const FIELDS: Readonly<Record<string, string>> = {
  'body.amount': 'Amount',
  'body.refill': 'Refill',
  'body.refill.amount': 'Refill amount',
  'body.refill.interval': 'Refill interval',
  'body.refill.day': 'Refill day',
}

// What adding to or subtracting from a holder without a limit means to the reader.
const NO_LIMIT: Readonly<Record<Holder, string>> = {
  key: 'This key has unlimited credits: nothing can be added or subtracted. Choose “Set the balance” to give it a limit first.',
  identity:
    'This identity has no credit pool: nothing can be added or subtracted. Choose “Set the balance” to give it one first.',
}

/** Whether a holder has a credit limit (an API key with credits, an identity with a pool). */
const limited = (holder: CreditHolder): holder is (ApiKeyInfo | Identity) & { readonly remaining: number } =>
  'remaining' in holder && holder.remaining != null

/**
 * Credits in a few words: `1500, refills to 2000 monthly on day 1`, or `none` (`unlimited` for a
 * key, which spends without a limit; an identity says `no pool`).
 */
export function creditsText(holder: CreditHolder, none = 'unlimited'): string {
  if (!limited(holder)) return none
  const refill = holder.refill
  if (!refill) return String(holder.remaining)
  const when = refill.interval === 'daily' ? 'daily' : `monthly on day ${refill.day ?? 1}`
  return `${holder.remaining}, refills to ${refill.amount} ${when}`
}

/**
 * A refusal in plain words: the server's message, after the field it is about when the message
 * does not say (`Refill day: Input should be less than or equal to 31.`).
 */
function explain(failure: unknown, holder: Holder): string {
  if (!(failure instanceof ApiError)) return messageOf(failure)
  // Adding to or subtracting from a holder without a limit: the API names its `op`, the reader a choice.
  if (failure.status === 422 && failure.type === 'value_error' && failure.loc.join('.') === 'body.op') {
    return NO_LIMIT[holder]
  }
  const generic = /^(Input should|Field required)/.test(failure.message)
  const field = failure.status === 422 && generic ? FIELDS[failure.loc.join('.')] : undefined
  return field ? `${field}: ${failure.message}` : failure.message
}

/**
 * Sets, adds to or subtracts from the credits of an API key or the pool of an identity (`holder`
 * says which); a `set` may change the refill too. The server's refusals (a subtraction below
 * zero, an amount or refill day out of range) are shown in the dialog, which stays open;
 * `onChanged` gets the holder as it is after a change.
 */
export function CreditsDialog<T extends CreditHolder>({
  title,
  holder = 'key',
  credits,
  change,
  onClose,
  onChanged,
}: {
  title: string
  holder?: Holder
  credits: T
  change: (body: ChangeCreditsBody) => Promise<T>
  onClose: () => void
  onChanged: (updated: T) => void
}) {
  // A holder without a limit can only be given one: adding or subtracting is refused.
  const [op, setOp] = useState<Op>(limited(credits) ? 'add' : 'set')
  const [amount, setAmount] = useState('')
  const refill = useRefillFields('credits', true)
  const { error, setError, busy, run } = useDialogWork((failure) => explain(failure, holder))
  const send = (body: ChangeCreditsBody) => run(async () => onChanged(await change(body)))

  const bodyOf = (): ChangeCreditsBody | string => {
    const value = numberOf(amount)
    if (value === null) return 'Amount: give a whole number of credits.'
    if (op !== 'set') return { op, amount: value }
    const rule = refill.read()
    if (rule === undefined) return { op, amount: value }
    if (rule !== null && 'invalid' in rule) return rule.invalid
    return { op, amount: value, refill: rule }
  }

  const action = OPS.find((choice) => choice.value === op)!.action
  return (
    <Dialog title={title} onClose={onClose}>
      <DialogForm read={bodyOf} send={send} refuse={setError}>
        <p>Now: {creditsText(credits, holder === 'key' ? 'unlimited' : 'no pool')}.</p>
        <label for="credits-op">Change</label>
        <Choice
          id="credits-op"
          value={op}
          choices={OPS}
          onChange={(chosen) => {
            setOp(chosen)
            setError('') // a refusal was of the previous choice
          }}
        />
        <label for="credits-amount">{op === 'set' ? 'New balance' : 'Credits'}</label>
        <WholeNumber
          id="credits-amount"
          min={op === 'set' ? 0 : 1}
          value={amount}
          onInput={setAmount}
          describedBy="credits-error"
        />
        {op === 'set' ? refill.fields : null}
        <DialogError id="credits-error">{error}</DialogError>
        <DialogButtons onCancel={onClose}>
          <button type="submit" disabled={busy}>
            {action}
          </button>
          {op === 'set' && limited(credits) ? (
            <button
              type="button"
              class="secondary"
              disabled={busy}
              onClick={() => void send({ op: 'set', amount: null })}
            >
              {holder === 'key' ? 'Make unlimited' : 'Remove the pool'}
            </button>
          ) : null}
        </DialogButtons>
      </DialogForm>
    </Dialog>
  )
}

/** A low-credits threshold as the API shapes it: credits, or a percent of the refill amount. */
export type LowAt = NonNullable<Identity['credits_low_at']>

/**
 * The low-credits threshold in a few words: `at 500 credits`, `at 10% of the refill (100
 * credits)`, or `none`.
 */
export function lowAtText(holder: CreditHolder): string {
  const lowAt = 'credits_low_at' in holder ? holder.credits_low_at : null
  if (!lowAt) return 'none'
  if ('remaining' in lowAt) return `at ${lowAt.remaining} credits`
  const refill = 'refill' in holder ? holder.refill : null
  const credits = refill ? ` (${Math.floor((refill.amount * lowAt.percent) / 100)} credits)` : ''
  return `at ${lowAt.percent}% of the refill${credits}`
}

/** The threshold typed in the dialog: `N` credits, `P%` of the refill amount; else what is wrong. */
function lowAtOf(text: string): LowAt | string {
  const match = /^\s*(\d{1,13})\s*(%?)\s*$/.exec(text)
  if (!match) return 'Threshold: give a whole number of credits, or a percent such as 10%.'
  return match[2] === '%' ? { percent: Number(match[1]) } : { remaining: Number(match[1]) }
}

/**
 * A threshold's refusal in plain words: the server's message, after "Threshold" when it is
 * about the threshold's field.
 */
function explainLowAt(failure: unknown): string {
  if (!(failure instanceof ApiError)) return messageOf(failure)
  const about = failure.status === 422 && failure.loc.slice(0, 2).join('.') === 'body.credits_low_at'
  return about ? `Threshold: ${failure.message}` : failure.message
}

/**
 * Sets or removes the low-credits threshold of an API key or of an identity's pool: the webhook
 * event `credits.low` is sent once per refill period when the balance falls to it. The server
 * checks it against the credits (a threshold needs a limit; a percent, a refill rule): its
 * refusal is shown in the dialog, which stays open.
 */
export function LowAtDialog<T extends CreditHolder>({
  title,
  credits,
  save,
  onClose,
  onSaved,
}: {
  title: string
  credits: T
  save: (lowAt: LowAt | null) => Promise<T>
  onClose: () => void
  onSaved: (updated: T) => void
}) {
  const current = 'credits_low_at' in credits ? credits.credits_low_at : null
  const [text, setText] = useState(
    current ? ('remaining' in current ? String(current.remaining) : `${current.percent}%`) : '',
  )
  const { error, setError, busy, run } = useDialogWork(explainLowAt)
  const send = (lowAt: LowAt | null) => run(async () => onSaved(await save(lowAt)))
  return (
    <Dialog title={title} onClose={onClose}>
      <DialogForm read={() => lowAtOf(text)} send={send} refuse={setError}>
        <p>
          Credits: {creditsText(credits, 'none')}. Low: {lowAtText(credits)}.
        </p>
        <label for="low-at">Low at (credits, or a percent of the refill such as 10%)</label>
        <input
          id="low-at"
          value={text}
          onInput={(event) => setText(event.currentTarget.value)}
          aria-describedby="low-at-error"
        />
        <DialogError id="low-at-error">{error}</DialogError>
        <DialogButtons onCancel={onClose}>
          <button type="submit" disabled={busy}>
            Save threshold
          </button>
          {current ? (
            <button type="button" class="secondary" disabled={busy} onClick={() => void send(null)}>
              Remove threshold
            </button>
          ) : null}
        </DialogButtons>
      </DialogForm>
    </Dialog>
  )
}
