// Key rows as the store's statements return them, and the records made of them: shared by the
// store's keys and its identities (whose statements return their keys' rows too).
import type {
  CreditLease,
  CreditLeaseRequest,
  CreditState,
  CreditsLowAt,
  IdentityRecord,
  KeyPagePosition,
  KeyPageQuery,
  KeyRecord,
} from '@keyward/core'
import {
  type CreditRowOf,
  creditValues as creditColumns,
  type IdentityRowOf,
  identityOf,
  jsonOrNull,
  type KeyRowOf,
  keyValues,
  type RowValues,
  recordOf,
  refillOf,
  UUID,
} from '@keyward/sql'
import type { SqlQueryable, SqlRow } from './driver.js'
import type { PageStatements, Statement } from './statements.js'

export { jsonOrNull, UUID } from '@keyward/sql'

// What node-postgres and PGlite return: dates, booleans, arrays and parsed JSON; bigint columns as text.
export type PgTypes = { time: Date; flag: boolean; count: string | number; list: string[]; json: unknown }

/** The values of PostgreSQL's drivers: they take and return them as the records hold them. */
export const PG_VALUES: RowValues<PgTypes> = {
  date: (value) => value,
  flag: (value) => value,
  json: <T>(value: unknown) => value as T,
  time: (date) => date,
  bit: (value) => value,
  list: (value) => value,
}

export type KeyRow = KeyRowOf<PgTypes>
export type IdentityRow = IdentityRowOf<PgTypes>

// A key without a limit carries no credit fields; a metered one gets them on its fresh record, in
// one order, so that every record of a kind shares one hidden class (the verification reads them).
export const toRecord = (row: KeyRow): KeyRecord => recordOf(row, PG_VALUES)

/** The record of an identity's row; its roles (schema version 16) only when it holds some. */
export const toIdentity = (row: IdentityRow): IdentityRecord => identityOf(row, PG_VALUES)

/**
 * The parameters of a key's columns ($1 to $23 of an insert): the shared ones, then the pepper,
 * the roles and the low-credits threshold.
 */
export const insertValues = (record: KeyRecord): unknown[] => [
  ...keyValues(record, PG_VALUES),
  record.pepperId ?? null,
  record.roleIds?.length ? record.roleIds : null,
  jsonOrNull(record.creditsLowAt),
]

// The credit columns' parameters: remaining, refill_amount, refill_interval, refill_day, refilled_at.
export const creditValues = (state: CreditState): unknown[] => creditColumns(state, PG_VALUES)

/** A row of a lease of credits (a key's own, or an identity's pool), as the lease statement returns it. */
type LeaseRow = Pick<
  CreditRowOf<PgTypes>,
  'remaining' | 'refill_amount' | 'refill_interval' | 'refill_day'
> & {
  id: string
  granted: string | number
  refilled_at: Date | null
  credits_low_at: CreditsLowAt | null
}

/** The credits of a row (a key's own, or an identity's pool). */
export const creditsOfRow = (
  row: Pick<
    CreditRowOf<PgTypes>,
    'remaining' | 'refill_amount' | 'refill_interval' | 'refill_day' | 'refilled_at'
  >,
): CreditState => ({
  remaining: row.remaining === null ? null : Number(row.remaining),
  refill: refillOf(row),
  refilledAt: row.refilled_at,
})

export const toLease = (row: LeaseRow): CreditLease => ({
  granted: Number(row.granted),
  remaining: row.remaining === null ? null : Number(row.remaining),
  refill: refillOf(row),
  refilledAt: row.refilled_at,
  lowAt: row.credits_low_at,
})

/**
 * @internal Leases of credits with a holder's lease statement: one statement for the distinct ids
 * (an id asked for twice waits for a second statement, after the first), a lease per request in
 * its order, `null` for an unknown id.
 */
export async function leaseMany(
  db: SqlQueryable,
  statement: Statement,
  requests: readonly CreditLeaseRequest[],
  now: Date,
): Promise<(CreditLease | null)[]> {
  const leases: (CreditLease | null)[] = requests.map(() => null)
  let pending = [...requests.entries()].filter(([, request]) => UUID.test(request.id))
  while (pending.length > 0) {
    const round = new Map<string, [number, CreditLeaseRequest]>()
    const later: [number, CreditLeaseRequest][] = []
    for (const entry of pending) {
      const id = entry[1].id.toLowerCase()
      if (round.has(id)) later.push(entry)
      else round.set(id, entry)
    }
    const asked = [...round.values()].map(([, request]) => request)
    const rows = await run<LeaseRow>(db, statement, [
      [...round.keys()],
      asked.map((request) => request.want),
      asked.map((request) => request.need),
      now,
    ])
    const found = new Map(rows.map((row) => [row.id, toLease(row)]))
    for (const [id, [i]] of round) leases[i] = found.get(id) ?? null
    pending = later
  }
  return leases
}

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
