import {
  filterPrefix,
  type KeyFilter,
  type KeyOwner,
  type KeyPage,
  type KeyPagePosition,
  type KeyPageQuery,
} from '@keyward/core'
import type { SqlQueryable } from './driver.js'
import { pageOfRows, toRecord } from './key-rows.js'
import { statementParams } from './sql-params.js'
import type { Statements } from './statements.js'

/**
 * @internal `text` as a pattern of LIKE and ILIKE that matches it anywhere: its `\`, `%` and `_`
 * escaped (backslash is their escape by default).
 */
export const containsPattern = (text: string) => `%${text.replace(/[\\%_]/g, '\\$&')}%`

/**
 * @internal The range of text that starts with `prefix`, compared byte by byte (`~>=~`, `~<~`: the
 * operators of a `text_pattern_ops` index): from `prefix` to `prefix` with its last character
 * the next one. `undefined` for a prefix ending in U+10FFFF, which has no next character.
 */
export function prefixRange(prefix: string): { from: string; to: string } | undefined {
  const chars = Array.from(prefix)
  const last = chars.pop()?.codePointAt(0)
  if (last === undefined || last >= 0x10ffff) return undefined
  // UTF-8 orders characters by code point; surrogates are no characters, and never stored.
  return { from: prefix, to: chars.join('') + String.fromCodePoint(last === 0xd7ff ? 0xe000 : last + 1) }
}

/**
 * @internal One page of the keys `filter` keeps (core's `matchesKeyFilter`), newest first: `q` in
 * the name in any case (ILIKE, which a trigram index serves and the column's statistics estimate)
 * or as the start of `key_prefix` (a range of the prefix index), `status` as the key stands at
 * `filter.now` (each status a range of an index of schema version 12; `leaked` the revoked range,
 * its reason checked on each row).
 */
export function readFilteredPage(
  db: SqlQueryable,
  sql: Statements,
  owner: KeyOwner,
  query: KeyPageQuery,
  filter: KeyFilter,
): Promise<KeyPage> {
  const params = statementParams([owner.id, query.limit + 1])
  const param = params.add
  const conditions: string[] = []
  const prefix = filter.q === undefined ? undefined : filterPrefix(filter.q)
  // An empty prefix (a search of dots only) starts every key: no condition.
  if (filter.q !== undefined && prefix !== '') {
    const name = `name ILIKE ${param(containsPattern(filter.q), 'text')}`
    const range = prefixRange(prefix!)
    conditions.push(
      range
        ? `(${name} OR (key_prefix ~>=~ ${param(range.from, 'text')} AND key_prefix ~<~ ${param(range.to, 'text')}))`
        : `(${name} OR starts_with(key_prefix, ${param(prefix, 'text')}))`,
    )
  }
  if (filter.status === 'revoked') conditions.push('NOT active')
  // A leaked key: a range of the revoked ones, the reason checked on each.
  else if (filter.status === 'leaked') conditions.push("NOT active AND revoked_reason = 'leaked'")
  else if (filter.status === 'expired')
    conditions.push(`active AND expires_at <= ${param(filter.now, 'timestamptz')}`)
  else if (filter.status === 'active') {
    conditions.push(`active AND (expires_at IS NULL OR expires_at > ${param(filter.now, 'timestamptz')})`)
  }
  return readPageWhere(db, sql.listPageFiltered[owner.type], params, conditions, query, toRecord)
}

/**
 * @internal One page, newest first, of `select` (rows of one scope, $1, with their position)
 * narrowed by `conditions`, after the position where the page starts (compared as text, which
 * orders canonical UUIDs as PostgreSQL does). Only the conditions a search has are in the
 * statement, and it is not prepared: PostgreSQL plans each search with its values, choosing the
 * index that the values make selective (a name that nearly every row has, or few rows have).
 */
export async function readPageWhere<R extends { id: string }, T>(
  db: SqlQueryable,
  select: string,
  params: ReturnType<typeof statementParams>,
  conditions: readonly string[],
  { limit, after }: Pick<KeyPageQuery, 'limit' | 'after'>,
  record: (row: R) => T,
): Promise<{ records: T[]; next: KeyPagePosition | null }> {
  const where = [select, ...conditions]
  if (after) {
    const at = params.add(after.createdAt, 'timestamptz')
    where.push(`created_at <= ${at} AND (created_at < ${at} OR id::text < ${params.add(after.id, 'text')})`)
  }
  const rows = await db.query<R & { position_at: string }>(
    `${where.join('\n AND ')}\n ORDER BY created_at DESC, id DESC LIMIT $2`,
    [...params.values],
  )
  return pageOfRows(rows, limit, record)
}
