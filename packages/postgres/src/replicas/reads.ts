// Lookups by hash on streaming standbys, with the primary as the fallback and the lag guard as
// the rule of which answers a standby may give.
import type { KeyChangeEvent, KeyRecord } from '@keyward/core'
import type { SqlDriver, SqlQueryable } from '../driver.js'
import { LagGuard } from './guard.js'
import { parseLsn } from './lsn.js'

/**
 * A read replica (a streaming standby) of the primary, for `PostgresKeyStoreOptions.readReplicas`.
 *
 * @example
 * ```ts
 * const replica: ReadReplica = { name: 'replica-1:5432/app', driver: pgDriver(replicaPool, { queryTimeoutMs: 1000 }) }
 * const store = new PostgresKeyStore(pgDriver(primaryPool), { changes, readReplicas: [replica] })
 * ```
 */
export interface ReadReplica {
  /** How events name it: host, port and database, never a password. */
  readonly name: string
  /** Runs the lookups and the probes on it. */
  readonly driver: SqlDriver
}

/**
 * What `PostgresKeyStore` reports about its primary and replicas, through its `onEvent` option.
 * A replica is named by host, port and database, never with a password. Under strict
 * revocation, also the change feed's freshness: `feed.stale` when none of its fences came back
 * within the bound (the cache and the replicas are bypassed), `feed.fresh` when one is back.
 *
 * @example
 * ```ts
 * const store = await createPgKeyStore(source, {
 *   replicas: [replicaUrl],
 *   onEvent: (event) => {
 *     if (event.type === 'replica.down' || event.type === 'primary.down') alert(event.type)
 *   },
 * })
 * ```
 */
export type ReplicaEvent =
  | { readonly type: 'replica.down'; readonly replica: string; readonly error: unknown }
  | { readonly type: 'replica.up'; readonly replica: string }
  | { readonly type: 'replica.lagging'; readonly replica: string; readonly lagMs: number }
  | { readonly type: 'replica.caught_up'; readonly replica: string; readonly lagMs: number }
  | { readonly type: 'primary.down'; readonly error: unknown }
  | { readonly type: 'primary.up' }
  | { readonly type: 'feed.stale'; readonly boundMs: number }
  | { readonly type: 'feed.fresh' }

/**
 * How a store reads its replicas (`PostgresKeyStoreOptions.replicaReads`).
 *
 * @example
 * ```ts
 * const store = await createPgKeyStore(source, {
 *   replicas: [replicaUrl],
 *   replicaReads: { maxLagMs: 5000, whenPrimaryDown: 'refuse' },
 * })
 * ```
 */
export interface ReplicaReadOptions {
  /** A replica further behind the primary than this is not read. Default 10000 ms. */
  readonly maxLagMs?: number
  /** How often the primary's position and each replica's replay position are read. Default 250 ms. */
  readonly probeIntervalMs?: number
  /**
   * While the primary is down: `'replica'` (default) answers lookups of keys with no change
   * this process has heard of from a replica; `'refuse'` answers 503 like every other call.
   */
  readonly whenPrimaryDown?: 'replica' | 'refuse'
}

type Find = (db: SqlQueryable, hash: string) => Promise<KeyRecord | null>

/**
 * How many lookups by hash each side has answered since the store was built
 * (`PostgresKeyStore.replicaStats`).
 *
 * @example
 * ```ts
 * const stats: ReplicaReadStats | undefined = store.replicaStats
 * if (stats) metrics.gauge('keyward.lookups.primary', stats.primary)
 * ```
 */
export interface ReplicaReadStats {
  /** Answered by a replica (found, active, and trusted by the lag guard). */
  replica: number
  /** Answered by the primary: keys changed recently, unknown or inactive keys, fallbacks. */
  primary: number
}

interface ReplicaState {
  readonly replica: ReadReplica
  /** Probed and answering. */
  up: boolean
  /** Its replay position, as last probed (it only grows while it stays up). */
  replayed: bigint
  lagging: boolean
}

// The primary's recent positions, to tell a replica's lag in time.
const SAMPLES = 4096

const LAG_QUERY = 'SELECT pg_last_wal_replay_lsn()::text AS position'
const POSITION_QUERY = 'SELECT pg_current_wal_insert_lsn()::text AS position'

// An error of the statement (SQLSTATE outside connection exceptions, resources and operator
// intervention, such as a shutdown) says nothing about the server's health; any other does.
const statementError = (error: unknown) => {
  const { severity, code } = (error ?? {}) as { severity?: unknown; code?: unknown }
  return typeof severity === 'string' && typeof code === 'string' && !/^(08|53|57)/.test(code)
}

const positive = (name: string, value: number | undefined, fallback: number) => {
  if (value === undefined) return fallback
  if (!(Number.isInteger(value) && value > 0)) {
    throw new TypeError(
      `PostgresKeyStore: option \`replicaReads.${name}\` must be a positive integer, got ${String(value)}.`,
    )
  }
  return value
}

