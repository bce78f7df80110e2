import { LRUCache } from 'lru-cache'
import type { KeyChangeFeed, KeyRecord } from '../store/types.js'
import type { KeywardEvent } from './events.js'

/**
 * Options of the verification cache (`createKeyward({ cache })`).
 *
 * @example
 * ```ts
 * const keyward = createKeyward({ store, cache: { maxEntries: 50_000, ttlMs: 30_000 } })
 * ```
 */
export interface VerificationCacheOptions {
  /** Most entries kept; the least recently used go first. Default 10,000. */
  readonly maxEntries?: number
  /**
   * The longest an entry is trusted, in milliseconds, counted from the lookup that filled it:
   * the bound on a change whose notification never arrived (give or take a hundredth of it, at
   * most a second: the cache reads the clock that often for it). Default 60,000.
   */
  readonly ttlMs?: number
}

/**
 * What the verification cache has done since the service was built, from
 * `keyward.cacheStats()`.
 *
 * @example
 * ```ts
 * const stats = keyward.cacheStats()
 * if (stats) metrics.gauge('keyward.cache.hit_ratio', stats.hits / Math.max(1, stats.hits + stats.misses))
 * ```
 */
export interface VerificationCacheStats {
  /** Lookups answered from memory (found records, active or not, and "not found"). */
  readonly hits: number
  /** Lookups that went to the store and filled an entry. */
  readonly misses: number
  /** Lookups that went to the store because the change feed was not connected. */
  readonly bypassed: number
  /** Entries held now. */
  readonly entries: number
  /** Whether the change feed is connected, so that the cache is in use. */
  readonly connected: boolean
}

// "Not found" is cached too, as this one value (the cache holds no null).
const NOT_FOUND = Object.freeze({ notFound: true })
type Entry = KeyRecord | typeof NOT_FOUND

/**
 * @internal The verification cache of one service: key records (active or not) and "not
 * found" by key hash, never a key, and the owners of projects (`projectOwner`) by project id.
 * It is empty and bypassed while the store's change feed is not connected, and starts empty
 * on every (re)connection.
 *
 * A lookup that was under way while anything changed does not fill an entry: `version`
 * moves on every change, and `fill` stores only what was read within one version.
 *
 * Project owners have no notification of their own: deleting a project deactivates its keys,
 * so every change to any key drops them all. Only found owners are kept (a project created
 * later in another process must not stay "not found").
 */
export class VerificationCache {
  readonly #entries: LRUCache<string, Entry>
  readonly #owners: LRUCache<string, string>
  readonly #feed: KeyChangeFeed
  /**
   * With peppers, entries are kept by the key's plain SHA-256 while writes and the feed name the
   * stored hash (an HMAC): the entry of each stored hash that differs, kept exactly as long as
   * its entry. `undefined` without peppers.
   */
  readonly #stored: Map<string, string> | undefined
  #version = 0
  #hits = 0
  #misses = 0
  #bypassed = 0

  constructor(
    options: VerificationCacheOptions,
    feed: KeyChangeFeed,
    emit: (event: KeywardEvent) => void,
    peppered = false,
  ) {
    const ttl = options.ttlMs ?? 60_000
    const settings = {
      max: options.maxEntries ?? 10_000,
      ttl,
      updateAgeOnGet: false,
      // lru-cache keeps the time it read for `ttlResolution` ms, with a timer that clears it: at
      // its default of 1 ms, a busy server ran a thousand timers a second for the backstop alone.
      // A hundredth of the TTL (at most a second) is as good a bound for a backstop.
      ttlResolution: Math.max(1, Math.min(1000, Math.floor(ttl / 100))),
    }
    const stored = peppered ? new Map<string, string>() : undefined
    this.#stored = stored
    this.#entries = new LRUCache<string, Entry>(
      stored
        ? {
            ...settings,
            dispose: (entry, hash) => {
              const record = entry as KeyRecord
              if (record.hash !== undefined && record.hash !== hash) stored.delete(record.hash)
            },
          }
        : settings,
    )
    this.#owners = new LRUCache<string, string>(settings)
    this.#feed = feed
    feed.subscribe((event) => {
      if (event.type === 'changed') return this.forget(event.hash)
      this.#clear()
      emit(
        event.type === 'connected'
          ? { type: 'cache.resumed' }
          : { type: 'cache.bypassed', reason: 'feed_disconnected', error: event.error },
      )
    })
  }

  /**
   * The cached answer for `hash`: the record, `null` for "not found", or `undefined` when the
   * store must be asked (then pass {@link version} to {@link fill}).
   */
  get(hash: string): KeyRecord | null | undefined {
    if (!this.#feed.connected) {
      this.#bypassed++
      return undefined
    }
    const entry = this.#entries.get(hash)
    if (entry === undefined) return undefined
    this.#hits++
    return entry === NOT_FOUND ? null : (entry as KeyRecord)
  }

  /**
   * Like {@link get}, for an answer wanted at once: counts a hit, but neither a miss nor a
   * bypass (the lookup that follows counts those).
   */
  peek(hash: string): KeyRecord | null | undefined {
    if (!this.#feed.connected) return undefined
    const entry = this.#entries.get(hash)
    if (entry === undefined) return undefined
    this.#hits++
    return entry === NOT_FOUND ? null : (entry as KeyRecord)
  }

  /** The version to hand to {@link fill} for a lookup that starts now; -1 while bypassed. */
  get version(): number {
    return this.#feed.connected ? this.#version : -1
  }

  /** Keeps what a lookup that started at `version` found, unless anything changed since. */
  fill(version: number, hash: string, record: KeyRecord | null): void {
    if (version === -1) return
    this.#misses++
    if (version !== this.#version || !this.#feed.connected) return
    this.#entries.set(hash, record ?? NOT_FOUND)
    if (this.#stored && record && record.hash !== hash) this.#stored.set(record.hash, hash)
  }

  /** The cached owner of a project, or `undefined` when it must be looked up. */
  ownerOf(projectId: string): string | undefined {
    return this.#feed.connected ? this.#owners.get(projectId) : undefined
  }

  /** Keeps an owner that a lookup started at `version` found, unless anything changed since. */
  fillOwner(version: number, projectId: string, owner: string | null): void {
    if (owner === null || version === -1 || version !== this.#version || !this.#feed.connected) return
    this.#owners.set(projectId, owner)
  }

  /**
   * Drops the entry of a key that was written, and any lookup of it under way, and every
   * project owner (the write may be a project's deletion).
   */
  forget(hash: string): void {
    this.#version++
    const entry = this.#stored?.get(hash)
    if (entry !== undefined) this.#entries.delete(entry)
    this.#entries.delete(hash)
    this.#owners.clear()
  }

  /** Drops every project owner (an owner was closed), and any lookup of one under way. */
  forgetOwners(): void {
    this.#version++
    this.#owners.clear()
  }

  /** Drops every entry, and any lookup under way: for a write whose keys are not all known. */
  forgetAll(): void {
    this.#clear()
  }

  stats(): VerificationCacheStats {
    return {
      hits: this.#hits,
      misses: this.#misses,
      bypassed: this.#bypassed,
      entries: this.#entries.size,
      connected: this.#feed.connected,
    }
  }

  #clear(): void {
    this.#version++
    this.#entries.clear()
    this.#stored?.clear()
    this.#owners.clear()
  }
}
