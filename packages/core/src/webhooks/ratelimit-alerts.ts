// `ratelimit.exceeded` from the hot path: a refusal of a stored rate limit is counted in memory
// where its counter is, and one event per key, limit and minute is written after the minute, in a
// batch. A process that dies loses the count of its current minute; nothing is written per request.
import { sha256HexWeb } from '../hash/digest.js'
import type { StoredRateLimit } from '../policy/policies.js'
import type { DevelopersOf } from '../service/types.js'
import type { KeyRecord } from '../store/types.js'
import type { WebhookEvent, WebhookStore } from './types.js'

const MINUTE_MS = 60_000

interface Tally {
  readonly key: KeyRecord
  readonly whose: 'key' | 'identity'
  readonly limit: StoredRateLimit
  readonly minute: number
  count: number
}

/** @internal The refusals of stored rate limits, counted per key, limit and minute until written. */
export interface RateLimitAlerts {
  /** Counts a refusal: a map update, nothing else. */
  note(key: KeyRecord, whose: 'key' | 'identity', limit: StoredRateLimit): void
  /** Writes the minutes that are over (all of them with `all`, at a clean stop). */
  flush(all?: boolean): Promise<void>
}

/**
 * @internal Builds the counter of refusals. Its events' ids are made of the key, the limit and
 * the minute, and the outbox takes an id once: across processes, the first to write a minute's
 * event wins (with its own count).
 */
export function rateLimitAlerts(
  store: WebhookStore,
  developersOf: DevelopersOf,
  clock: () => number,
  onError: (error: unknown) => void,
): RateLimitAlerts {
  const tallies = new Map<string, Tally>()
  let timer: ReturnType<typeof setTimeout> | undefined

  async function eventOf(tally: Tally, developerId: string): Promise<WebhookEvent> {
    const { key, limit, minute } = tally
    const hash = await sha256HexWeb(`ratelimit:${key.id}:${tally.whose}:${limit.name}:${minute}`)
    const projectId = key.ownerType === 'project' ? key.ownerId : null
    return {
      id: `msg_${hash.slice(0, 32)}`,
      type: 'ratelimit.exceeded',
      developerId,
      projectId,
      createdAt: new Date(minute + MINUTE_MS),
      data: {
        key_id: key.id,
        key_prefix: key.keyPrefix,
        name: key.name,
        developer_id: developerId,
        project_id: projectId,
        ...(tally.whose === 'identity' ? { identity_id: key.identityId ?? null } : {}),
        limit_name: limit.name,
        limit: limit.limit,
        duration_ms: limit.duration,
        count: tally.count,
        window_start: new Date(minute).toISOString(),
        actor: 'system',
      },
    }
  }

  async function flush(all = false): Promise<void> {
    timer = undefined
    const current = Math.floor(clock() / MINUTE_MS) * MINUTE_MS
    const due = [...tallies].filter(([, tally]) => all || tally.minute < current)
    for (const [id] of due) tallies.delete(id)
    if (tallies.size > 0) schedule()
    if (due.length === 0) return
    try {
      const developerOf = await developersOf(due.map(([, tally]) => tally.key))
      const events: WebhookEvent[] = []
      for (const [, tally] of due) {
        const developerId = developerOf(tally.key)
        if (developerId !== null) events.push(await eventOf(tally, developerId))
      }
      if (events.length > 0) await store.addEvents(events)
    } catch (error) {
      onError(error)
    }
  }

  function schedule(): void {
    if (timer !== undefined) return
    timer = setTimeout(() => void flush(), MINUTE_MS - (clock() % MINUTE_MS) + 1000)
    ;(timer as { unref?: () => void }).unref?.()
  }

  return {
    note(key, whose, limit) {
      const minute = Math.floor(clock() / MINUTE_MS) * MINUTE_MS
      const id = `${key.id}\u0000${whose}\u0000${limit.name}\u0000${minute}`
      const tally = tallies.get(id)
      if (tally) tally.count += 1
      else tallies.set(id, { key, whose, limit, minute, count: 1 })
      schedule()
    },
    flush,
  }
}
