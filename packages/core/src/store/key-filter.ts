import type { KeyRecord } from './record.js'

/** The statuses a listing of keys can be narrowed to, as `?status=` names them. */
export const KEY_STATUSES = ['active', 'expired', 'revoked', 'leaked'] as const

/**
 * What a key is, for a listing's `status`: `active` (active, not expired: a roll's old key in its
 * grace window too), `expired` (active, past its `expires_at`), `revoked` (deactivated, whatever
 * the reason) or `leaked` (deactivated by a leak report, `revokedReason: 'leaked'`: some of the
 * revoked keys).
 */
export type KeyStatus = (typeof KEY_STATUSES)[number]

/** Which keys a listing holds: those whose name or prefix matches `q`, of one status; at `now`. */
export interface KeyFilter {
  /**
   * A key matches when its name contains `q` (any case), or when its `keyPrefix` starts with it
   * (`ak_Ab3`, or the display form `ak_Ab3xY...`: the dots are left out).
   */
  readonly q?: string
  readonly status?: KeyStatus
  /** The time `expired` is judged at. */
  readonly now: Date
}

/**
 * The start of a key prefix that `q` names: `q` without the dots of a display form.
 *
 * @example
 * ```ts
 * filterPrefix('ak_Ab3xY...') // 'ak_Ab3xY'
 * ```
 */
export const filterPrefix = (q: string): string => q.replace(/\.{1,3}$/, '')

/**
 * Whether `record` is one that `filter` keeps: the rule each store applies (in SQL, or here for a
 * store that filters in memory).
 *
 * @example
 * ```ts
 * const found = records.filter((record) => matchesKeyFilter(record, { q: 'ci', now: new Date() }))
 * ```
 */
export function matchesKeyFilter(record: KeyRecord, filter: KeyFilter): boolean {
  if (filter.status !== undefined && !hasKeyStatus(record, filter.status, filter.now)) return false
  if (filter.q === undefined) return true
  const q = filter.q.toLowerCase()
  return (record.name ?? '').toLowerCase().includes(q) || record.keyPrefix.startsWith(filterPrefix(filter.q))
}

/**
 * What a key is at `now`, for a listing's `status`: `leaked` for a key a leak report revoked,
 * `revoked` for any other deactivated key.
 *
 * @example
 * ```ts
 * keyStatus({ active: true, expiresAt: new Date(0) }, new Date()) // 'expired'
 * keyStatus({ active: false, revokedReason: 'leaked' }, new Date()) // 'leaked'
 * ```
 */
export function keyStatus(
  record: Pick<KeyRecord, 'active' | 'expiresAt' | 'revokedReason'>,
  now: Date,
): KeyStatus {
  if (!record.active) return record.revokedReason === 'leaked' ? 'leaked' : 'revoked'
  return record.expiresAt && record.expiresAt.getTime() <= now.getTime() ? 'expired' : 'active'
}

/**
 * Whether a key is of `status` at `now`: a leaked key is `revoked` too.
 *
 * @example
 * ```ts
 * hasKeyStatus({ active: false, revokedReason: 'leaked' }, 'revoked', new Date()) // true
 * ```
 */
export function hasKeyStatus(
  record: Pick<KeyRecord, 'active' | 'expiresAt' | 'revokedReason'>,
  status: KeyStatus,
  now: Date,
): boolean {
  const found = keyStatus(record, now)
  return found === status || (status === 'revoked' && found === 'leaked')
}
