// Named rate limits in words, and their windows as an amount of a unit, as the pages show them.

/** A named limit: `limit` requests per `duration` milliseconds. */
export interface NamedLimit {
  readonly name: string
  readonly limit: number
  readonly duration: number
}

/** The units a limit's window is told in, largest first, with how many milliseconds each holds. */
export const WINDOW_UNITS = [
  { unit: 'day', ms: 86_400_000 },
  { unit: 'hour', ms: 3_600_000 },
  { unit: 'minute', ms: 60_000 },
  { unit: 'second', ms: 1_000 },
] as const
export type WindowUnit = (typeof WINDOW_UNITS)[number]['unit']

const count = (value: number) => value.toLocaleString('en-US')

/** A window as an amount of the largest unit it is a whole number of: 90 s is 90 seconds, 120 s 2 minutes. */
export function windowOf(ms: number): { readonly amount: number; readonly unit: WindowUnit } {
  const { unit, ms: size } = WINDOW_UNITS.find((each) => ms % each.ms === 0) ?? WINDOW_UNITS[3]
  return { amount: ms / size, unit }
}

/** One limit in words: `requests: 10 per second`, `burst: 20 per 10 seconds`. */
export function limitText({ name, limit, duration }: NamedLimit): string {
  const { amount, unit } = windowOf(duration)
  return `${name}: ${count(limit)} per ${amount === 1 ? unit : `${count(amount)} ${unit}s`}`
}

/** Named limits in a few words, for a list: the first, and how many more; `none` without. */
export function limitsSummary(limits: readonly NamedLimit[]): string {
  if (limits.length === 0) return 'none'
  const first = limitText(limits[0]!)
  return limits.length === 1 ? first : `${first} +${limits.length - 1} more`
}
