import { KeywardError } from '../errors/error.js'
import { ErrorType } from '../errors/types.js'
import type { KeyOwner, KeyRecord } from './types.js'

/**
 * The error a store throws when an owner's active-key limit refuses an insert or an
 * activation (409 `limit_exceeded`).
 *
 * @example
 * ```ts
 * if (activeCount >= activeLimit) throw limitExceededError(owner, activeLimit)
 * ```
 */
export function limitExceededError(owner: KeyOwner, activeLimit: number): KeywardError {
  const whose = owner.type === 'developer' ? 'This developer' : 'This project'
  return new KeywardError(
    ErrorType.limitExceeded,
    `${whose} already has ${activeLimit} active keys, the most allowed. Deactivate one before creating or activating another.`,
    [],
  )
}

/**
 * Whether a record counts against its owner's limit at `now`: active, not expired, and not
 * in a grace window (not replaced by a roll). Stores count with this rule.
 *
 * @example
 * ```ts
 * const count = records.filter((record) => countsAgainstLimit(record, now)).length
 * ```
 */
export function countsAgainstLimit(record: KeyRecord, now: Date): boolean {
  return (
    record.active &&
    (record.replacedBy ?? null) === null &&
    (record.expiresAt == null || record.expiresAt.getTime() > now.getTime())
  )
}
