import {
  bucketStart,
  retentionStart,
  type UsageBucket,
  type UsageCount,
  type UsageGranularity,
  type UsageOutcome,
  type UsageQuery,
  type UsageRetention,
} from '@keyward/core'
import type { SqlQueryable } from './driver.js'
import { type Statement, statementPrefix } from './statements.js'

/** The statements of usage counts, for one schema. */
interface UsageStatements {
  readonly record: Statement
  readonly read: Statement
  /** Rolls minutes into hours, hours into days. */
  readonly roll: Readonly<Record<'minute' | 'hour', Statement>>
  readonly purge: Statement
}

// The row a count is stored under: its bucket, key (or route and address) and outcome.
const KEY_COLUMNS = 'granularity, bucket, key_id, outcome, route, address'

const COARSER = { minute: 'hour', hour: 'day' } as const

// The granularities whose rows a bucket of each granularity sums.
const FINER: Readonly<Record<UsageGranularity, readonly UsageGranularity[]>> = {
  minute: ['minute'],
  hour: ['minute', 'hour'],
  day: ['minute', 'hour', 'day'],
}

const cache = new Map<string, UsageStatements>()

function usageStatementsFor(schema: string): UsageStatements {
  const cached = cache.get(schema)
  if (cached) return cached
  const table = `"${schema}".key_usage`
  const prefix = statementPrefix(schema)
  const named = (name: string, text: string): Statement => ({ name: `${prefix}_usage_${name}`, text })
  // The oldest rows of one granularity past its horizon, at most `limit`, locked: two processes
  // compacting at once take different rows (SKIP LOCKED), and a flush waits only on the rows it adds to.
  const oldest = (granularity: string, before: string, limit: string) =>
    `(${KEY_COLUMNS}) IN (SELECT ${KEY_COLUMNS} FROM ${table}
       WHERE granularity = ${granularity} AND bucket < ${before}
       ORDER BY bucket LIMIT ${limit} FOR UPDATE SKIP LOCKED)`
  const roll = (from: 'minute' | 'hour') =>
    named(
      `roll_${from}`,
      `WITH moved AS (
         DELETE FROM ${table} WHERE ${oldest(`'${from}'`, '$1', '$2')} RETURNING *
       ), rolled AS (
         INSERT INTO ${table} AS u (granularity, bucket, key_id, owner_type, owner_id, outcome, route, address, count)
         SELECT '${COARSER[from]}', date_trunc('${COARSER[from]}', bucket, 'UTC'), key_id, owner_type,
           owner_id, outcome, route, address, sum(count)
         FROM moved GROUP BY 2, 3, 4, 5, 6, 7, 8
         ON CONFLICT (${KEY_COLUMNS}) DO UPDATE SET count = u.count + EXCLUDED.count
       )
       SELECT count(*)::int AS touched FROM moved`,
    )
  const statements: UsageStatements = {
    // One statement per batch: the batch's counts summed per row first (a retried count and a
    // new one of the same minute may both be in it), in the primary key's order, so that two
    // processes adding to the same rows lock them in one order.
    record: named(
      'record',
      `INSERT INTO ${table} AS u (granularity, bucket, key_id, owner_type, owner_id, outcome, route, address, count)
       SELECT 'minute', bucket, key_id, owner_type, owner_id, outcome, route, address, sum(count)
       FROM unnest($1::timestamptz[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[],
         $7::text[], $8::bigint[]) AS c(bucket, key_id, owner_type, owner_id, outcome, route, address, count)
       GROUP BY bucket, key_id, owner_type, owner_id, outcome, route, address
       ORDER BY bucket, key_id, outcome, route, address
       ON CONFLICT (${KEY_COLUMNS}) DO UPDATE SET count = u.count + EXCLUDED.count`,
    ),
    read: named(
      'read',
      `SELECT date_trunc($1, bucket, 'UTC') AS start, key_id, outcome, sum(count)::bigint AS count
       FROM ${table}
       WHERE owner_type = $2 AND owner_id = $3 AND key_id <> '' AND granularity = ANY($4::text[])
         AND bucket >= $5 AND bucket < $6 AND ($7::text IS NULL OR key_id = $7)
         AND ($8::text[] IS NULL OR key_id = ANY($8::text[]))
       GROUP BY 1, 2, 3 HAVING sum(count) <> 0
       ORDER BY 1, 2, 3`,
    ),
    roll: { minute: roll('minute'), hour: roll('hour') },
    purge: named(
      'purge',
      `WITH gone AS (DELETE FROM ${table} WHERE ${oldest("'day'", '$1', '$2')} RETURNING 1)
       SELECT count(*)::int AS touched FROM gone`,
    ),
  }
  cache.set(schema, statements)
  return statements
}

const run = (db: SqlQueryable, { name, text }: Statement, params: readonly unknown[]) =>
  db.query(text, params, { name })

/** @internal Usage counts in the table `key_usage` of a schema, for {@link PostgresKeyStore}. */
export class PostgresUsage {
  readonly #sql: UsageStatements

  constructor(schema: string) {
    this.#sql = usageStatementsFor(schema)
  }

  async record(db: SqlQueryable, counts: readonly UsageCount[]): Promise<void> {
    if (counts.length === 0) return
    const columns: unknown[][] = [[], [], [], [], [], [], [], []]
    for (const c of counts) {
      columns[0]!.push(c.minute)
      columns[1]!.push(c.key?.id ?? '')
      columns[2]!.push(c.key?.ownerType ?? '')
      columns[3]!.push(c.key?.ownerId ?? '')
      columns[4]!.push(c.outcome)
      columns[5]!.push(c.route)
      columns[6]!.push(c.address)
      columns[7]!.push(c.count)
    }
    await run(db, this.#sql.record, columns)
  }

  async read(db: SqlQueryable, query: UsageQuery): Promise<UsageBucket[]> {
    const rows = await run(db, this.#sql.read, [
      query.granularity,
      query.owner.type,
      query.owner.id,
      FINER[query.granularity],
      bucketStart(query.from, query.granularity),
      query.to,
      query.keyId ?? null,
      query.keyIds === undefined ? null : [...query.keyIds],
    ])
    return rows.map((row) => ({
      start: new Date(row.start as Date),
      keyId: row.key_id as string,
      outcome: row.outcome as UsageOutcome,
      count: Number(row.count),
    }))
  }

  async compact(db: SqlQueryable, retention: UsageRetention, now: Date, limit: number): Promise<number> {
    let touched = 0
    for (const from of ['minute', 'hour'] as const) {
      const [row] = await run(db, this.#sql.roll[from], [retentionStart(from, now, retention), limit])
      touched += Number(row?.touched ?? 0)
    }
    const [row] = await run(db, this.#sql.purge, [retentionStart('day', now, retention), limit])
    return touched + Number(row?.touched ?? 0)
  }
}
