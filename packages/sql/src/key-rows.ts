// Key rows as the statements read them, and the records made of them. Every SQL store stores the
// same values; only their form differs by driver: the SQL dialects here keep times in
// milliseconds, flags 0 or 1, lists and objects as JSON text ({@link TEXT_VALUES}), PostgreSQL
// returns dates, booleans, arrays and parsed JSON. A store names its form once, in a
// {@link RowValues}, and shares the mapping.
import {
  type CreditRefill,
  type CreditState,
  type CreditsLowAt,
  creditState,
  type IdentityRecord,
  type KeyRecord,
  type RevokedReason,
  type RoleRecord,
} from '@keyward/core'
import { inChunks, type SqlExecutor } from './dialect.js'

/** @internal The types in which a driver returns the values of Keyward's columns. */
export interface ColumnTypes {
  readonly time: unknown
  readonly flag: unknown
  readonly count: unknown
  /** A list of text (allowlists, permissions, role ids). */
  readonly list: unknown
  /** An object or a list of objects (metadata, rate limits). */
  readonly json: unknown
}

/** @internal How one driver's values read as a record's, and a record's as parameters. */
export interface RowValues<C extends ColumnTypes> {
  /** A stored time (never null) as a `Date`. */
  date(value: C['time']): Date
  /** A stored flag. */
  flag(value: C['flag']): boolean
  /** A stored JSON value or list (never null). */
  json<T>(value: C['json'] | C['list']): T
  /** A time as a parameter. */
  time(date: Date): unknown
  /** A flag as a parameter. */
  bit(value: boolean): unknown
  /** A list of text as a parameter. */
  list(value: readonly string[]): unknown
}

/** @internal The credit columns of a key's row or an identity's. */
export type CreditRowOf<C extends ColumnTypes> = {
  remaining: C['count'] | null
  refill_amount: C['count'] | null
  refill_interval: 'daily' | 'monthly' | null
  refill_day: number | null
  refilled_at: C['time'] | null
}

/** @internal A key's row in one driver's types. */
export type KeyRowOf<C extends ColumnTypes> = CreditRowOf<C> & {
  id: string
  hash: string
  key_prefix: string
  developer_id: string | null
  project_id: string | null
  name: string | null
  active: C['flag']
  created_at: C['time']
  expires_at: C['time'] | null
  last_used_at: C['time'] | null
  replaced_by: string | null
  revoked_reason: RevokedReason | null
  ip_allowlist: C['list'] | null
  permissions: C['list'] | null
  metadata: C['json'] | null
  ratelimits: C['json'] | null
  identity_id: string | null
  pepper_id: string | null
  /** The ids of the key's roles (schema version 3 of the SQL stores, 14 of PostgreSQL). */
  role_ids?: C['list'] | null
  /** The low-credits threshold (schema version 6 of the SQL stores, 17 of PostgreSQL). */
  credits_low_at?: C['json'] | null
}

/** @internal An identity's row in one driver's types. */
export type IdentityRowOf<C extends ColumnTypes> = CreditRowOf<C> & {
  id: string
  project_id: string
  external_id: string
  metadata: C['json'] | null
  ratelimits: C['json'] | null
  /** The ids of the identity's roles (schema version 5 of the SQL stores, 16 of PostgreSQL). */
  role_ids?: C['list'] | null
  /** The low-credits threshold of the pool (schema version 6 of the SQL stores, 17 of PostgreSQL). */
  credits_low_at?: C['json'] | null
  created_at: C['time']
  updated_at: C['time']
}

/** @internal A role's row in one driver's types. */
export type RoleRowOf<C extends ColumnTypes> = {
  id: string
  project_id: string
  name: string
  permissions: C['list'] | null
  created_at: C['time']
  updated_at: C['time']
}

/** The types of the SQL dialects' values: times in milliseconds, flags 0 or 1, JSON text. */
type TextTypes = {
  time: number | string | bigint
  flag: number | boolean
  count: number | string | bigint
  list: string
  json: string
}

/** A time as stored (milliseconds), or `null`. */
export const millis = (date: Date | null | undefined): number | null => (date ? date.getTime() : null)

/** @internal JSON text of a value, or `null` for none. */
export const jsonOrNull = (value: unknown) =>
  value === null || value === undefined ? null : JSON.stringify(value)

/** @internal The values of the SQL dialects of this package. */
export const TEXT_VALUES: RowValues<TextTypes> = {
  date: (value) => new Date(Number(value)),
  flag: (value) => value === true || Number(value) === 1,
  json: <T>(value: string) => JSON.parse(value) as T,
  time: (date) => date.getTime(),
  bit: (value) => (value ? 1 : 0),
  list: (value) => JSON.stringify(value),
}

export type KeyRow = KeyRowOf<TextTypes>
/** @internal The credit columns of a row, with its id. */
export type CreditRow = CreditRowOf<TextTypes> & { id: string }
export type IdentityRow = IdentityRowOf<TextTypes>
export type RoleRow = RoleRowOf<TextTypes>

