// Events of time: a key's expiry coming (`key.expiring`, at each threshold before it) and come
// (`key.expired`), written by one scheduler at a time across processes, each once.
import { sha256HexWeb } from '../hash/digest.js'
import type { ExpiringKey, WebhookEvent, WebhookStore } from './types.js'

const DAY_MS = 86_400_000

/** The longest threshold and look-back: the outbox keeps an event, the record that it was sent, 30 days. */
export const MAX_EXPIRY_NOTICE_DAYS = 30

/** Options of {@link createExpiryNotices}. */
export interface ExpiryNoticesOptions {
  /** The store's webhooks (`store.webhooks`). */
  readonly store: WebhookStore
  /**
   * The developer who owns a project, for the events of its keys (the service's `projectOwner`).
   * Without it, or when it answers `null`, a project key's events are not written.
   */
  readonly projectOwner?: (projectId: string) => Promise<string | null>
  /** How long before its expiry a key's `key.expiring` is sent, in days (1 to 30). Default `[7, 1]`. */
  readonly thresholdsDays?: readonly number[]
  /**
   * How far back a `key.expired` is still sent, in days (1 to 30): a key that expired while no
   * scheduler ran is told of when one runs again within it. Default 7.
   */
  readonly lookbackDays?: number
  /** The clock. Default `() => new Date()`. */
  readonly now?: () => Date
}

/**
 * @internal The developer of each owner of keys, for one round of a scheduler: a developer's own,
 * or the owner of a project (asked once per project per round; `null` when unknown).
 */
export function developerResolver(
  projectOwner: ((projectId: string) => Promise<string | null>) | undefined,
): (owner: Pick<ExpiringKey, 'ownerType' | 'ownerId'>) => Promise<string | null> {
  const owners = new Map<string, string | null>()
  return async ({ ownerType, ownerId }) => {
    if (ownerType === 'developer') return ownerId
    if (!owners.has(ownerId)) owners.set(ownerId, (await projectOwner?.(ownerId)) ?? null)
    return owners.get(ownerId) ?? null
  }
}

/** The scheduler of expiry events: one round at a time. */
export interface ExpiryNotices {
  /**
   * One round: the events due at this time, written once each; `null` when another scheduler
   * holds the store's lock (it is doing the round).
   */
  tick(): Promise<number | null>
}

function checkDays(value: number, option: string): number {
  if (!(Number.isFinite(value) && value > 0 && value <= MAX_EXPIRY_NOTICE_DAYS)) {
    throw new TypeError(
      `createExpiryNotices: option \`${option}\` must be days from more than 0 to ${MAX_EXPIRY_NOTICE_DAYS}, got ${String(value)}.`,
    )
  }
  return value
}

/**
 * The scheduler of `key.expiring` (by default 7 days and 1 day before a key expires) and
 * `key.expired`: each round reads the keys whose expiry is near or just past, under the store's
 * scheduler lock (one process at a time), and writes one event per key: `key.expired` once it
 * has expired, else `key.expiring` for the nearest threshold it is within. An event's id is made
 * of the key, its expiry, the kind and the threshold, and the store writes an id once ever: a
 * restart, a second scheduler or a later round never sends it again, and a key whose expiry
 * changes is told of again. A key found within 1 day at its first round gets the 1-day event
 * only. Payloads: `key_id`, `key_prefix`, `name`, `developer_id`, `project_id`, `expires_at`, and
 * `days_before` for `key.expiring`; never a key or a hash.
 *
 * @example
 * ```ts
 * const notices = createExpiryNotices({ store: store.webhooks, projectOwner })
 * setInterval(() => void notices.tick(), 60_000)
 * ```
 */
export function createExpiryNotices(options: ExpiryNoticesOptions): ExpiryNotices {
  const { store, projectOwner, now = () => new Date() } = options
  const thresholds = [...(options.thresholdsDays ?? [7, 1])]
    .map((days) => checkDays(days, 'thresholdsDays'))
    .sort((a, b) => a - b)
  if (thresholds.length === 0) throw new TypeError('createExpiryNotices: option `thresholdsDays` is empty.')
  const lookback = checkDays(options.lookbackDays ?? 7, 'lookbackDays')

  async function eventOf(key: ExpiringKey, at: Date, developerId: string): Promise<WebhookEvent | null> {
    const left = key.expiresAt.getTime() - at.getTime()
    const days = left <= 0 ? null : thresholds.find((threshold) => left <= threshold * DAY_MS)
    if (days === undefined) return null
    const type = days === null ? 'key.expired' : 'key.expiring'
    const hash = await sha256HexWeb(`${type}:${key.id}:${key.expiresAt.toISOString()}:${days ?? 0}`)
    return {
      id: `msg_${hash.slice(0, 32)}`,
      type,
      developerId,
      projectId: key.ownerType === 'project' ? key.ownerId : null,
      createdAt: at,
      data: {
        key_id: key.id,
        key_prefix: key.keyPrefix,
        name: key.name,
        developer_id: developerId,
        project_id: key.ownerType === 'project' ? key.ownerId : null,
        expires_at: key.expiresAt.toISOString(),
        ...(days === null ? {} : { days_before: days }),
        actor: 'system',
      },
    }
  }

  async function build(keys: readonly ExpiringKey[], at: Date): Promise<WebhookEvent[]> {
    const developerOf = developerResolver(projectOwner)
    const events: WebhookEvent[] = []
    for (const key of keys) {
      const developerId = await developerOf(key)
      const event = developerId === null ? null : await eventOf(key, at, developerId)
      if (event) events.push(event)
    }
    return events
  }

  return {
    tick() {
      const at = now()
      return store.noticeExpiringKeys(
        new Date(at.getTime() - lookback * DAY_MS),
        new Date(at.getTime() + thresholds.at(-1)! * DAY_MS),
        (keys) => build(keys, at),
      )
    },
  }
}
