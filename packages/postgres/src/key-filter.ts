import { filterPrefix, type KeyFilter, type KeyOwner, type KeyPage, type KeyPageQuery } from '@keyward/core'
import type { SqlQueryable } from './driver.js'
import { type KeyRow, pageOfRows, run, toRecord } from './key-rows.js'
import type { Statements } from './statements.js'

/**
 * @internal One page of the keys `filter` keeps: `q` lower-cased for the name and as a prefix of
 * `key_prefix`, the status with the time it is judged at, and the position after which the page
 * starts (compared as text, which orders canonical UUIDs as PostgreSQL does).
 */
export async function readFilteredPage(
  db: SqlQueryable,
  sql: Statements,
  owner: KeyOwner,
  query: KeyPageQuery,
  filter: KeyFilter,
): Promise<KeyPage> {
  const q = filter.q ?? null
  const prefix = q === null ? null : filterPrefix(q)
  const params: unknown[] = [
    owner.id,
    query.limit + 1,
    q?.toLowerCase() ?? null,
    prefix,
    filter.status ?? null,
    filter.now,
  ]
  const rows = await run<KeyRow & { position_at: string }>(
    db,
    query.after ? sql.listPageFilteredAfter[owner.type] : sql.listPageFiltered[owner.type],
    query.after ? [...params, query.after.createdAt, query.after.id] : params,
  )
  return pageOfRows(rows, query.limit, toRecord)
}