/** The columns an insert writes, in the order of {@link insertValues}. */
export const INSERTED_COLUMNS =
  'id, hash, key_prefix, developer_id, project_id, name, active, created_at, expires_at, last_used_at, replaced_by, ip_allowlist, permissions, metadata, remaining, refill_amount, refill_interval, refill_day, refilled_at, ratelimits, identity_id, pepper_id, role_ids, credits_low_at'

/** The columns a record is read from. */
export const KEY_COLUMNS = `${INSERTED_COLUMNS}, revoked_reason`

/** @internal The credit columns' parameters: remaining, refill_amount, refill_interval, refill_day, refilled_at. */
export const creditValues = <C extends ColumnTypes>(
  { remaining, refill, refilledAt }: CreditState,
  values: RowValues<C>,
): unknown[] => [
  remaining,
  refill?.amount ?? null,
  refill?.interval ?? null,
  refill?.interval === 'monthly' ? refill.day : null,
  refilledAt ? values.time(refilledAt) : null,
]

/**
 * @internal The parameters of a key's columns, from `id` to `ratelimits` (in the order of
 * {@link INSERTED_COLUMNS}); a store adds those it has after them.
 */
export const keyValues = <C extends ColumnTypes>(record: KeyRecord, values: RowValues<C>): unknown[] => [
  record.id,
  record.hash,
  record.keyPrefix,
  record.ownerType === 'developer' ? record.ownerId : null,
  record.ownerType === 'project' ? record.ownerId : null,
  record.name,
  values.bit(record.active),
  values.time(record.createdAt),
  record.expiresAt ? values.time(record.expiresAt) : null,
  record.lastUsedAt ? values.time(record.lastUsedAt) : null,
  record.replacedBy ?? null,
  record.ipAllowlist ? values.list(record.ipAllowlist) : null,
  record.permissions ? values.list(record.permissions) : null,
  jsonOrNull(record.metadata),
  ...creditValues(creditState(record), values),
  record.ratelimits?.length ? JSON.stringify(record.ratelimits) : null,
]

/** The parameters of an insert of `record`, in the order of {@link INSERTED_COLUMNS}. */
export const insertValues = (record: KeyRecord): unknown[] => [
  ...keyValues(record, TEXT_VALUES),
  record.identityId ?? null,
  record.pepperId ?? null,
  record.roleIds?.length ? TEXT_VALUES.list(record.roleIds) : null,
  jsonOrNull(record.creditsLowAt),
]

/** @internal A row's refill, or `null`. */
export const refillOf = (
  row: Pick<CreditRowOf<ColumnTypes>, 'refill_amount' | 'refill_interval' | 'refill_day'>,
): CreditRefill | null =>
  row.refill_amount === null || row.refill_interval === null
    ? null
    : row.refill_interval === 'daily'
      ? { amount: Number(row.refill_amount), interval: 'daily' }
      : { amount: Number(row.refill_amount), interval: 'monthly', day: Number(row.refill_day ?? 1) }

/** The credits a row holds. */
export const creditsOf = (row: CreditRowOf<TextTypes>): CreditState =>
  row.remaining === null
    ? { remaining: null, refill: null, refilledAt: null }
    : {
        remaining: Number(row.remaining),
        refill: refillOf(row),
        refilledAt: timeOf(row.refilled_at, TEXT_VALUES),
      }

const timeOf = <C extends ColumnTypes>(value: C['time'] | null, values: RowValues<C>): Date | null =>
  value === null ? null : values.date(value)

const jsonOf = <T, C extends ColumnTypes>(
  value: C['json'] | C['list'] | null,
  values: RowValues<C>,
): T | null => (value === null ? null : values.json<T>(value))

/**
 * @internal The record of a key's row. A key without a limit carries no credit fields; a metered
 * one gets them on its fresh record, in one order, so that every record of a kind shares one
 * hidden class (the verification reads them), on every store.
 */
