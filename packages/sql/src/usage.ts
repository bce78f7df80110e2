// Usage counts on any dialect: one upsert per batch that adds to a stored minute, a read summed
// into the asked buckets (an hour holds its minutes not yet rolled), and bounded compaction in
// one transaction per step.
import {
  bucketStart,
  retentionStart,
  USAGE_GRANULARITIES,
  type UsageBucket,
  type UsageCount,
  type UsageGranularity,
  type UsageQuery,
  type UsageRetention,
} from '@keyward/core'
import { placeholders, type SqlDatabase, type SqlDialect, type SqlExecutor } from './dialect.js'
import type { SqlTables } from './schema.js'

const COLUMNS = 'granularity, bucket, key_id, owner_type, owner_id, route, address, outcome, count'
const CONFLICT = ['granularity', 'bucket', 'key_id', 'route', 'address', 'outcome']
// Rows per statement: well under every dialect's limit of parameters.
const CHUNK = 500

type UsageRow = {
  granularity: UsageGranularity
  bucket: number | string
  key_id: string
  owner_type: string
  owner_id: string
  route: string
  address: string
  outcome: UsageBucket['outcome']
  count: number | string
}

const BUCKET_MS: Readonly<Record<UsageGranularity, number>> = {
  minute: 60_000,
  hour: 3_600_000,
  day: 86_400_000,
}

const COARSER: Readonly<Record<UsageGranularity, UsageGranularity | null>> = {
  minute: 'hour',
  hour: 'day',
  day: null,
}

/** @internal The usage counts of one set of tables. */
export class SqlUsage {
  readonly #table: string
  readonly #upsert: string

  constructor(dialect: SqlDialect, tables: SqlTables) {
    this.#table = tables.usage
    this.#upsert = dialect.upsertAdd(CONFLICT, 'count')
  }

  async record(db: SqlDatabase, counts: readonly UsageCount[]): Promise<void> {
    if (counts.length === 0) return
    const rows = counts.map((c) => [
      'minute',
      bucketStart(c.minute, 'minute').getTime(),
      c.key?.id ?? '',
      c.key?.ownerType ?? '',
      c.key?.ownerId ?? '',
      c.route,
      c.address,
      c.outcome,
      c.count,
    ])
    // In one order (that of the key), so that concurrent batches lock their rows in one order, and
    // in one transaction, which a deadlock runs again (MySQL) and which adds the whole batch or none.
    rows.sort((a, b) => compare(a.join('\u0000'), b.join('\u0000')))
    await db.transaction(async (tx) => {
      for (let i = 0; i < rows.length; i += CHUNK) await this.#add(tx, rows.slice(i, i + CHUNK))
    })
  }

  async #add(db: SqlExecutor, rows: readonly unknown[][]): Promise<void> {
    if (rows.length === 0) return
    const values = rows.map(() => `(${placeholders(9)})`).join(', ')
    await db.run(`INSERT INTO ${this.#table} (${COLUMNS}) VALUES ${values} ${this.#upsert}`, rows.flat())
  }

  async read(db: SqlExecutor, query: UsageQuery): Promise<UsageBucket[]> {
    const finest = USAGE_GRANULARITIES.indexOf(query.granularity)
    const from = bucketStart(query.from, query.granularity).getTime()
    const to = query.to.getTime()
    if (query.keyIds?.length === 0) return []
    const where = ['owner_type = ?', 'owner_id = ?', 'bucket >= ?', 'bucket < ?']
    const params: unknown[] = [query.owner.type, query.owner.id, from, to + BUCKET_MS[query.granularity]]
    if (query.keyId !== undefined) {
      where.push('key_id = ?')
      params.push(query.keyId)
    }
    if (query.keyIds !== undefined) {
      where.push(`key_id IN (${placeholders(query.keyIds.length)})`)
      params.push(...query.keyIds)
    }
    const granularities = USAGE_GRANULARITIES.slice(0, finest + 1)
    where.push(`granularity IN (${placeholders(granularities.length)})`)
    params.push(...granularities)
    const rows = await db.query<UsageRow>(
      `SELECT ${COLUMNS} FROM ${this.#table} WHERE ${where.join(' AND ')}`,
      params,
    )
    const sums = new Map<string, UsageBucket>()
    for (const row of rows) {
      const start = bucketStart(new Date(Number(row.bucket)), query.granularity).getTime()
      if (start < from || start >= to) continue
      const key = `${start}\u0000${row.key_id}\u0000${row.outcome}`
      const count = (sums.get(key)?.count ?? 0) + Number(row.count)
      sums.set(key, { start: new Date(start), keyId: row.key_id, outcome: row.outcome, count })
    }
    return [...sums.values()]
      .filter((bucket) => bucket.count !== 0)
      .sort(
        (a, b) =>
          a.start.getTime() - b.start.getTime() || compare(a.keyId, b.keyId) || compare(a.outcome, b.outcome),
      )
  }

  // Per granularity, at most `limit` rows past its retention: rolled into the coarser one (added to
  // what it holds) and deleted, in one transaction, so that totals never change.
  async compact(db: SqlDatabase, retention: UsageRetention, now: Date, limit: number): Promise<number> {
    let touched = 0
    for (const granularity of USAGE_GRANULARITIES) {
      const horizon = retentionStart(granularity, now, retention).getTime()
      const into = COARSER[granularity]
      touched += await db.transaction(async (tx) => {
        const rows = await tx.query<UsageRow>(
          `SELECT ${COLUMNS} FROM ${this.#table} WHERE granularity = ? AND bucket < ? ORDER BY bucket LIMIT ${Math.trunc(limit)}`,
          [granularity, horizon],
        )
        if (rows.length === 0) return 0
        if (into) {
          await this.#add(
            tx,
            rows.map((row) => [
              into,
              bucketStart(new Date(Number(row.bucket)), into).getTime(),
              row.key_id,
              row.owner_type,
              row.owner_id,
              row.route,
              row.address,
              row.outcome,
              Number(row.count),
            ]),
          )
        }
        for (const row of rows) {
          await tx.run(
            `DELETE FROM ${this.#table} WHERE ${CONFLICT.map((column) => `${column} = ?`).join(' AND ')}`,
            [row.granularity, row.bucket, row.key_id, row.route, row.address, row.outcome],
          )
        }
        return rows.length
      })
    }
    return touched
  }
}

const compare = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0)
