import { KeywardError } from '../errors/error.js'
import { ErrorType } from '../errors/types.js'
import { DEFAULT_PAGE_LIMIT, MAX_PAGE_LIMIT } from '../store/page.js'
import { decodeCursor, invalidCursor, type PagePosition } from './cursor.js'
import { queryParameters } from './query-parameters.js'
import type { KeywardRequest } from './types.js'

/** A listing's `?limit=&cursor=`, read and checked. */
export interface PageQuery {
  /** 1 to 200; 100 when the query does not say. */
  readonly limit: number
  /** Where the page starts; absent for the first page (no cursor, or an empty one). */
  readonly after?: PagePosition
}

/** @internal The query parameters a page reads. */
export const PAGE_QUERY = ['limit', 'cursor'] as const

function checkLimit(values: readonly string[] = []): number {
  const loc = ['query', 'limit']
  if (values.length === 0) return DEFAULT_PAGE_LIMIT
  if (values.length > 1) throw new KeywardError(ErrorType.valueError, 'Give limit at most once.', loc)
  const text = values[0]!
  if (!/^\d{1,9}$/.test(text)) {
    throw new KeywardError(
      ErrorType.intType,
      `Input should be a valid integer, from 1 to ${MAX_PAGE_LIMIT}.`,
      loc,
    )
  }
  const limit = Number(text)
  if (limit < 1)
    throw new KeywardError(ErrorType.greaterThanEqual, 'Input should be greater than or equal to 1.', loc)
  if (limit > MAX_PAGE_LIMIT) {
    throw new KeywardError(
      ErrorType.lessThanEqual,
      `Input should be less than or equal to ${MAX_PAGE_LIMIT}.`,
      loc,
    )
  }
  return limit
}

/**
 * Reads a listing's `?limit=&cursor=` from the request's query string: `limit` an integer from
 * 1 to 200 (default 100), `cursor` the `next_cursor` of the previous page (absent or empty for
 * the first). Throws a 422 {@link KeywardError} at `["query", "limit"]` or `["query", "cursor"]`.
 * Other parameters are left to the route, which refuses those it does not read with
 * {@link checkQueryNames}.
 *
 * @example
 * ```ts
 * const { limit, after } = readPageQuery(request) // ?limit=50&cursor=WyIy...
 * ```
 */
export function readPageQuery(request: Pick<KeywardRequest, 'url'>): PageQuery {
  const { limit, cursor = [] } = queryParameters(request.url, PAGE_QUERY)
  const checked = checkLimit(limit)
  if (cursor.length > 1) throw invalidCursor('give it at most once')
  const given = cursor[0]
  return given === undefined || given === ''
    ? { limit: checked }
    : { limit: checked, after: decodeCursor(given) }
}
