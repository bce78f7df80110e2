// Usage counts as the charts show them: a range of buckets, each with its accepted and refused
// verifications, from the rows of the API's usage endpoints (which leave out empty buckets).

/** The size of a bucket, as the usage endpoints take it. */
export type Granularity = 'minute' | 'hour' | 'day'

/** A span of time a chart shows: how many buckets of which size, up to the current one. */
export interface UsageRange {
  readonly id: string
  readonly label: string
  readonly granularity: Granularity
  readonly buckets: number
}

export const USAGE_RANGES: readonly UsageRange[] = [
  { id: '24h', label: 'Last 24 hours', granularity: 'hour', buckets: 24 },
  { id: '7d', label: 'Last 7 days', granularity: 'hour', buckets: 7 * 24 },
  { id: '30d', label: 'Last 30 days', granularity: 'day', buckets: 30 },
]

const STEP_MS: Readonly<Record<Granularity, number>> = { minute: 60_000, hour: 3_600_000, day: 86_400_000 }

/** The range's `from` and `to` at `now`: `to` is the end of the current bucket (buckets are in UTC). */
export function rangeAt(range: UsageRange, now: number): { from: Date; to: Date } {
  const step = STEP_MS[range.granularity]
  const to = Math.ceil((now + 1) / step) * step
  return { from: new Date(to - range.buckets * step), to: new Date(to) }
}

/** One row of a usage answer. */
export interface UsageRow {
  readonly start: string
  readonly outcome: string
  readonly count: number
}

/** The buckets of a range as a chart draws them: starts in seconds, and the counts of each. */
export interface UsageSeries {
  readonly starts: number[]
  readonly accepted: number[]
  readonly refused: number[]
  readonly total: { readonly accepted: number; readonly refused: number }
}

/**
 * Every bucket from `from` to `to`, empty ones as 0: `accepted` counts accepted verifications,
 * `refused` every other outcome (an inactive, expired or wrong key, a policy, a limit).
 */
export function usageSeries(
  rows: readonly UsageRow[],
  from: Date,
  to: Date,
  granularity: Granularity,
): UsageSeries {
  const step = STEP_MS[granularity]
  const count = Math.max(0, Math.ceil((to.getTime() - from.getTime()) / step))
  const starts = Array.from({ length: count }, (_, i) => (from.getTime() + i * step) / 1000)
  const accepted = new Array<number>(count).fill(0)
  const refused = new Array<number>(count).fill(0)
  for (const row of rows) {
    const index = Math.floor((Date.parse(row.start) - from.getTime()) / step)
    if (!(index >= 0 && index < count)) continue
    if (row.outcome === 'accepted') accepted[index]! += row.count
    else refused[index]! += row.count
  }
  const sum = (values: number[]) => values.reduce((total, value) => total + value, 0)
  return { starts, accepted, refused, total: { accepted: sum(accepted), refused: sum(refused) } }
}
