import type { KeyKind } from '../key/format.js'
import type { KeyOwner } from './record.js'

/** The size of a usage bucket: a minute, an hour or a day, in UTC. */
export type UsageGranularity = 'minute' | 'hour' | 'day'

/** Every {@link UsageGranularity}, finest first. */
export const USAGE_GRANULARITIES: readonly UsageGranularity[] = ['minute', 'hour', 'day']

/**
 * What became of a verification, as usage counts it. `accepted`: every check passed. The
 * refusals of a known key: `inactive`, `expired`, `wrong_type` (a key of the other type),
 * `wrong_project` (an API key of another project), `not_project_owner` and `project_not_found`
 * (a developer key and a project it does not own, or that does not exist), `ip_not_allowed`,
 * `permission_denied`, `rate_limited` (the key's own rate limit) and `usage_exceeded`. The
 * refusals of no known key, counted per route and client address: `unknown` (well-formed, no
 * such key) and `malformed`.
 */
export type UsageOutcome =
  | 'accepted'
  | 'inactive'
  | 'expired'
  | 'wrong_type'
  | 'wrong_project'
  | 'not_project_owner'
  | 'project_not_found'
  | 'ip_not_allowed'
  | 'permission_denied'
  | 'rate_limited'
  | 'usage_exceeded'
  | 'unknown'
  | 'malformed'

/** Every {@link UsageOutcome}: the order of the counters of a key. */
export const USAGE_OUTCOMES: readonly UsageOutcome[] = [
  'accepted',
  'inactive',
  'expired',
  'wrong_type',
  'wrong_project',
  'not_project_owner',
  'project_not_found',
  'ip_not_allowed',
  'permission_denied',
  'rate_limited',
  'usage_exceeded',
  'unknown',
  'malformed',
]

/**
 * Counts of one minute that a service hands to {@link KeyStore.recordUsage}: of one key (`key`
 * set), or of the refusals of no known key from one route and client address (`key` null).
 */
export interface UsageCount {
  /** The start of the minute, in UTC. */
  readonly minute: Date
  /** The key and its owner; `null` for a refusal of an unknown or malformed key. */
  readonly key: { readonly id: string; readonly ownerType: KeyKind; readonly ownerId: string } | null
  readonly outcome: UsageOutcome
  /** How many, to add to what the store holds for this minute (negative when a count moved outcome). */
  readonly count: number
  /** The route refused (`GET /api/v1/projects/:project_id/api-keys`), for a refusal without a key; else `''`. */
  readonly route: string
  /** The client address refused, for a refusal without a key (`other` past a bound); else `''`. */
  readonly address: string
}

/** What {@link KeyStore.readUsage} is asked for: an owner's keys' counts in a range, by bucket. */
export interface UsageQuery {
  readonly owner: KeyOwner
  readonly granularity: UsageGranularity
  /** The first bucket is the one that holds `from`. */
  readonly from: Date
  /** Buckets that start before `to`. */
  readonly to: Date
  /** Only this key of the owner; all of them when absent. */
  readonly keyId?: string
  /**
   * Only these keys of the owner (an identity's), besides `keyId` when both are given; all of
   * them when absent, none when empty.
   */
  readonly keyIds?: readonly string[]
}

/** The count of one key and outcome in one bucket, as {@link KeyStore.readUsage} answers. */
export interface UsageBucket {
  /** The start of the bucket, in UTC. */
  readonly start: Date
  readonly keyId: string
  readonly outcome: UsageOutcome
  readonly count: number
}

/** How long each granularity of usage is kept, in days. */
export interface UsageRetention {
  /** Minute buckets, then rolled into hours. Default 7. */
  readonly minuteDays: number
  /** Hour buckets, then rolled into days. Default 90. */
  readonly hourDays: number
  /** Day buckets, then deleted. Default 730 (two years). */
  readonly dayDays: number
}

/** The retention of usage counts unless the service's `usage.retention` says otherwise. */
export const DEFAULT_USAGE_RETENTION: UsageRetention = Object.freeze({
  minuteDays: 7,
  hourDays: 90,
  dayDays: 730,
})

const UNIT_MS: Readonly<Record<UsageGranularity, number>> = {
  minute: 60_000,
  hour: 3_600_000,
  day: 86_400_000,
}

/**
 * The start of the bucket of `granularity` that holds `at`, in UTC.
 *
 * @example
 * ```ts
 * bucketStart(new Date('2026-01-02T03:04:05Z'), 'hour') // 2026-01-02T03:00:00.000Z
 * ```
 */
export function bucketStart(at: Date, granularity: UsageGranularity): Date {
  const unit = UNIT_MS[granularity]
  return new Date(Math.floor(at.getTime() / unit) * unit)
}

/**
 * How far back buckets of `granularity` reach at `now`: the finest granularity kept at least
 * that long holds them (minutes 7 days, hours 90, days 730 by default).
 *
 * @example
 * ```ts
 * retentionStart('minute', new Date(), DEFAULT_USAGE_RETENTION) // 7 days ago
 * ```
 */
export function retentionStart(granularity: UsageGranularity, now: Date, retention: UsageRetention): Date {
  return new Date(now.getTime() - retentionDays(granularity, retention) * UNIT_MS.day)
}

/** @internal How many days buckets of `granularity` are kept. */
export function retentionDays(granularity: UsageGranularity, retention: UsageRetention): number {
  return granularity === 'minute'
    ? retention.minuteDays
    : granularity === 'hour'
      ? retention.hourDays
      : retention.dayDays
}

/** @internal The length of a bucket of `granularity`, in milliseconds. */
export const bucketMs = (granularity: UsageGranularity): number => UNIT_MS[granularity]
