// One page of a listing, newest first (`created_at` descending, then `id` descending): one keyset
// query on an index of (scope, created_at, id), for one more row than asked, which tells whether
// a page follows. Keys of an owner, keys of an identity and a project's identities share it.
import type { KeyPagePosition, KeyPageQuery } from '@keyward/core'
import type { SqlExecutor, SqlRow } from './dialect.js'

/**
 * @internal The keyset conditions of a listing `SELECT columns FROM table WHERE scope = ?`, and
 * `condition` when one is given (its parameters follow the scope's).
 */
export function pageStatements(columns: string, table: string, scope: string, condition?: string) {
  const order = ' ORDER BY created_at DESC, id DESC'
  const where = `WHERE ${scope} = ?${condition ? ` AND ${condition}` : ''}`
  return {
    first: `SELECT ${columns} FROM ${table} ${where}${order}`,
    after: `SELECT ${columns} FROM ${table} ${where} AND (created_at < ? OR (created_at = ? AND id < ?))${order}`,
  }
}

/** @internal The statements of {@link pageStatements}. */
export type PageStatements = ReturnType<typeof pageStatements>

/** @internal Reads one page of `statements` for `scope` (and the condition's `values`) and maps its rows. */
export async function readPage<R extends SqlRow, T extends { createdAt: Date; id: string }>(
  db: SqlExecutor,
  statements: PageStatements,
  scope: string,
  { limit, after }: Pick<KeyPageQuery, 'limit' | 'after'>,
  map: (row: R) => T,
  values: readonly unknown[] = [],
): Promise<{ records: T[]; next: KeyPagePosition | null }> {
  const take = ` LIMIT ${Math.trunc(limit) + 1}`
  const at = after ? new Date(after.createdAt).getTime() : 0
  if (after && Number.isNaN(at)) return { records: [], next: null }
  const rows = after
    ? await db.query<R>(statements.after + take, [scope, ...values, at, at, after.id])
    : await db.query<R>(statements.first + take, [scope, ...values])
  const records = rows.slice(0, limit).map(map)
  const last = records.at(-1)
  return {
    records,
    next: rows.length > limit && last ? { createdAt: last.createdAt.toISOString(), id: last.id } : null,
  }
}
