import { KEY_STATUSES, type KeyFilter, type KeyStatus } from '../store/key-filter.js'
import { MAX_NAME_LENGTH } from './name.js'

export type { KeyStatus }

/**
 * @internal The filter of a listing's `q` and `status`, checked (a caller's mistake is a
 * `TypeError` that names the option), as a store's query takes it; nothing without either.
 */
export function keyFilter(
  options: { readonly q?: string; readonly status?: KeyStatus },
  now: Date,
): { filter?: KeyFilter } {
  const { q, status } = options
  if (q !== undefined && (typeof q !== 'string' || q.length < 1 || q.length > MAX_NAME_LENGTH)) {
    throw new TypeError(`listKeysPage: option \`q\` must be a string of 1 to ${MAX_NAME_LENGTH} characters.`)
  }
  if (status !== undefined && !KEY_STATUSES.includes(status)) {
    throw new TypeError(`listKeysPage: option \`status\` must be one of ${KEY_STATUSES.join(', ')}.`)
  }
  if (q === undefined && status === undefined) return {}
  return { filter: { now, ...(q === undefined ? {} : { q }), ...(status === undefined ? {} : { status }) } }
}
