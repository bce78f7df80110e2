import { isImportedKey } from '../key/foreign.js'
import type { KeyRecord, KeyStore, KeyUse } from '../store/types.js'
import type { UsageBucket, UsageQuery, UsageRetention } from '../store/usage.js'
import type { KeywardEvent } from './events.js'
import { DAY_MS } from './lifecycle.js'
import type { StoreCall } from './types.js'
import type { UsageCounts, UsageCountsStats } from './usage-counts.js'

/** @internal The usage's part of the key service's interface (`Keyward`): uses and counts of keys. */
export interface KeywardUsage {
  /** Writes the pending `lastUsedAt` uses now. Call it before closing the store. */
  flushLastUsed(): Promise<void>
  /**
   * How long usage counts are kept (option `usage.retention`), or `null` when the service counts
   * no usage (option `usage: false`, or a store without `recordUsage`).
   */
  readonly usageRetention: UsageRetention | null
  /**
   * The usage of an owner's keys, summed per bucket, key and outcome (see `KeyStore.readUsage`).
   * Counts still held in memory are not in it: call {@link Keyward.flushUsage} first to see them.
   * Throws a `TypeError` when the store does not implement `readUsage`.
   *
   * @example
   * ```ts
   * const rows = await keyward.readUsage({ owner: { type: 'project', id: projectId }, granularity: 'hour', from, to })
   * ```
   */
  readUsage(query: UsageQuery): Promise<UsageBucket[]>
  /** Writes the usage counts held in memory now. */
  flushUsage(): Promise<void>
  /** What the usage counter holds and has written, for metrics; `null` without usage counts. */
  usageStats(): UsageCountsStats | null
}

/** @internal What the service gives the usage tracker. */
export interface UsageOptions {
  readonly store: KeyStore
  readonly emit: (event: KeywardEvent) => void
  /** Whether the host listens to events at all: without a hook, no event is built. */
  readonly listening: boolean
  /** Record `last_used_at`; `false` turns it off. */
  readonly track: boolean
  /** A key's `last_used_at` is written at most once per interval per process. */
  readonly intervalMs: number
  /** Keys older than this are due for rotation. */
  readonly rotationPeriodMs: number
  /** The service's clock, in milliseconds. */
  readonly clock: () => number
}

/** @internal Uses of keys, after authentication succeeded. */
export interface Usage {
  /** Notes a successful use: cheap, synchronous, never throws, never awaits the store. */
  used(record: KeyRecord): void
  /** Writes what is pending now (and forgets the writes older than the interval). */
  flush(): Promise<void>
}

// The first use after a start is written within this delay; later ones are batched with it.
const FLUSH_DELAY_MS = 10_000
// Rows per statement.
const BATCH = 500

/**
 * @internal Records `last_used_at` off the hot path (debounced per key, batched, on a timer)
 * and reports the use of a key due for rotation, at most once per key per day.
 */
export function createUsage(options: UsageOptions): Usage {
  const { store, emit, listening, track, intervalMs, rotationPeriodMs, clock } = options
  const flushDelayMs = Math.min(FLUSH_DELAY_MS, intervalMs)
  // When each key's use was last queued, by id. The hot path only asks whether a key is here,
  // which needs no clock; a sweep drops the entries older than the interval (every quarter
  // interval while there are any, and at each flush), so a key is written again 1 to 1.25
  // intervals after its last write, never sooner.
  const queued = new Map<string, number>()
  let sweeper: unknown
  const dueReported = new Map<string, number>()
  let pending: KeyUse[] = []
  let timer: unknown
  let writing: Promise<void> = Promise.resolve()

  function write(uses: readonly KeyUse[]): Promise<void> {
    return store.recordKeyUse(uses).then(undefined, (error: unknown) => {
      // Never changes a verification: report, and let the next use of these keys try again.
      for (const use of uses) queued.delete(use.id)
      emit({ type: 'store.error', operation: 'recordKeyUse', error })
    })
  }

  const later = (run: () => void, ms: number) => {
    const handle = setTimeout(run, ms)
    ;(handle as { unref?: () => void }).unref?.()
    return handle
  }

  function sweep(): void {
    const horizon = clock() - intervalMs
    for (const [id, at] of queued) if (at <= horizon) queued.delete(id)
  }

  function sweepLater(): void {
    sweeper = undefined
    sweep()
    if (queued.size > 0) sweeper = later(sweepLater, intervalMs / 4)
  }

  function flush(): Promise<void> {
    if (timer !== undefined) clearTimeout(timer)
    timer = undefined
    const batch = pending
    pending = []
    sweep()
    writing = writing.then(async () => {
      for (let i = 0; i < batch.length; i += BATCH) await write(batch.slice(i, i + BATCH))
    })
    return writing
  }

  function reportDue(record: KeyRecord, nowMs: number): void {
    // An imported key is due at once, whatever its age: rolling it issues a native key.
    if (
      (record.createdAt.getTime() > nowMs - rotationPeriodMs && !isImportedKey(record)) ||
      record.replacedBy
    ) {
      return
    }
    const last = dueReported.get(record.id)
    if (last !== undefined && nowMs - last < DAY_MS) return
    dueReported.set(record.id, nowMs)
    emit({
      type: 'key.rotation_due',
      keyId: record.id,
      keyPrefix: record.keyPrefix,
      ownerType: record.ownerType,
      ownerId: record.ownerId,
      createdAt: record.createdAt,
    })
  }

  return {
    used(record) {
      if (listening) reportDue(record, clock())
      if (!track || queued.has(record.id)) return
      const nowMs = clock()
      queued.set(record.id, nowMs)
      pending.push({ id: record.id, usedAt: new Date(nowMs) })
      if (timer === undefined) timer = later(() => void flush(), flushDelayMs)
      if (sweeper === undefined) sweeper = later(sweepLater, intervalMs / 4)
    },
    flush,
  }
}

/** @internal What the service's usage methods read. */
export interface UsageMethodsDependencies {
  readonly store: KeyStore
  readonly storeCall: StoreCall
  /** The service's `lastUsedAt` tracker. */
  readonly usage: Usage
  /** The service's usage counts; absent without them. */
  readonly counts: UsageCounts | undefined
  /** How long the counts are kept, `null` without them. */
  readonly retention: UsageRetention | null
}

/** @internal The service's usage methods: `flushLastUsed`, `readUsage`, `flushUsage`, `usageStats`. */
export function usageMethods({
  store,
  storeCall,
  usage,
  counts,
  retention,
}: UsageMethodsDependencies): KeywardUsage {
  return {
    flushLastUsed: () => usage.flush(),
    usageRetention: retention,
    readUsage: async (query) => {
      if (!store.readUsage) throw new TypeError('This key store cannot read usage (no `readUsage`).')
      return storeCall('readUsage', () => store.readUsage!(query))
    },
    flushUsage: async () => counts?.flush(),
    usageStats: () => counts?.stats() ?? null,
  }
}
