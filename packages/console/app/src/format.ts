const dateTime = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' })
const relative = new Intl.RelativeTimeFormat('en', { numeric: 'auto' })

/** An instant as the reader's locale writes it; `fallback` when there is none. */
export function when(value: string | null | undefined, fallback = '—'): string {
  return value ? dateTime.format(new Date(value)) : fallback
}

// The units a relative time is told in, each with how many milliseconds it holds, largest first.
const UNITS: readonly [Intl.RelativeTimeFormatUnit, number][] = [
  ['year', 365 * 86_400_000],
  ['month', 30 * 86_400_000],
  ['week', 7 * 86_400_000],
  ['day', 86_400_000],
  ['hour', 3_600_000],
  ['minute', 60_000],
]

/**
 * An instant relative to `now`, in words: `just now` within a minute, else `5 minutes ago`,
 * `in 3 days`, `last month` (the largest unit that holds it at least once, rounded down);
 * `fallback` when there is none.
 */
export function ago(value: string | null | undefined, fallback = '—', now = Date.now()): string {
  if (!value) return fallback
  const delta = Date.parse(value) - now
  if (Number.isNaN(delta)) return fallback
  const size = Math.abs(delta)
  const unit = UNITS.find(([, ms]) => size >= ms)
  if (!unit) return 'just now'
  const count = Math.floor(size / unit[1])
  return relative.format(delta < 0 ? -count : count, unit[0])
}

/** How a key stands now, in words (never a colour alone). */
export function keyStatus(
  key: {
    active: boolean
    expires_at?: string | null
    revoked_reason?: string | null
  },
  now = Date.now(),
): { label: string; tone: 'ok' | 'warn' | 'off' } {
  if (!key.active) {
    return key.revoked_reason === 'leaked'
      ? { label: 'Revoked: leaked', tone: 'off' }
      : { label: 'Revoked', tone: 'off' }
  }
  if (key.expires_at && Date.parse(key.expires_at) <= now) return { label: 'Expired', tone: 'off' }
  if (key.expires_at) return { label: `Active, expires ${ago(key.expires_at, '', now)}`, tone: 'warn' }
  return { label: 'Active', tone: 'ok' }
}

/**
 * The grace periods a roll offers (a choice's value is its seconds), up to `most` seconds; `none`
 * says what the first, none, means.
 */
export function graceChoices(none: string, most = 30 * 86_400): readonly { value: string; label: string }[] {
  return [
    { seconds: 0, label: `None: ${none}` },
    { seconds: 3_600, label: '1 hour' },
    { seconds: 86_400, label: '24 hours' },
    { seconds: 7 * 86_400, label: '7 days' },
    { seconds: 30 * 86_400, label: '30 days' },
  ]
    .filter((choice) => choice.seconds <= most)
    .map((choice) => ({ value: String(choice.seconds), label: choice.label }))
}

/** An offset-bearing instant from a `datetime-local` value, read in the reader's time zone. */
export function instantOf(local: string): string | null {
  const time = new Date(local)
  return Number.isNaN(time.getTime()) ? null : time.toISOString()
}

/** A list in one line: its first `first` (two), and how many more; `none` for an empty one. */
export function summary(items: readonly string[], none: string, first = 2): string {
  if (items.length === 0) return none
  const shown = items.slice(0, first).join(', ')
  return items.length > first ? `${shown} +${items.length - first} more` : shown
}
