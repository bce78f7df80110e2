import type { KeyKind } from '../key/format.js'
import type { KeyStore } from '../store/types.js'
import { USAGE_OUTCOMES, type UsageCount, type UsageOutcome, type UsageRetention } from '../store/usage.js'
import type { KeywardEvent } from './events.js'

/** @internal What the service gives the usage counter. */
export interface UsageCountsOptions {
  readonly store: KeyStore & Required<Pick<KeyStore, 'recordUsage'>>
  readonly emit: (event: KeywardEvent) => void
  readonly clock: () => number
  /**
   * Read the clock at every count (a clock the host gave, in tests). Otherwise the minute changes
   * on a timer at its end, so that a count reads no clock: a count made while the timer is late
   * (an event loop that lags) goes to the minute before.
   */
  readonly exactClock: boolean
  readonly flushIntervalMs: number
  readonly compactIntervalMs: number
  readonly retention: UsageRetention
}

/** A key as usage counts it: its id and owner, and its prefix (for a report of what a stop could not write). */
export interface CountedKey {
  readonly id: string
  readonly keyPrefix: string
  readonly ownerType: KeyKind
  readonly ownerId: string
}

/**
 * @internal Usage counts that a clean stop could not write: their sum (`count`, keyless refusals
 * included), and each key's share by prefix, the largest first.
 */
export interface StrandedUsage {
  readonly count: number
  readonly keys: readonly { readonly keyId: string; readonly keyPrefix: string; readonly count: number }[]
}

/**
 * What the usage counter has done, for metrics: verifications counted since the start, by
 * outcome (`totals`), counts not yet written (`pending` rows), when the last flush succeeded
 * (`lastFlushAt`, ms of the service's clock; `null` before the first), and how many flushes failed.
 */
export interface UsageCountsStats {
  readonly totals: Readonly<Record<UsageOutcome, number>>
  readonly pending: number
  readonly lastFlushAt: number | null
  readonly failedFlushes: number
}

/** @internal Usage counts, per minute, key and outcome, kept in memory and written in batches. */
export interface UsageCounts {
  /** Counts one verification of a known key: synchronous, allocation-free for a key seen this minute. */
  count(key: CountedKey, outcome: number): void
  /** Moves one count of `key` from one outcome to another (an accepted key then refused by its rate limit). */
  move(key: CountedKey, from: number, to: number): void
  /** Counts a refusal of no known key, by route and client address. */
  refusedUnknown(outcome: 'unknown' | 'malformed', route: string, address: string): void
  /** Writes every count held now; resolves once written (or reported as failed). */
  flush(): Promise<void>
  /**
   * Stops the timers and writes every count held now, retrying for `retryForMs` while the store
   * fails; resolves with what it could not write, or `null` when everything was written.
   */
  close(retryForMs?: number): Promise<StrandedUsage | null>
  stats(): UsageCountsStats
}

/** @internal The index of each outcome in a key's counters. */
export const OUTCOME: Readonly<Record<UsageOutcome, number>> = Object.fromEntries(
  USAGE_OUTCOMES.map((outcome, i) => [outcome, i]),
) as Record<UsageOutcome, number>

const MINUTE_MS = 60_000
// Rows per statement.
const BATCH = 1000
// Compaction: rows per step, and steps per run (a run touches at most 50,000 rows of each kind).
const COMPACT_BATCH = 1000
const COMPACT_STEPS = 50
// Distinct routes and addresses of refusals without a key, per minute: a flood from many addresses
// is counted under the address `other` past it, so that memory stays bounded.
const MAX_UNKNOWN_SOURCES = 10_000
// Counts kept for a retry while the store fails; past it the oldest are dropped (and reported).
const MAX_RETRY_ROWS = 100_000

interface SourceCounts {
  readonly route: string
  readonly address: string
  readonly counts: number[]
}

interface Minute {
  readonly minute: number
  /** Counters by key id: one map read and one array to touch per count. */
  readonly keys: Map<string, number[]>
  readonly sources: Map<string, SourceCounts>
}

// A packed array of small integers: the fastest kind to increment.
const zeros = (): number[] => USAGE_OUTCOMES.map(() => 0)