/** @internal Checks the replica options once, when the store is built. */
export function checkReplicas(replicas: readonly ReadReplica[], options: ReplicaReadOptions = {}) {
  replicas.forEach((replica, i) => {
    if (typeof replica?.name !== 'string' || typeof replica.driver?.query !== 'function') {
      throw new TypeError(
        `PostgresKeyStore: option \`readReplicas[${i}]\` must be { name, driver } with a driver that has \`query\`.`,
      )
    }
  })
  const when = options.whenPrimaryDown ?? 'replica'
  if (when !== 'replica' && when !== 'refuse') {
    throw new TypeError(
      `PostgresKeyStore: option \`replicaReads.whenPrimaryDown\` must be 'replica' or 'refuse', got ${String(when)}.`,
    )
  }
  return {
    maxLagMs: positive('maxLagMs', options.maxLagMs, 10_000),
    probeIntervalMs: positive('probeIntervalMs', options.probeIntervalMs, 250),
    fallBack: when === 'replica',
  }
}

/**
 * @internal Routes lookups by hash: to a replica that the {@link LagGuard} trusts for the hash,
 * else to the primary. A replica's answer is used only when it is a found, active record and
 * the guard still trusts it when it arrives; every other answer (unknown, inactive, an error)
 * is asked of the primary. Probes keep each replica's replay position and lag.
 */
/**
 * @internal What the reads ask of the change feed at the moment of use: whether it is connected
 * (and fresh), and, under strict revocation, whether its fences were fresh, whatever its
 * connection does now (see {@link ReplicaReads}).
 */
export interface FeedState {
  readonly connected: () => boolean
  readonly fenced?: () => boolean
}

export class ReplicaReads {
  readonly guard: LagGuard
  readonly stats: ReplicaReadStats = { replica: 0, primary: 0 }
  readonly #primary: SqlDriver
  readonly #replicas: ReplicaState[]
  readonly #find: Find
  readonly #emit: (event: ReplicaEvent) => void
  readonly #maxLagMs: number
  readonly #fallBack: boolean
  readonly #samples: { at: number; position: bigint }[] = []
  readonly #timer: ReturnType<typeof setInterval>
  readonly #fenced: (() => boolean) | undefined
  #primaryDown = false
  /**
   * Under strict revocation: whether the feed's fences were fresh when this process first saw
   * the primary fail, which alone lets a replica answer while it stays down.
   */
  #downTrusted = true
  #probing: Promise<void> | undefined
  #next = 0

