// Form controls the pages share: a whole number, a choice among a few, a search, a labelled field.
import type { ComponentChildren } from 'preact'

/** A field of a whole number (credits, requests, a day of the month); the server refuses what is not one. */
export function WholeNumber({
  id,
  value,
  onInput,
  min = 1,
  max,
  describedBy,
}: {
  id: string
  value: string
  onInput: (text: string) => void
  min?: number
  max?: number
  describedBy?: string
}) {
  return (
    <input
      id={id}
      type="number"
      inputMode="numeric"
      min={min}
      max={max}
      step={1}
      value={value}
      onInput={(event) => onInput(event.currentTarget.value)}
      aria-describedby={describedBy}
    />
  )
}

/** A choice among a few, each a value and the words that name it. */
export function Choice<T extends string>({
  id,
  value,
  choices,
  onChange,
}: {
  id: string
  value: T
  choices: readonly { readonly value: T; readonly label: string }[]
  onChange: (value: T) => void
}) {
  return (
    <select id={id} value={value} onChange={(event) => onChange(event.currentTarget.value as T)}>
      {choices.map((choice) => (
        <option key={choice.value} value={choice.value}>
          {choice.label}
        </option>
      ))}
    </select>
  )
}

/** A search (the page's `search` landmark): its fields in a row, `onSearch` when it is submitted. */
export function SearchForm({ onSearch, children }: { onSearch: () => void; children: ComponentChildren }) {
  return (
    <search>
      <form
        class="inline-form search-form"
        onSubmit={(event) => {
          event.preventDefault()
          onSearch()
        }}
      >
        {children}
      </form>
    </search>
  )
}

/** A control with its label above it, one of a row of fields. */
export function Field({
  id,
  label,
  wide = '',
  children,
}: {
  id: string
  label: string
  /** `field-name`, `field-unit`: a field that takes more of the row. */
  wide?: string
  children: ComponentChildren
}) {
  return (
    <span class={`field ${wide}`.trim()}>
      <label for={id}>{label}</label>
      {children}
    </span>
  )
}
