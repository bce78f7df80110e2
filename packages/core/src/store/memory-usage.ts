import type { KeyKind } from '../key/format.js'
import {
  bucketStart,
  retentionStart,
  USAGE_GRANULARITIES,
  type UsageBucket,
  type UsageCount,
  type UsageGranularity,
  type UsageOutcome,
  type UsageQuery,
  type UsageRetention,
} from './usage.js'

/** One stored count: what a row of PostgreSQL's `key_usage` holds. */
interface UsageRow {
  readonly granularity: UsageGranularity
  readonly start: number
  readonly keyId: string
  readonly ownerType: KeyKind | ''
  readonly ownerId: string
  readonly outcome: UsageOutcome
  readonly route: string
  readonly address: string
  count: number
}

const rowKey = (row: Omit<UsageRow, 'count'>) =>
  [row.granularity, row.start, row.keyId, row.outcome, row.route, row.address].join('\u0000')

const coarser: Readonly<Record<UsageGranularity, UsageGranularity | null>> = {
  minute: 'hour',
  hour: 'day',
  day: null,
}

/**
 * @internal The usage counts of {@link MemoryKeyStore}, by granularity, bucket, key (or route and
 * address) and outcome, rolled and read as PostgreSQL's table is.
 */
export class MemoryUsage {
  readonly #rows = new Map<string, UsageRow>()

  /** Every stored row, for tests that read what was written. */
  rows(): readonly Readonly<UsageRow>[] {
    return [...this.#rows.values()]
  }

  add(counts: readonly UsageCount[]): void {
    for (const c of counts) {
      this.#add({
        granularity: 'minute',
        start: bucketStart(c.minute, 'minute').getTime(),
        keyId: c.key?.id ?? '',
        ownerType: c.key?.ownerType ?? '',
        ownerId: c.key?.ownerId ?? '',
        outcome: c.outcome,
        route: c.route,
        address: c.address,
        count: c.count,
      })
    }
  }

  #add(row: UsageRow): void {
    const key = rowKey(row)
    const current = this.#rows.get(key)
    if (current) current.count += row.count
    else this.#rows.set(key, { ...row })
  }

  read(query: UsageQuery): UsageBucket[] {
    const finest = USAGE_GRANULARITIES.indexOf(query.granularity)
    const keyIds = query.keyIds === undefined ? undefined : new Set(query.keyIds)
    const from = bucketStart(query.from, query.granularity).getTime()
    const to = query.to.getTime()
    const sums = new Map<string, UsageBucket>()
    for (const row of this.#rows.values()) {
      if (
        row.ownerType !== query.owner.type ||
        row.ownerId !== query.owner.id ||
        (query.keyId !== undefined && row.keyId !== query.keyId) ||
        (keyIds !== undefined && !keyIds.has(row.keyId)) ||
        USAGE_GRANULARITIES.indexOf(row.granularity) > finest
      ) {
        continue
      }
      const start = bucketStart(new Date(row.start), query.granularity).getTime()
      if (start < from || start >= to) continue
      const key = `${start}\u0000${row.keyId}\u0000${row.outcome}`
      const sum = sums.get(key)
      sums.set(key, {
        start: new Date(start),
        keyId: row.keyId,
        outcome: row.outcome,
        count: (sum?.count ?? 0) + row.count,
      })
    }
    return [...sums.values()]
      .filter((bucket) => bucket.count !== 0)
      .sort(
        (a, b) =>
          a.start.getTime() - b.start.getTime() || compare(a.keyId, b.keyId) || compare(a.outcome, b.outcome),
      )
  }

  compact(retention: UsageRetention, now: Date, limit: number): number {
    let touched = 0
    for (const granularity of USAGE_GRANULARITIES) {
      const horizon = retentionStart(granularity, now, retention).getTime()
      const into = coarser[granularity]
      let left = limit
      for (const [key, row] of this.#rows) {
        if (left === 0) break
        if (row.granularity !== granularity || row.start >= horizon) continue
        this.#rows.delete(key)
        if (into)
          this.#add({ ...row, granularity: into, start: bucketStart(new Date(row.start), into).getTime() })
        left--
        touched++
      }
    }
    return touched
  }
}

const compare = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0)
