import { filterPrefix, type KeyFilter, type KeyOwner, type KeyPage, type KeyPageQuery } from '@keyward/core'
import type { SqlQueryable } from './driver.js'
import { type KeyRow, pageOfRows, toRecord } from './key-rows.js'
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
 * the name in any case (ILIKE, which a trigram index serves and the column's statistics estimate) or as the start of `key_prefix` (a
 * range of the prefix index), `status` as the key stands at `filter.now` (each status one range of
 * an index of schema version 12), after the position where the page starts (compared as text,
 * which orders canonical UUIDs as PostgreSQL does). Only the conditions the filter has are in the
 * statement, and it is not prepared: PostgreSQL plans each search with its values, choosing the
 * index that the values make selective (a name that nearly every key has, or few keys have).
 */
export async function readFilteredPage(
  db: SqlQueryable,
  sql: Statements,
  owner: KeyOwner,
  query: KeyPageQuery,
  filter: KeyFilter,
): Promise<KeyPage> {
  const { values, add: param } = statementParams([owner.id, query.limit + 1])
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
  else if (filter.status === 'expired')
    conditions.push(`active AND expires_at <= ${param(filter.now, 'timestamptz')}`)
  else if (filter.status === 'active') {
    conditions.push(`active AND (expires_at IS NULL OR expires_at > ${param(filter.now, 'timestamptz')})`)
  }
  if (query.after) {
    const at = param(query.after.createdAt, 'timestamptz')
    conditions.push(
      `created_at <= ${at} AND (created_at < ${at} OR id::text < ${param(query.after.id, 'text')})`,
    )
  }
  const text = [sql.listPageFiltered[owner.type], ...conditions].join('\n AND ')
  const rows = await db.query<KeyRow & { position_at: string }>(
    `${text}\n ORDER BY created_at DESC, id DESC LIMIT $2`,
    values,
  )
  return pageOfRows(rows, query.limit, toRecord)
}
