import type { AuditQuery, AuditRecord } from './types.js'

/** What narrows a listing of the audit log, besides its developer and project. */
export type AuditFilter = Pick<AuditQuery, 'keyId' | 'action' | 'from' | 'to'>

/** @internal The filter's fields that are given, as a query takes them (none left `undefined`). */
export function auditFilterOf(options: AuditFilter): AuditFilter {
  const { keyId, action, from, to } = options
  return {
    ...(keyId === undefined ? {} : { keyId }),
    ...(action === undefined ? {} : { action }),
    ...(from === undefined ? {} : { from }),
    ...(to === undefined ? {} : { to }),
  }
}

/**
 * Whether a row is one that `filter` keeps: about the key `keyId`, of the action `action`, at or
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
    (filter.action === undefined || row.action === filter.action) &&
    (filter.from === undefined || at >= filter.from.getTime()) &&
    (filter.to === undefined || at < filter.to.getTime())
  )
}
