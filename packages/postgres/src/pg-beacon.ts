// Strict revocation for a fleet: one beacon for the whole database instead of a fence per process.
// A leader, chosen by an advisory lock, notifies the beacon channel with the primary's WAL insert
// position; each process probes that position on its own connection and counts itself fresh from
// a probe once a beacon (or a fence) that names a later position has reached it.
import type pg from 'pg'
import type { FeedFences } from './fences.js'
import { parseLsn } from './replicas/lsn.js'

/**
 * The channel of the beacon: the leader's notifications, and the fences of processes that
 * acknowledge a revocation. Each payload starts with the WAL insert position read in the
 * notifying statement; a fence adds its sender's tag.
 */
export const BEACON_CHANNEL = 'keyward_beacon'

/**
 * The first key of the session advisory lock whose holder sends the beacon (`'kwbc'`); the second
 * is the beacon's period in milliseconds, so feeds of different bounds elect a leader each.
 */
export const BEACON_LOCK_CLASS = 0x6b776263

// Read after the statement starts, so after the probe was sent.
const PROBE = 'SELECT pg_current_wal_insert_lsn()::text AS lsn'
const PROBE_AND_LEAD = `${PROBE}, pg_try_advisory_lock($1, $2) AS leader`
// A beacon, like a fence, commits a notification and nothing else: no need to wait for the WAL
// flush. The position is read before the notification is queued, at commit.
const BEACON = `SELECT pg_notify('${BEACON_CHANNEL}', pg_current_wal_insert_lsn()::text), set_config('synchronous_commit', 'off', true)`
/** A fence on the beacon channel: its position, then the sender's tag (`$1`). */
export const BEACON_FENCE = `SELECT pg_notify('${BEACON_CHANNEL}', pg_current_wal_insert_lsn()::text || ' ' || $1), set_config('synchronous_commit', 'off', true)`

/** @internal The queries of one connection, sent one after another. */
export type SerialQuery = <R extends pg.QueryResultRow = pg.QueryResultRow>(
  text: string,
  values?: unknown[],
) => Promise<pg.QueryResult<R>>

/**
 * @internal Sends the queries of `client` one after another (node-postgres would queue queries
 * that overlap itself, but warns that it will stop).
 */
export function serially(client: pg.Client): SerialQuery {
  let last: Promise<unknown> = Promise.resolve()
  return <R extends pg.QueryResultRow>(text: string, values?: unknown[]) => {
    const result = last.then(() => client.query<R>(text, values))
    last = result.catch(() => {})
    return result
  }
}

/** What a beacon session reports to its feed. */
export interface BeaconHooks {
  /** The connection failed (a query of the session was refused or the connection broke). */
  readonly lost: (error: unknown) => void
  /** Freshness evidence arrived; `wasLate` as `FeedFences.received` answers it. */
  readonly evidence: (wasLate: boolean) => void
}

/**
 * @internal The beacon's side of one feed connection: its probes, the beacons heard on it, and,
 * while this connection holds the lock, the beacon it sends. A new connection gets a new session.
 *
 * Probe n, sent at time a (recorded by `fences.sent()` before it goes out), reads position v on
 * the primary. A beacon heard with a position above v was read after the probe's, so it was
 * queued after every notification committed before a: `fences.received(n)` then dates the
 * feed's freshness from a.
 */
export class BeaconSession {
  /** Answered probes not yet covered by a beacon, in order (their positions never decrease). */
  #probes: { readonly n: number; readonly lsn: bigint }[] = []
  /** The highest position heard on this connection. */
  #latest = -1n
  #heardAt = Number.NEGATIVE_INFINITY
  #probing = false
  #beaconing = false
  #timer: ReturnType<typeof setInterval> | undefined
  #next: ReturnType<typeof setTimeout> | undefined
  #leading = false

  constructor(
    private readonly query: SerialQuery,
    private readonly fences: FeedFences,
    private readonly token: string,
    private readonly everyMs: number,
    private readonly hooks: BeaconHooks,
    private readonly now: () => number = () => performance.now(),
  ) {}

  /** Whether this connection holds the lock and sends the beacon. */
  get leading(): boolean {
    return this.#leading
  }

  /**
   * Whether the beacon is missing (none heard for two periods): the feed's own timer then probes,
   * which also tries to take the lead. While beacons come, each one schedules the next probe.
   */
  get missing(): boolean {
    return this.now() - this.#heardAt > 2 * this.everyMs
  }

  /**
   * Reads the primary's position; when no beacon was heard for two periods, also tries to take
   * the lead (a free lock means no leader: its holder's session ended, and PostgreSQL released it).
   */
  probe(): void {
    if (this.#probing) return
    this.#probing = true
    const lead = !this.#leading && this.missing
    const n = this.fences.sent()
    const asked = lead
      ? this.query<{ lsn: string; leader: boolean }>(PROBE_AND_LEAD, [BEACON_LOCK_CLASS, this.everyMs])
      : this.query<{ lsn: string; leader?: boolean }>(PROBE)
    asked.then(({ rows }) => {
      this.#probing = false
      const lsn = parseLsn(rows[0]!.lsn)
      // A beacon may arrive before the probe's answer: it still names a later position.
      if (this.#latest > lsn) this.hooks.evidence(this.fences.received(n))
      else this.#probes.push({ n, lsn })
      if (rows[0]!.leader === true) this.#lead()
    }, this.hooks.lost)
  }

  /** A notification on the beacon channel. */
  heard(payload: string | undefined): void {
    const [position, tag] = (payload ?? '').split(' ')
    let lsn: bigint
    try {
      lsn = parseLsn(position ?? '')
    } catch {
      return
    }
    this.#heardAt = this.now()
    if (lsn > this.#latest) this.#latest = lsn
    // The leader's beacon comes every period: probe shortly before the next one is read, so
    // that it covers a probe only a quarter of a period old.
    if (tag === undefined && this.#next === undefined) {
      this.#next = setTimeout(
        () => {
          this.#next = undefined
          this.probe()
        },
        Math.floor(this.everyMs * 0.75),
      )
      this.#next.unref?.()
    }
    let covered: number | undefined
    while (this.#probes.length > 0 && this.#probes[0]!.lsn < lsn) covered = this.#probes.shift()!.n
    if (covered !== undefined) this.hooks.evidence(this.fences.received(covered))
    // This feed's own fence: sent at a time it recorded, and queued after that.
    if (tag?.startsWith(`${this.token}:`)) {
      const n = Number(tag.slice(this.token.length + 1))
      if (Number.isInteger(n)) this.hooks.evidence(this.fences.received(n))
    }
  }

  /** The connection is gone (and the lock with it): stops the beacon. */
  close(): void {
    clearInterval(this.#timer)
    clearTimeout(this.#next)
    this.#timer = undefined
    this.#next = undefined
    this.#leading = false
  }

  // Leads until the connection ends. A leader that stops answering (a stalled process, a cut
  // network) has its session ended by the server after a bound of silence, which frees the lock.
  #lead(): void {
    if (this.#leading) return
    this.#leading = true
    const idleMs = Math.max(1000, 4 * this.everyMs)
    // PostgreSQL 14 and newer; on older servers a stalled leader keeps the lock until its
    // connection breaks, and every feed counts as stale meanwhile.
    this.query(`SET idle_session_timeout = ${idleMs}`).catch(() => {})
    const send = () => {
      if (this.#beaconing) return
      this.#beaconing = true
      this.query(BEACON).then(() => {
        this.#beaconing = false
      }, this.hooks.lost)
    }
    send()
    this.#timer = setInterval(send, this.everyMs)
    this.#timer.unref?.()
  }
}
