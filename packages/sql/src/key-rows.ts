// Key rows as the shared statements read them, and the records made of them. Every dialect
// stores the same values: times in milliseconds, flags 0 or 1, lists and objects as JSON text.
import {
  type CreditRefill,
  type CreditState,
  creditState,
  type KeyRecord,
  type RevokedReason,
} from '@keyward/core'

export type KeyRow = {
  id: string
  hash: string
  key_prefix: string
  developer_id: string | null
  project_id: string | null
  name: string | null
  active: number | boolean
  created_at: number | string | bigint
  expires_at: number | string | bigint | null
  last_used_at: number | string | bigint | null
  replaced_by: string | null
  revoked_reason: RevokedReason | null
  ip_allowlist: string | null
  permissions: string | null
  metadata: string | null
  remaining: number | string | bigint | null
  refill_amount: number | string | bigint | null
  refill_interval: 'daily' | 'monthly' | null
  refill_day: number | null
  refilled_at: number | string | bigint | null
  ratelimits: string | null
  identity_id: string | null
  pepper_id: string | null
}

/** The columns an insert writes, in the order of {@link insertValues}. */
export const INSERTED_COLUMNS =
  'id, hash, key_prefix, developer_id, project_id, name, active, created_at, expires_at, last_used_at, replaced_by, ip_allowlist, permissions, metadata, remaining, refill_amount, refill_interval, refill_day, refilled_at, ratelimits, identity_id, pepper_id'

/** The columns a record is read from. */
export const KEY_COLUMNS = `${INSERTED_COLUMNS}, revoked_reason`

/** A time as stored (milliseconds), or `null`. */
export const millis = (date: Date | null | undefined): number | null => (date ? date.getTime() : null)

export const dateOf = (value: number | string | bigint | null): Date | null =>
  value === null ? null : new Date(Number(value))

export const parsed = <T>(value: string | null): T | null =>
  value === null ? null : (JSON.parse(value) as T)

/** JSON text of a value, or `null` for none. */
export const jsonOrNull = (value: unknown) =>
  value === null || value === undefined ? null : JSON.stringify(value)

// The credit columns' parameters: remaining, refill_amount, refill_interval, refill_day, refilled_at.
export const creditValues = ({ remaining, refill, refilledAt }: CreditState): unknown[] => [
  remaining,
  refill?.amount ?? null,
  refill?.interval ?? null,
  refill?.interval === 'monthly' ? refill.day : null,
  millis(refilledAt),
]

/** The parameters of an insert of `record`, in the order of {@link INSERTED_COLUMNS}. */
export const insertValues = (record: KeyRecord): unknown[] => [
  record.id,
  record.hash,
  record.keyPrefix,
  record.ownerType === 'developer' ? record.ownerId : null,
  record.ownerType === 'project' ? record.ownerId : null,
  record.name,
  record.active ? 1 : 0,
  record.createdAt.getTime(),
  millis(record.expiresAt),
  millis(record.lastUsedAt),
  record.replacedBy ?? null,
  jsonOrNull(record.ipAllowlist),
  jsonOrNull(record.permissions),
  jsonOrNull(record.metadata),
  ...creditValues(creditState(record)),
  record.ratelimits?.length ? JSON.stringify(record.ratelimits) : null,
  record.identityId ?? null,
  record.pepperId ?? null,
]

type CreditRow = Pick<
  KeyRow,
  'remaining' | 'refill_amount' | 'refill_interval' | 'refill_day' | 'refilled_at'
>

const refillOf = (row: CreditRow): CreditRefill | null =>
  row.refill_amount === null || row.refill_interval === null
    ? null
    : row.refill_interval === 'daily'
      ? { amount: Number(row.refill_amount), interval: 'daily' }
      : { amount: Number(row.refill_amount), interval: 'monthly', day: Number(row.refill_day ?? 1) }

/** The credits a row holds. */
export const creditsOf = (row: CreditRow): CreditState =>
  row.remaining === null
    ? { remaining: null, refill: null, refilledAt: null }
    : { remaining: Number(row.remaining), refill: refillOf(row), refilledAt: dateOf(row.refilled_at) }

/** The record of a row: in the field order of the PostgreSQL store's records, so that caches see one shape. */
export const toRecord = (row: KeyRow): KeyRecord => {
  const record: KeyRecord = {
    id: row.id,
    hash: row.hash,
    keyPrefix: row.key_prefix,
    ownerType: row.developer_id === null ? 'project' : 'developer',
    ownerId: row.developer_id ?? (row.project_id as string),
    name: row.name,
    active: row.active === true || Number(row.active) === 1,
    createdAt: dateOf(row.created_at) as Date,
    expiresAt: dateOf(row.expires_at),
    lastUsedAt: dateOf(row.last_used_at),
    replacedBy: row.replaced_by,
    ...(row.revoked_reason ? { revokedReason: row.revoked_reason } : {}),
    ipAllowlist: parsed(row.ip_allowlist),
    permissions: parsed(row.permissions),
    metadata: parsed(row.metadata),
  }
  if (row.identity_id !== null) Object.assign(record, { identityId: row.identity_id })
  const ratelimits = parsed<unknown[]>(row.ratelimits)
  if (ratelimits?.length) Object.assign(record, { ratelimits })
  // Absent for a plain SHA-256, as for a key written before schema version 2.
  if (row.pepper_id !== null) Object.assign(record, { pepperId: row.pepper_id })
  if (row.remaining === null) return record
  const credits = creditsOf(row)
  return Object.assign(record, {
    remaining: credits.remaining,
    refill: credits.refill,
    refilledAt: credits.refilledAt,
  })
}

/** The record of the first row, or `null`. */
export const firstRecord = (rows: readonly KeyRow[]): KeyRecord | null => (rows[0] ? toRecord(rows[0]) : null)

// Record ids are UUIDs; any other id names no record.
export const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i
