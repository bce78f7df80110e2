// The scheduler's round of refills on PostgreSQL (`WebhookStore.refillCredits`): the keys and
// identity pools whose refill is due, locked (`SKIP LOCKED`: a row a lease holds waits for the
// next round), refilled by core's rule (`refillRound`) and written back in one statement per
// table, in the transaction that writes their `credits.refilled` events.
import { type RefilledCredits, refillRound } from '@keyward/core'
import type { SqlQueryable } from './driver.js'
import { creditsOfRow } from './key-rows.js'

type DueRow = {
  id: string
  live: boolean
  key_prefix: string | null
  name: string | null
  external_id: string | null
  developer_id: string | null
  project_id: string | null
  remaining: string | number
  refill_amount: string | number
  refill_interval: 'daily' | 'monthly'
  refill_day: number | null
  refilled_at: Date | null
  refill_due_at: Date | null
}

/** @internal The statements of a round on one holder's table. */
interface RefillStatements {
  readonly due: string
  readonly write: string
}

const refillStatements = (table: string, columns: string): RefillStatements => ({
  // The partial index on refill_due_at holds the rows with a rule: a round reads the due ones.
  due: `SELECT id::text, ${columns}, remaining, refill_amount, refill_interval, refill_day, refilled_at, refill_due_at
    FROM ${table}
    WHERE refill_amount IS NOT NULL AND remaining IS NOT NULL AND (refill_due_at IS NULL OR refill_due_at <= $1)
    ORDER BY refill_due_at NULLS FIRST, id LIMIT $2 FOR UPDATE SKIP LOCKED`,
  write: `UPDATE ${table} AS t SET remaining = u.remaining, refilled_at = u.refilled_at, refill_due_at = u.due_at
    FROM unnest($1::uuid[], $2::bigint[], $3::timestamptz[], $4::timestamptz[]) AS u(id, remaining, refilled_at, due_at)
    WHERE t.id = u.id`,
})

/** @internal The statements of a round, for one schema. */
export const creditRefillStatements = (schema: string) => ({
  key: refillStatements(
    `"${schema}".api_keys`,
    'active AND replaced_by IS NULL AS live, key_prefix, name, NULL::text AS external_id, developer_id, project_id',
  ),
  identity: refillStatements(
    `"${schema}".identities`,
    'true AS live, NULL::text AS key_prefix, NULL::text AS name, external_id, NULL::text AS developer_id, project_id',
  ),
})

/**
 * @internal One round over the due rows, in the caller's transaction (which holds the scheduler's
 * lock): refills and moves each row's `refill_due_at`, and returns the holders whose period
 * turned (a key revoked or replaced is refilled and moved on, and told of no more).
 */
export async function refillDue(
  tx: SqlQueryable,
  statements: ReturnType<typeof creditRefillStatements>,
  now: Date,
  limit: number,
): Promise<RefilledCredits[]> {
  const turned: RefilledCredits[] = []
  let left = limit
  for (const holder of ['key', 'identity'] as const) {
    if (left <= 0) break
    const rows = await tx.query<DueRow>(statements[holder].due, [now, left])
    left -= rows.length
    const written: [string[], (number | null)[], (Date | null)[], (Date | null)[]] = [[], [], [], []]
    for (const row of rows) {
      const state = creditsOfRow(row)
      const round = refillRound(state, row.refill_due_at, now)
      written[0].push(row.id)
      written[1].push(round.after.remaining)
      written[2].push(round.after.refilledAt)
      written[3].push(round.nextDueAt)
      if (!round.turned || !row.live) continue
      turned.push({
        holder,
        id: row.id,
        keyPrefix: row.key_prefix,
        name: row.name,
        externalId: row.external_id,
        ownerType: row.developer_id === null ? 'project' : 'developer',
        ownerId: row.developer_id ?? row.project_id!,
        amount: state.refill!.amount,
        remaining: round.after.remaining!,
        periodStart: round.after.refilledAt!,
      })
    }
    if (rows.length > 0) await tx.query(statements[holder].write, written)
  }
  return turned
}