  constructor(
    primary: SqlDriver,
    replicas: readonly ReadReplica[],
    find: Find,
    onEvent: ((event: ReplicaEvent) => void) | undefined,
    options: ReplicaReadOptions = {},
    feed: FeedState = { connected: () => true },
  ) {
    const checked = checkReplicas(replicas, options)
    this.guard = new LagGuard({ live: feed.connected })
    this.#fenced = feed.fenced
    this.#primary = primary
    this.#replicas = replicas.map((replica) => ({ replica, up: false, replayed: 0n, lagging: false }))
    this.#find = find
    this.#emit = (event) => {
      try {
        onEvent?.(event)
      } catch {
        // The host's hook must not change the outcome of a lookup.
      }
    }
    this.#maxLagMs = checked.maxLagMs
    this.#fallBack = checked.fallBack
    this.#timer = setInterval(() => void this.probe(), checked.probeIntervalMs)
    this.#timer.unref?.()
  }

  /** Takes in a signal of the change feed, or a write of this process (`changed`, after commit). */
  hear(signal: KeyChangeEvent): void {
    this.guard.hear(signal)
    // The feed's connection is one to the primary: when it drops, ask the primary at once, so
    // that a primary that failed is seen failing while the feed's last fence is still fresh.
    if (signal.type === 'disconnected') void this.probe()
  }

  /** Reads the primary's position (settling waiting marks) and each replica's replay position. */
  probe(): Promise<void> {
    this.#probing ??= this.#probeAll().finally(() => {
      this.#probing = undefined
    })
    return this.#probing
  }

  findKeyByHash(hash: string): Promise<KeyRecord | null> {
    const state = this.#pick(hash, this.#downMode)
    if (!state) return this.#fromPrimary(hash)
    const replayed = state.replayed
    return this.#find(state.replica.driver, hash).then(
      (record) => {
        // Trusted still when the answer arrives: no change heard meanwhile that it may lack.
        if (!record?.active || !this.guard.trusts(hash, replayed, this.#downMode)) {
          return this.#fromPrimary(hash)
        }
        this.stats.replica++
        return record
      },
      (error: unknown) => {
        if (!statementError(error)) this.#replicaDown(state, error)
        return this.#fromPrimary(hash)
      },
    )
  }

  /** Stops the probes. */
  close(): void {
    clearInterval(this.#timer)
  }

  #fromPrimary(hash: string): Promise<KeyRecord | null> {
    if (this.#primaryDown && this.#fallBack) return this.#whilePrimaryDown(hash, undefined)
    return this.#find(this.#primary, hash).then(
      (record) => {
        this.stats.primary++
        return record
      },
      (error: unknown) => {
        if (statementError(error) || !this.#fallBack) throw error
        this.#setPrimaryDown(error)
        return this.#whilePrimaryDown(hash, error)
      },
    )
  }

  // The primary is down: a replica may still confirm an active key the guard trusts it for;
  // anything else fails as the primary did.
  async #whilePrimaryDown(hash: string, error: unknown): Promise<KeyRecord | null> {
    const failure = error ?? new Error('The primary is down.')
    const state = this.#pick(hash, this.#downMode)
    if (!state) throw failure
    const replayed = state.replayed
    const record = await this.#find(state.replica.driver, hash).catch((replicaError: unknown) => {
      if (!statementError(replicaError)) this.#replicaDown(state, replicaError)
      throw failure
    })
    if (!record?.active || !this.guard.trusts(hash, replayed, this.#downMode)) throw failure
    this.stats.replica++
    return record
  }

  // Round robin over the replicas that are up, not lagging, and trusted for the hash.
  #pick(hash: string, primaryDown: boolean): ReplicaState | undefined {
    const count = this.#replicas.length
    for (let i = 0; i < count; i++) {
      const state = this.#replicas[(this.#next + i) % count]!
      if (
        state.up &&
        (!state.lagging || primaryDown) &&
        this.guard.trusts(hash, state.replayed, primaryDown)
      ) {
        this.#next = (this.#next + i + 1) % count
        return state
      }
    }
    return undefined
  }

  async #probeAll(): Promise<void> {
    await Promise.all([this.#probePrimary(), ...this.#replicas.map((state) => this.#probeReplica(state))])
    let furthest = -1n
    for (const state of this.#replicas) if (state.up && state.replayed > furthest) furthest = state.replayed
    if (furthest >= 0n) this.guard.forget(furthest)
  }

  async #probePrimary(): Promise<void> {
    const batch = this.guard.takeWaiting()
    const epoch = this.guard.feedEpoch
    try {
      const [row] = await this.#primary.query<{ position: string }>(POSITION_QUERY)
      const position = parseLsn(row!.position)
      this.guard.settle(batch, position)
      this.guard.primaryAnswered(epoch)
      this.#samples.push({ at: Date.now(), position })
      if (this.#samples.length > SAMPLES) this.#samples.shift()
      if (this.#primaryDown) {
        this.#primaryDown = false
        this.#emit({ type: 'primary.up' })
      }
    } catch (error) {
      this.guard.settle(batch, undefined)
      this.#setPrimaryDown(error)
    }
  }

  async #probeReplica(state: ReplicaState): Promise<void> {
    let replayed: bigint
    try {
      const [row] = await state.replica.driver.query<{ position: string | null }>(LAG_QUERY)
      if (!row?.position) throw new Error('The replica is not a standby in recovery.')
      replayed = parseLsn(row.position)
    } catch (error) {
      this.#replicaDown(state, error)
      return
    }
    state.replayed = replayed
    if (!state.up) {
      state.up = true
      this.#emit({ type: 'replica.up', replica: state.replica.name })
    }
    const lagMs = this.#lagMs(replayed)
    if (lagMs > this.#maxLagMs && !state.lagging) {
      state.lagging = true
      this.#emit({ type: 'replica.lagging', replica: state.replica.name, lagMs })
    } else if (lagMs <= this.#maxLagMs && state.lagging) {
      state.lagging = false
      this.#emit({ type: 'replica.caught_up', replica: state.replica.name, lagMs })
    }
  }

  // How long ago the primary was at the oldest position the replica has not replayed.
  #lagMs(replayed: bigint): number {
    for (const sample of this.#samples) {
      if (sample.position > replayed) return Date.now() - sample.at
    }
    return 0
  }

  #replicaDown(state: ReplicaState, error: unknown): void {
    if (!state.up) return
    state.up = false
    this.#emit({ type: 'replica.down', replica: state.replica.name, error })
  }

  // Whether replicas may answer as for a down primary: it is down, and (under strict
  // revocation) the feed was fresh when that was first seen. It ends when the primary answers.
  get #downMode(): boolean {
    return this.#primaryDown && this.#downTrusted
  }

  #setPrimaryDown(error: unknown): void {
    if (this.#primaryDown) return
    this.#downTrusted = this.#fenced?.() ?? true
    this.#primaryDown = true
    this.#emit({ type: 'primary.down', error })
  }
}
