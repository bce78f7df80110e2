import type { AuditQuery, AuditRecord } from './types.js'

/** What narrows a listing of the audit log, besides its developer and project. */
export type AuditFilter = Pick<AuditQuery, 'keyId' | 'identityId' | 'action' | 'from' | 'to'>

/** @internal The filter's fields that are given, as a query takes them (none left `undefined`). */
export function auditFilterOf(options: AuditFilter): AuditFilter {
  const { keyId, identityId, action, from, to } = options
  return {
    ...(keyId === undefined ? {} : { keyId }),
    ...(identityId === undefined ? {} : { identityId }),
    ...(action === undefined ? {} : { action }),
    ...(from === undefined ? {} : { from }),
    ...(to === undefined ? {} : { to }),
  }
}

/**
 * Whether a row is one that `filter` keeps: about the key `keyId`, about the identity
 * `identityId` (its own rows, and those of its keys that name it: issued into it, joining or
 * leaving it, revoked with it), of the action `action`, at or
 * after `from` and before `to`. The rule each store applies (in SQL, or here in memory).
 *
 * @example
 * ```ts
 * const rows = log.filter((row) => matchesAuditFilter(row, { action: 'key.revoked' }))
 * ```
 */
export function matchesAuditFilter(row: AuditRecord, filter: AuditFilter): boolean {
  const at = row.at.getTime()
  return (
    (filter.keyId === undefined || (row.targetType === 'key' && row.targetId === filter.keyId)) &&
    (filter.identityId === undefined || aboutIdentity(row, filter.identityId)) &&
    (filter.action === undefined || row.action === filter.action) &&
    (filter.from === undefined || at >= filter.from.getTime()) &&
    (filter.to === undefined || at < filter.to.getTime())
  )
}

// An identity's own rows, and those of a key that has it, had it or joins it (`identity_id`
// before or after: a key issued into it, joining or leaving it, revoked with it).
const aboutIdentity = (row: AuditRecord, id: string) =>
  (row.targetType === 'identity' && row.targetId === id) ||
  (row.targetType === 'key' && (row.before?.identity_id === id || row.after?.identity_id === id))
