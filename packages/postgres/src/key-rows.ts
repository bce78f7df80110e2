// Key rows as the store's statements return them, and the records made of them: shared by the
// store's keys and its identities (whose statements return their keys' rows too).
import type {
  CreditLease,
  CreditRefill,
  CreditState,
  KeyMetadata,
  KeyPagePosition,
  KeyPageQuery,
  KeyRecord,
  RevokedReason,
  StoredRateLimit,
} from '@keyward/core'
import type { SqlQueryable, SqlRow } from './driver.js'
import type { PageStatements, Statement } from './statements.js'

export type KeyRow = {
  id: string
  hash: string
  key_prefix: string
  developer_id: string | null
  project_id: string | null
  name: string | null
  active: boolean
  created_at: Date
  expires_at: Date | null
  last_used_at: Date | null
  replaced_by: string | null
  revoked_reason: RevokedReason | null
  ip_allowlist: string[] | null
  permissions: string[] | null
  metadata: KeyMetadata | null
  // bigint columns come as text from node-postgres
  remaining: string | number | null
  refill_amount: string | number | null
  refill_interval: 'daily' | 'monthly' | null
  refill_day: number | null
  refilled_at: Date | null
  identity_id: string | null
  ratelimits: StoredRateLimit[] | null
  pepper_id: string | null
  role_ids: string[] | null
}

export const refillOf = (
  row: Pick<KeyRow, 'refill_amount' | 'refill_interval' | 'refill_day'>,
): CreditRefill | null =>
  row.refill_amount === null || row.refill_interval === null
    ? null
    : row.refill_interval === 'daily'
      ? { amount: Number(row.refill_amount), interval: 'daily' }
      : { amount: Number(row.refill_amount), interval: 'monthly', day: row.refill_day ?? 1 }

// A key without a limit carries no credit fields; a metered one gets them on its fresh record, in
// one order, so that every record of a kind shares one hidden class (the verification reads them).
export const toRecord = (row: KeyRow): KeyRecord => {
  const record = plainRecord(row)
  // Absent for a key of no identity, as for a key written before schema version 10.
  if (row.identity_id !== null) Object.assign(record, { identityId: row.identity_id })
  // Absent for a key without stored rate limits, as for a key written before schema version 11.
  if (row.ratelimits?.length) Object.assign(record, { ratelimits: row.ratelimits })
  // Absent for a plain SHA-256, as for a key written before schema version 13.
  if (row.pepper_id !== null && row.pepper_id !== undefined)
    Object.assign(record, { pepperId: row.pepper_id })
  // Absent for a key without roles, as for a key written before schema version 14.
  if (row.role_ids?.length) Object.assign(record, { roleIds: row.role_ids })
  if (row.remaining === null) return record
  return Object.assign(record, {
    remaining: Number(row.remaining),
    refill: refillOf(row),
    refilledAt: row.refilled_at,
  })
}

export const plainRecord = (row: KeyRow): KeyRecord => ({
  id: row.id,
  hash: row.hash,
  keyPrefix: row.key_prefix,
  ownerType: row.developer_id === null ? 'project' : 'developer',
  ownerId: row.developer_id ?? (row.project_id as string),
  name: row.name,
  active: row.active,
  createdAt: row.created_at,
  expiresAt: row.expires_at,
  lastUsedAt: row.last_used_at,
  replacedBy: row.replaced_by,
  // Absent while active, and for a key deactivated before schema version 5.
  ...(row.revoked_reason ? { revokedReason: row.revoked_reason } : {}),
  ipAllowlist: row.ip_allowlist,
  permissions: row.permissions,
  metadata: row.metadata,
})

/** A row of a lease of credits (a key's own, or an identity's pool), as the lease statement returns it. */
export type LeaseRow = Pick<KeyRow, 'remaining' | 'refill_amount' | 'refill_interval' | 'refill_day'> & {
  granted: string | number
}

export const toLease = (row: LeaseRow): CreditLease => ({
  granted: Number(row.granted),
  remaining: row.remaining === null ? null : Number(row.remaining),
  refill: refillOf(row),
})

// The credit columns' parameters: remaining, refill_amount, refill_interval, refill_day, refilled_at.
export const creditValues = ({ remaining, refill, refilledAt }: CreditState): unknown[] => [
  remaining,
  refill?.amount ?? null,
  refill?.interval ?? null,
  refill?.interval === 'monthly' ? refill.day : null,
  refilledAt,
]

// Metadata goes to its jsonb column as JSON text: a driver would write an array for an array.
export const jsonOrNull = (value: unknown) =>
  value === null || value === undefined ? null : JSON.stringify(value)

// Record ids are UUIDs; any other id names no record (and must not reach a uuid column).
export const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i

/** What a write changed, as the change feed names it: a key record, or a closed owner. */
export type Changed = Pick<KeyRecord, 'hash'> & { readonly id?: string }

// A lookup by hash answers one row of NULLs for an unknown key (see `findByHash`).
export const firstRecord = (rows: readonly KeyRow[]): KeyRecord | null =>
  rows[0] && rows[0].id !== null ? toRecord(rows[0]) : null

export function run<R extends SqlRow = KeyRow>(
  db: SqlQueryable,
  { name, text }: Statement,
  params: readonly unknown[],
): Promise<R[]> {
  return db.query<R>(text, params, { name })
}

/**
 * One page of a listing, newest first: one indexed keyset query for one more row than asked,
 * which tells whether a page follows; the next page starts after the last row, at its creation
 * time to the microsecond.
 */
export async function readPage<R extends { id: string }, T>(
  db: SqlQueryable,
  statements: PageStatements,
  scope: string,
  { limit, after }: KeyPageQuery,
  record: (row: R) => T,
): Promise<{ records: T[]; next: KeyPagePosition | null }> {
  const rows = await run<R & { position_at: string }>(
    db,
    !after ? statements.first : UUID.test(after.id) ? statements.after : statements.afterText,
    after ? [scope, limit + 1, after.createdAt, after.id] : [scope, limit + 1],
  )
  return pageOfRows(rows, limit, record)
}

/**
 * @internal A page of at most `limit` records from rows read with one more than that (which tells
 * whether a page follows), and the position of its last one, to the microsecond.
 */
export function pageOfRows<R extends { id: string; position_at: string }, T>(
  rows: readonly R[],
  limit: number,
  record: (row: R) => T,
): { records: T[]; next: KeyPagePosition | null } {
  const page = rows.slice(0, limit)
  const last = page.at(-1)
  return {
    records: page.map(record),
    next: rows.length > limit && last ? { createdAt: last.position_at, id: last.id } : null,
  }
}
