// Which keys may be read from a standby, given what this process knows of recent changes.
// Pure bookkeeping: the primary's positions and the standbys' replay positions come from
// outside (see reads.ts), so the rule can be read, and tested, on its own.
import type { KeyChangeEvent } from '@keyward/core'

/** A change (or a barrier) and the primary's WAL position that covers its commit. */
interface Mark {
  /** A position read on the primary after the commit; `undefined` until it has been read. */
  position: bigint | undefined
}

/**
 * @internal The lag guard. It keeps the hashes of recently changed keys, each with a primary
 * WAL position read after the change was committed, and answers whether a standby that has
 * replayed up to a position can be trusted for a hash:
 *
 * - only while the change feed is connected, or while the primary is down if the feed was
 *   lost no earlier than the primary (with what the feed had reported); and only once the standby has replayed past the `barrier`: a position
 *   read on the primary after the feed (re)connected, which covers every change the feed
 *   might have missed before;
 * - never for a hash whose position is still unknown, or that the standby has not replayed;
 * - never below `forgotten`, the highest position of a change that was dropped from the list
 *   (a standby that restarts may show less than it did; it is trusted again when it is past).
 *
 * "Connected" is asked of the feed itself at the moment of use too (`live`): under strict
 * revocation a feed whose fences are late answers false before any timer has reported it.
 *
 * Bounded: past `maxEntries` changes, the list is replaced by one barrier read after all of them.
 */
export class LagGuard {
  readonly #maxEntries: number
  readonly #changed = new Map<string, Mark>()
  /** Marks waiting for a position from the primary. */
  #waiting: Mark[] = []
  #barrier: Mark | undefined
  #connected = false
  #forgotten = 0n
  /** Counts the feed's connections and losses, to date a primary answer against them. */
  #feedEpoch = 0
  /** The primary answered while the feed was lost: what the feed knew is no longer enough. */
  #unheard = false

  readonly #live: () => boolean

  constructor(options: { readonly maxEntries?: number; readonly live?: () => boolean } = {}) {
    this.#maxEntries = options.maxEntries ?? 100_000
    this.#live = options.live ?? (() => true)
  }

  /** Whether the change feed is connected (and, under strict revocation, fresh) now. */
  get connected(): boolean {
    return this.#connected && this.#live()
  }

  /** The number of changes kept. */
  get size(): number {
    return this.#changed.size
  }

  /** Whether marks wait for a position from the primary. */
  get waiting(): boolean {
    return this.#waiting.length > 0
  }

  /**
   * Takes in an event of the change feed, or a committed write of this process as `changed`.
   * The event's own `position` is not used: it is taken before the commit record, so a
   * standby past it may still lack the commit; a position read after the event is.
   */
  hear(signal: KeyChangeEvent): void {
    if (signal.type === 'changed') this.#note(signal.hash)
    else {
      this.#feedEpoch++
      this.#connected = signal.type === 'connected'
      if (this.#connected) {
        this.#unheard = false
        this.#newBarrier()
      }
    }
  }

  /** A mark of the feed's state now, to pass to {@link primaryAnswered} later. */
  get feedEpoch(): number {
    return this.#feedEpoch
  }

  /**
   * The primary answered a query that started at `feedEpoch`. If the feed was lost before that
   * and is still lost, changes may have been made that the feed did not report: answers for a
   * down primary are refused from now until the feed is back.
   */
  primaryAnswered(feedEpoch: number): void {
    if (!this.connected && feedEpoch === this.#feedEpoch) this.#unheard = true
  }

  /**
   * Whether a standby that has replayed up to `replayed` may answer for `hash`. With
   * `primaryDown`, it answers from what was known when the feed was last connected.
   */
  trusts(hash: string, replayed: bigint, primaryDown = false): boolean {
    if (!this.connected && (!primaryDown || this.#unheard)) return false
    const barrier = this.#barrier?.position
    if (barrier === undefined || replayed < barrier || replayed < this.#forgotten) return false
    const change = this.#changed.get(hash)
    return change === undefined || (change.position !== undefined && replayed >= change.position)
  }

  /** The marks that wait for a primary position; hand them back to {@link settle}. */
  takeWaiting(): Mark[] {
    const batch = this.#waiting
    this.#waiting = []
    return batch
  }

  /**
   * Gives `batch` the primary position `position`, read by a query that started after every
   * mark of the batch was made; with `undefined` (the primary did not answer), they wait again.
   */
  settle(batch: Mark[], position: bigint | undefined): void {
    if (position === undefined) this.#waiting.unshift(...batch)
    else for (const mark of batch) mark.position = position
  }

  /** Drops the changes that a standby has replayed past `replayed`. */
  forget(replayed: bigint): void {
    for (const [hash, mark] of this.#changed) {
      if (mark.position !== undefined && mark.position <= replayed) {
        this.#changed.delete(hash)
        if (mark.position > this.#forgotten) this.#forgotten = mark.position
      }
    }
  }

  #note(hash: string): void {
    const mark: Mark = { position: undefined }
    this.#changed.set(hash, mark)
    this.#waiting.push(mark)
    if (this.#changed.size > this.#maxEntries) {
      // Too many to keep: one barrier, read after all of them, stands for them all.
      this.#changed.clear()
      this.#waiting = []
      this.#newBarrier()
    }
  }

  #newBarrier(): void {
    const barrier: Mark = { position: undefined }
    this.#waiting.push(barrier)
    this.#barrier = barrier
  }
}