/** Sums rows by key: what a stop reports of the counts it could not write. */
function stranded(rows: readonly UsageCount[]): StrandedUsage {
  const keys = new Map<string, { keyId: string; keyPrefix: string; count: number }>()
  let count = 0
  for (const row of rows) {
    count += row.count
    if (row.key === null) continue
    const { id, keyPrefix } = row.key as CountedKey
    const entry = keys.get(id) ?? { keyId: id, keyPrefix, count: 0 }
    entry.count += row.count
    keys.set(id, entry)
  }
  return { count, keys: [...keys.values()].sort((a, b) => b.count - a.count) }
}

/**
 * @internal Counts verifications per minute, key and outcome in memory (a map read and an
 * increment on the hot path), and writes them with `store.recordUsage` every flush interval, on
 * an unref'd timer armed by the first count after a flush, in batches of one row per minute, key and outcome. A failed write is kept for
 * the next flush. A clean stop (`close`) writes everything; a crash loses what was counted since
 * the last flush.
 */
export function createUsageCounts(options: UsageCountsOptions): UsageCounts {
  const { store, emit, clock, exactClock, flushIntervalMs, compactIntervalMs, retention } = options
  let current: Minute = { minute: -1, keys: new Map(), sources: new Map() }
  // The keys counted since the last flush, by id: their owners, for the rows.
  const counted = new Map<string, CountedKey>()
  const sealed: Minute[] = []
  let retry: UsageCount[] = []
  let timer: unknown
  // Set while the current minute is known to go on: its end clears it.
  let rollover: unknown
  let closed = false
  let writing: Promise<void> = Promise.resolve()
  let lastFlushAt: number | null = null
  let failedFlushes = 0
  let lastCompaction = Number.NEGATIVE_INFINITY
  let compacting: Promise<void> | undefined
  // The counts taken from memory for writing since the start, by outcome (for `stats`).
  const taken = zeros()

  function arm(): void {
    timer = setTimeout(() => {
      timer = undefined
      void flush()
    }, flushIntervalMs)
    ;(timer as { unref?: () => void }).unref?.()
  }

  // The counters of this minute; at a new minute, the last one is sealed for the next flush.
  function minuteNow(): Minute {
    // The first count after a flush arms the next one: an idle service holds no timer.
    if (timer === undefined && !closed) arm()
    if (rollover !== undefined) return current
    const now = clock()
    const minute = Math.floor(now / MINUTE_MS)
    if (minute !== current.minute) {
      if (current.keys.size > 0 || current.sources.size > 0) sealed.push(current)
      current = { minute, keys: new Map(), sources: new Map() }
    }
    if (!exactClock && !closed) {
      rollover = setTimeout(
        () => {
          rollover = undefined
        },
        (minute + 1) * MINUTE_MS - now,
      )
      ;(rollover as { unref?: () => void }).unref?.()
    }
    return current
  }

  function countsOf(key: CountedKey): number[] {
    const { keys } = minuteNow()
    const entry = keys.get(key.id)
    if (entry !== undefined) return entry
    const counts = zeros()
    keys.set(key.id, counts)
    const { id, keyPrefix, ownerType, ownerId } = key
    counted.set(key.id, { id, keyPrefix, ownerType, ownerId })
    return counts
  }

  function rowsOf(minute: Minute, rows: UsageCount[]): void {
    const at = new Date(minute.minute * MINUTE_MS)
    for (const [id, counts] of minute.keys) {
      const key = counted.get(id)!
      for (let i = 0; i < counts.length; i++) {
        const count = counts[i]!
        taken[i]! += count
        if (count !== 0)
          rows.push({ minute: at, key, outcome: USAGE_OUTCOMES[i]!, count, route: '', address: '' })
      }
    }
    for (const { route, address, counts } of minute.sources.values()) {
      for (let i = 0; i < counts.length; i++) {
        const count = counts[i]!
        taken[i]! += count
        if (count !== 0)
          rows.push({ minute: at, key: null, outcome: USAGE_OUTCOMES[i]!, count, route, address })
      }
    }
  }

  // Everything counted so far, as rows, and the counters emptied (the minute goes on).
  function take(): UsageCount[] {
    const rows = retry
    retry = []
    for (const minute of sealed) rowsOf(minute, rows)
    sealed.length = 0
    if (current.keys.size > 0 || current.sources.size > 0) {
      rowsOf(current, rows)
      current = { minute: current.minute, keys: new Map(), sources: new Map() }
    }
    counted.clear()
    return rows
  }

  // `quiet` for the retries of a stop: their failures are reported once, as what was stranded.
  async function write(rows: UsageCount[], quiet = false): Promise<void> {
    let failed: UsageCount[] = []
    for (let i = 0; i < rows.length; i += BATCH) {
      const batch = rows.slice(i, i + BATCH)
      try {
        await store.recordUsage(batch)
      } catch (error) {
        // Never changes a verification: report, and keep the counts for the next flush.
        failed = failed.concat(batch)
        if (!quiet) emit({ type: 'store.error', operation: 'recordUsage', error })
      }
    }
    if (failed.length === 0) {
      lastFlushAt = clock()
      return
    }
    failedFlushes++
    retry = failed.concat(retry)
    if (timer === undefined && !closed) arm()
    if (retry.length > MAX_RETRY_ROWS) {
      const dropped = retry.length - MAX_RETRY_ROWS
      retry = retry.slice(dropped)
      emit({
        type: 'store.error',
        operation: 'recordUsage',
        error: new Error(`${dropped} usage counts were dropped: the store failed for too long.`),
      })
    }
  }

  function flush(quiet = false): Promise<void> {
    writing = writing.then(async () => {
      const rows = take()
      if (rows.length > 0) await write(rows, quiet)
      if (!closed && store.compactUsage && clock() - lastCompaction >= compactIntervalMs) compactLater()
    })
    return writing
  }

  // Compaction runs beside the flushes, in bounded steps, and stops at `close`.
  function compactLater(): void {
    if (compacting) return
    lastCompaction = clock()
    compacting = (async () => {
      try {
        for (let step = 0; step < COMPACT_STEPS && !closed; step++) {
          const touched = await store.compactUsage!(retention, new Date(clock()), COMPACT_BATCH)
          if (touched < COMPACT_BATCH) break
        }
      } catch (error) {
        emit({ type: 'store.error', operation: 'compactUsage', error })
      } finally {
        compacting = undefined
      }
    })()
  }

  return {
    count(key, outcome) {
      // The hot path: a key counted this minute, both timers armed (a flush due, the minute going on).
      if (rollover !== undefined && timer !== undefined) {
        const counts = current.keys.get(key.id)
        if (counts !== undefined) {
          counts[outcome]!++
          return
        }
      }
      countsOf(key)[outcome]!++
    },
    move(key, from, to) {
      const counts = countsOf(key)
      counts[from]!--
      counts[to]!++
    },
    refusedUnknown(outcome, route, address) {
      const { sources } = minuteNow()
      let id = `${route}\u0000${address}`
      let entry = sources.get(id)
      if (entry === undefined && sources.size >= MAX_UNKNOWN_SOURCES) {
        id = `${route}\u0000other`
        entry = sources.get(id)
        address = 'other'
      }
      if (entry === undefined) {
        entry = { route, address, counts: zeros() }
        sources.set(id, entry)
      }
      entry.counts[OUTCOME[outcome]]!++
    },
    flush: () => flush(),
    async close(retryForMs = 0) {
      closed = true
      if (timer !== undefined) clearTimeout(timer)
      if (rollover !== undefined) clearTimeout(rollover)
      timer = undefined
      rollover = undefined
      await flush()
      await compacting
      const deadline = Date.now() + retryForMs
      for (
        let wait = 100;
        retry.length > 0 && Date.now() + wait <= deadline;
        wait = Math.min(1000, wait * 2)
      ) {
        await new Promise<void>((resolve) => setTimeout(resolve, wait))
        await flush(true)
      }
      return retry.length === 0 ? null : stranded(retry)
    },
    stats() {
      // What was taken for writing, and what memory holds: the counters are summed here, at a
      // scrape, so that a count costs one increment.
      const totals = [...taken]
      let pending = retry.length
      for (const minute of [...sealed, current]) {
        pending += minute.keys.size + minute.sources.size
        for (const counts of [
          ...minute.keys.values(),
          ...[...minute.sources.values()].map((s) => s.counts),
        ]) {
          for (let i = 0; i < counts.length; i++) totals[i]! += counts[i]!
        }
      }
      const byOutcome = Object.fromEntries(USAGE_OUTCOMES.map((o, i) => [o, totals[i]!]))
      return { totals: byOutcome as Record<UsageOutcome, number>, pending, lastFlushAt, failedFlushes }
    },
  }
}
