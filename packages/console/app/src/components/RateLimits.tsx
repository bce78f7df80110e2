import { useState } from 'preact/hooks'
import { ApiError, messageOf, type RateLimit } from '../api'
import { limitText, WINDOW_UNITS, type WindowUnit, windowOf } from '../limits'
import { Choice, Field, WholeNumber } from './Fields'
import { numberOf } from './Refill'

/** How many named limits a key or an identity carries at most. */
const MAX_LIMITS = 5

/** A limit as its row of fields holds it: text as typed, the window as an amount of a unit. */
interface Row {
  readonly id: number
  readonly name: string
  readonly limit: string
  readonly amount: string
  readonly unit: WindowUnit
}

// The units of a window, smallest first, as the unit's choice names them.
const UNIT_CHOICES = [...WINDOW_UNITS].reverse().map(({ unit }) => ({ value: unit, label: `${unit}s` }))

// The numbers of a row: how many requests, per how many of the unit.
const NUMBERS = [
  { part: 'limit', label: 'Requests' },
  { part: 'amount', label: 'Per' },
] as const

let rowIds = 0
const rowOf = (limit?: RateLimit): Row => {
  const { amount, unit } = windowOf(limit?.duration ?? 1_000)
  return {
    id: rowIds++,
    name: limit?.name ?? '',
    limit: limit ? String(limit.limit) : '',
    amount: String(amount),
    unit,
  }
}

// The fields of a limit, as a refusal names them.
const FIELDS: Readonly<Record<string, string>> = { name: 'name', limit: 'requests', duration: 'window' }

/**
 * A refusal of named limits in plain words: the server's message after the limit and field it is
 * about (`Limit 2, window: A duration is in milliseconds of whole seconds...`).
 */
export function explainLimits(failure: unknown): string {
  if (!(failure instanceof ApiError)) return messageOf(failure)
  const [where, list, index, field] = failure.loc
  if (where !== 'body' || list !== 'ratelimits' || index === undefined) return failure.message
  const of = field === undefined ? '' : `, ${FIELDS[String(field)] ?? String(field)}`
  return `Limit ${Number(index) + 1}${of}: ${failure.message}`
}

/**
 * Named rate limits as rows of fields (name, requests, and a window of an amount and a unit), up
 * to 5, those of `initial` to edit, else none; `scope` says whose requests they
 * count (an identity's are `shared by every key`). `read()` gives the limits typed (rows left empty
 * dropped), or what to fix in words; the server checks the rest, and {@link explainLimits} says its
 * refusal.
 */
export function useRateLimitFields(
  idPrefix: string,
  initial: readonly RateLimit[] = [],
  scope = 'shared by every key',
) {
  const [rows, setRows] = useState<readonly Row[]>(() => initial.map(rowOf))
  const edit = (id: number, change: Partial<Omit<Row, 'id'>>) =>
    setRows((current) => current.map((row) => (row.id === id ? { ...row, ...change } : row)))

  const read = (): RateLimit[] | { readonly invalid: string } => {
    const limits: RateLimit[] = []
    for (const [i, row] of rows.entries()) {
      if (row.name.trim() === '' && row.limit.trim() === '') continue
      const limit = numberOf(row.limit)
      const amount = numberOf(row.amount)
      if (row.name.trim() === '') return { invalid: `Limit ${i + 1}: give it a name, e.g. requests.` }
      if (limit === null) return { invalid: `Limit ${i + 1}: give the number of requests it allows.` }
      if (amount === null) return { invalid: `Limit ${i + 1}: give the length of its window.` }
      const ms = WINDOW_UNITS.find((each) => each.unit === row.unit)!.ms
      limits.push({ name: row.name.trim(), limit, duration: Math.round(amount * ms) })
    }
    return limits
  }
  const clear = () => setRows([])

  const fields = (
    <fieldset class="stack">
      <legend>Rate limits</legend>
      <p class="hint">
        Up to {MAX_LIMITS}, each a number of requests per window of 1 second to 1 day, {scope}.
      </p>
      {rows.map((row, i) => {
        const id = `${idPrefix}-limit-${row.id}`
        return (
          <fieldset class="limit-row" key={row.id}>
            <legend>Limit {i + 1}</legend>
            <Field id={`${id}-name`} label="Name" wide="field-name">
              <input
                id={`${id}-name`}
                maxLength={64}
                value={row.name}
                placeholder="requests"
                autoComplete="off"
                onInput={(event) => edit(row.id, { name: event.currentTarget.value })}
              />
            </Field>
            {NUMBERS.map(({ part, label }) => (
              <Field key={part} id={`${id}-${part}`} label={label}>
                <WholeNumber
                  id={`${id}-${part}`}
                  value={row[part]}
                  onInput={(text) => edit(row.id, { [part]: text })}
                />
              </Field>
            ))}
            <Field id={`${id}-unit`} label="Unit" wide="field-unit">
              <Choice
                id={`${id}-unit`}
                value={row.unit}
                choices={UNIT_CHOICES}
                onChange={(unit) => edit(row.id, { unit })}
              />
            </Field>
            <button
              type="button"
              class="secondary"
              onClick={() => setRows((current) => current.filter((other) => other.id !== row.id))}
            >
              Remove<span class="visually-hidden"> limit {i + 1}</span>
            </button>
          </fieldset>
        )
      })}
      {rows.length < MAX_LIMITS ? (
        <p>
          <button type="button" class="secondary" onClick={() => setRows((current) => [...current, rowOf()])}>
            Add a limit
          </button>
        </p>
      ) : (
        <p class="hint">{MAX_LIMITS} limits: the most a key or an identity carries.</p>
      )}
    </fieldset>
  )
  return { fields, read, clear }
}

/** Named rate limits as a term of a page's list of facts: each in words, or `none`. */
export function LimitsFact({ limits }: { limits: readonly RateLimit[] }) {
  return (
    <>
      <dt>Rate limits</dt>
      <dd>
        {limits.length === 0 ? (
          'none'
        ) : (
          <ul class="plain">
            {limits.map((limit) => (
              <li key={limit.name} class="mono">
                {limitText(limit)}
              </li>
            ))}
          </ul>
        )}
      </dd>
    </>
  )
}