export function recordOf<C extends ColumnTypes>(row: KeyRowOf<C>, values: RowValues<C>): KeyRecord {
  const record: KeyRecord = {
    id: row.id,
    hash: row.hash,
    keyPrefix: row.key_prefix,
    ownerType: row.developer_id === null ? 'project' : 'developer',
    ownerId: row.developer_id ?? (row.project_id as string),
    name: row.name,
    active: values.flag(row.active),
    createdAt: values.date(row.created_at),
    expiresAt: timeOf(row.expires_at, values),
    lastUsedAt: timeOf(row.last_used_at, values),
    replacedBy: row.replaced_by,
    ipAllowlist: jsonOf(row.ip_allowlist, values),
    permissions: jsonOf(row.permissions, values),
    metadata: jsonOf(row.metadata, values),
  }
  // Absent while active, and for a key deactivated before it was recorded.
  if (row.revoked_reason) Object.assign(record, { revokedReason: row.revoked_reason })
  // Each of these is absent where the key has none, as for a key written before its column was.
  if (row.identity_id !== null) Object.assign(record, { identityId: row.identity_id })
  const ratelimits = jsonOf<unknown[], C>(row.ratelimits, values)
  if (ratelimits?.length) Object.assign(record, { ratelimits })
  // A plain SHA-256 has no pepper.
  if (row.pepper_id !== null && row.pepper_id !== undefined)
    Object.assign(record, { pepperId: row.pepper_id })
  const roleIds = row.role_ids ? values.json<string[]>(row.role_ids) : null
  if (roleIds?.length) Object.assign(record, { roleIds })
  const creditsLowAt = jsonOf<CreditsLowAt, C>(row.credits_low_at ?? null, values)
  if (creditsLowAt) Object.assign(record, { creditsLowAt })
  if (row.remaining === null) return record
  return Object.assign(record, {
    remaining: Number(row.remaining),
    refill: refillOf(row),
    refilledAt: timeOf(row.refilled_at, values),
  })
}

/** @internal The record of an identity's row; its roles only when it holds some. */
export const identityOf = <C extends ColumnTypes>(
  row: IdentityRowOf<C>,
  values: RowValues<C>,
): IdentityRecord => {
  const identity: IdentityRecord = {
    id: row.id,
    projectId: row.project_id,
    externalId: row.external_id,
    metadata: jsonOf(row.metadata, values),
    ratelimits: jsonOf(row.ratelimits, values) ?? [],
    remaining: row.remaining === null ? null : Number(row.remaining),
    refill: refillOf(row),
    refilledAt: timeOf(row.refilled_at, values),
    createdAt: values.date(row.created_at),
    updatedAt: values.date(row.updated_at),
  }
  const roleIds = row.role_ids ? values.json<string[]>(row.role_ids) : null
  const creditsLowAt = jsonOf<CreditsLowAt, C>(row.credits_low_at ?? null, values)
  const held = roleIds?.length ? { ...identity, roleIds } : identity
  return creditsLowAt ? { ...held, creditsLowAt } : held
}

/** @internal The record of a role's row (a list of permissions never written is none). */
export const roleOf = <C extends ColumnTypes>(row: RoleRowOf<C>, values: RowValues<C>): RoleRecord => ({
  id: row.id,
  projectId: row.project_id,
  name: row.name,
  permissions: jsonOf<string[], C>(row.permissions, values) ?? [],
  createdAt: values.date(row.created_at),
  updatedAt: values.date(row.updated_at),
})

/** The record of a row of the SQL dialects. */
export const toRecord = (row: KeyRow): KeyRecord => recordOf(row, TEXT_VALUES)

/** The record of the first row, or `null`. */
export const firstRecord = (rows: readonly KeyRow[]): KeyRecord | null => (rows[0] ? toRecord(rows[0]) : null)

/**
 * @internal The row of a key's values in the order of {@link KEY_COLUMNS} (a driver's row as an
 * array): a literal, so that every such row has one shape.
 */
export const keyRowOf = (v: readonly unknown[]): KeyRow =>
  ({
    id: v[0],
    hash: v[1],
    key_prefix: v[2],
    developer_id: v[3],
    project_id: v[4],
    name: v[5],
    active: v[6],
    created_at: v[7],
    expires_at: v[8],
    last_used_at: v[9],
    replaced_by: v[10],
    ip_allowlist: v[11],
    permissions: v[12],
    metadata: v[13],
    remaining: v[14],
    refill_amount: v[15],
    refill_interval: v[16],
    refill_day: v[17],
    refilled_at: v[18],
    ratelimits: v[19],
    identity_id: v[20],
    pepper_id: v[21],
    role_ids: v[22],
    credits_low_at: v[23],
    revoked_reason: v[24],
  }) as KeyRow

/** The record of a row's values in the order of {@link KEY_COLUMNS}, or `null` for no row. */
export const recordOfValues = (values: readonly unknown[] | undefined): KeyRecord | null =>
  values ? toRecord(keyRowOf(values)) : null

/** @internal Record ids are UUIDs; any other id names no record (and must not reach a uuid column). */
export const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i

/** @internal What a write of one record wrote, for its audit rows. */
export const one = (record: KeyRecord | null): readonly KeyRecord[] => (record ? [record] : [])

/** @internal What a write of many records wrote, for their audit rows. */
export const all = (records: readonly KeyRecord[]) => records

/** @internal The records of the keys of these ids (none read for none), in no order. */
export async function keysById(db: SqlExecutor, table: string, ids: readonly string[]): Promise<KeyRecord[]> {
  const rows = await inChunks(ids, (chunk, list) =>
    db.query<KeyRow>(`SELECT ${KEY_COLUMNS} FROM ${table} WHERE id IN (${list})`, chunk),
  )
  return rows.map(toRecord)
}
