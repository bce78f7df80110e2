import { matchesKeyFilter } from './key-filter.js'
import type { KeyPage, KeyPagePosition, KeyPageQuery, KeyRecord } from './types.js'

/** The most records one page of a listing holds. */
export const MAX_PAGE_LIMIT = 200

/** How many records a page holds when the caller does not say. */
export const DEFAULT_PAGE_LIMIT = 100

// Newest first: `createdAt` descending, then `id` descending (ids compared as strings, as
// PostgreSQL compares UUIDs: byte for byte, which is the order of their lower-case text).
const newerFirst = (a: KeyPagePosition, b: KeyPagePosition): number =>
  time(b) - time(a) || (a.id < b.id ? 1 : a.id > b.id ? -1 : 0)
const time = (position: KeyPagePosition) => new Date(position.createdAt).getTime()

/**
 * One page of `records` in the order of {@link KeyStore.listKeysPage}: newest first, at most
 * `query.limit` after `query.after` of those `query.filter` keeps, with the position of the last
 * one when more follow. For a
 * store that holds an owner's records in memory; the service uses it for a store without
 * `listKeysPage`.
 *
 * @example
 * ```ts
 * async listKeysPage(owner, query) {
 *   return keyPage(await this.listKeysByOwner(owner), query)
 * }
 * ```
 */
export function keyPage(records: readonly KeyRecord[], query: KeyPageQuery): KeyPage {
  const { after, limit, filter } = query
  const kept = filter ? records.filter((record) => matchesKeyFilter(record, filter)) : records
  const sorted = [...kept].sort(newerFirst)
  const start = after ? sorted.findIndex((record) => newerFirst(after, record) < 0) : 0
  const rest = start < 0 ? [] : sorted.slice(start)
  const page = rest.slice(0, limit)
  const last = page.at(-1)
  return {
    records: page,
    next: rest.length > limit && last ? { createdAt: last.createdAt, id: last.id } : null,
  }
}
