import { ErrorType } from '../errors/types.js'
import { holdsKeyMaterial } from '../key/material.js'
import { MAX_NAME_LENGTH } from '../service/name.js'
import { KEY_STATUSES, type KeyStatus } from '../store/key-filter.js'
import { invalidQuery, queryParameters, singleValue } from './query-parameters.js'
import type { KeywardRequest } from './types.js'

/** @internal The query parameters a key listing's filter reads. */
export const KEY_FILTER_QUERY = ['q', 'status'] as const

/**
 * @internal A listing's `?q=`, checked: at most `max` characters, never shaped like a key (a
 * search that holds a key is refused, never run: a prefix finds the key, and the key has left in
 * a URL). Throws a 422 at `["query", "q"]`.
 */
export function checkSearch(q: string | undefined, max: number): string | undefined {
  if (q !== undefined && q.length > max) {
    throw invalidQuery(
      ErrorType.stringTooLong,
      'q',
      `String should have at most ${max} characters, got ${q.length}.`,
    )
  }
  if (q !== undefined && holdsKeyMaterial(q)) {
    throw invalidQuery(
      ErrorType.keyShapedValue,
      'q',
      'The search holds something shaped like a key: search by its first 8 characters (ak_Ab3xY), and if it is a real key, deactivate it.',
    )
  }
  return q
}

/**
 * @internal A key listing's `?q=&status=`, read and checked: `q` 1 to 100 characters (an empty one
 * is none, never shaped like a key), `status` one of `active`, `expired`, `revoked`, `leaked`. Throws a 422
 * at `["query", name]`.
 */
export function readKeyFilterQuery(request: Pick<KeywardRequest, 'url'>): { q?: string; status?: KeyStatus } {
  const found = queryParameters(request.url, KEY_FILTER_QUERY)
  const q = checkSearch(singleValue(found, 'q'), MAX_NAME_LENGTH)
  const status = singleValue(found, 'status')
  if (status !== undefined && !KEY_STATUSES.includes(status as KeyStatus)) {
    throw invalidQuery(
      ErrorType.valueError,
      'status',
      "Input should be 'active', 'expired', 'revoked' or 'leaked'.",
    )
  }
  return {
    ...(q === undefined ? {} : { q }),
    ...(status === undefined ? {} : { status: status as KeyStatus }),
  }
}
