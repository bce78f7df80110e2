import { KeywardError } from '../errors/error.js'
import { unknownField } from '../errors/extra-fields.js'
import { ErrorType } from '../errors/types.js'
import type { KeywardRequest } from './types.js'

/** The values a query string gives each of `names`, decoded (`+` as a space), in order. */
export type QueryValues<Name extends string> = Partial<Record<Name, string[]>>

// Decoded, `+` as a space; text that is not URL-encoded is kept as sent (its check refuses it).
function decoded(raw: string): string {
  const text = raw.replace(/\+/g, ' ')
  try {
    return decodeURIComponent(text)
  } catch {
    return text
  }
}

/**
 * @internal The query string's parameters as [name, value] pairs, decoded, in order; empty pairs
 * (`?&a=1&`) left out. The one reader of query strings.
 */
export function queryPairs(url: string): Array<[name: string, value: string]> {
  const start = url.indexOf('?')
  if (start < 0) return []
  const end = url.indexOf('#', start)
  const pairs: Array<[string, string]> = []
  for (const pair of url.slice(start + 1, end < 0 ? undefined : end).split('&')) {
    if (pair === '') continue
    const eq = pair.indexOf('=')
    pairs.push(eq < 0 ? [decoded(pair), ''] : [decoded(pair.slice(0, eq)), decoded(pair.slice(eq + 1))])
  }
  return pairs
}

/**
 * @internal The values of the query string of `url` for each of `names`, decoded; a value that is
 * not URL-encoded text is kept as sent (its check refuses it). Other parameters are left out.
 */
export function queryParameters<Name extends string>(url: string, names: readonly Name[]): QueryValues<Name> {
  const found: QueryValues<Name> = {}
  for (const [name, value] of queryPairs(url)) {
    if (!names.includes(name as Name)) continue
    const values = found[name as Name] ?? []
    values.push(value)
    found[name as Name] = values
  }
  return found
}

/**
 * Refuses a query parameter that `names` does not hold, as unknown body fields are refused: 422
 * `extra_forbidden` at `["query", name]`, the message naming the nearest known parameter ("did
 * you mean `status`?"), listing them when none is near, or saying the route takes none. A name
 * shaped like a key is not repeated. Every route of Keyward's HTTP API calls it with the names
 * it reads, after its credential is checked and before anything else, so a misspelt filter
 * never lists everything and a parameter the route does not have never passes for one it has.
 * Names are compared decoded (`st%61tus` is `status`), exactly otherwise.
 *
 * @example
 * ```ts
 * checkQueryNames(request, ['limit', 'cursor', 'q', 'status']) // ?staus=active
 * // throws KeywardError { type: 'extra_forbidden', loc: ['query', 'staus'],
 * //   msg: 'Unknown query parameter `staus`: did you mean `status`?' }
 * checkQueryNames(request, []) // a route that takes none: any parameter is refused
 * ```
 */
export function checkQueryNames(request: Pick<KeywardRequest, 'url'>, names: readonly string[]): void {
  if (!request.url.includes('?')) return
  for (const [name] of queryPairs(request.url)) {
    if (!names.includes(name)) throw unknownField(name, names, ['query'], { noun: 'query parameter' })
  }
}

/** @internal A 422 of the query parameter `name`. */
export const invalidQuery = (type: ErrorType, name: string, msg: string) =>
  new KeywardError(type, msg, ['query', name])

/**
 * @internal The one value of `name`: absent when not given or empty, a 422 `value_error` when given
 * more than once.
 */
export function singleValue<Name extends string>(found: QueryValues<Name>, name: Name): string | undefined {
  const values = found[name]
  if (values === undefined) return undefined
  if (values.length > 1) throw invalidQuery(ErrorType.valueError, name, `Give ${name} at most once.`)
  return values[0] === '' ? undefined : values[0]
}

/** @internal `?name=true|false` of `request`, `false` when absent; a 422 `value_error` for any other value. */
export function flagValue(request: Pick<KeywardRequest, 'url'>, name: string): boolean {
  const given = singleValue(queryParameters(request.url, [name]), name)
  if (given === undefined || given === 'false') return false
  if (given === 'true') return true
  throw invalidQuery(ErrorType.valueError, name, "Input should be 'true' or 'false'.")
}

// An RFC 3339 time with its offset (`Z` or `+02:00`); `Date.parse` alone would take a local time.
const RFC3339 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?(?:Z|[+-]\d{2}:\d{2})$/i

/** @internal The time `name` gives, an RFC 3339 time with an offset; a 422 `datetime_parsing` for any other. */
export function timeValue<Name extends string>(found: QueryValues<Name>, name: Name): Date | undefined {
  const text = singleValue(found, name)
  if (text === undefined) return undefined
  const at = RFC3339.test(text) ? Date.parse(text) : Number.NaN
  if (Number.isNaN(at)) {
    throw invalidQuery(
      ErrorType.datetimeParsing,
      name,
      'Input should be an RFC 3339 time with an offset, e.g. 2026-01-31T00:00:00Z.',
    )
  }
  return new Date(at)
}
