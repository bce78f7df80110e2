import { KeywardError } from '../errors/error.js'
import { ErrorType } from '../errors/types.js'

/** The values a query string gives each of `names`, decoded (`+` as a space), in order. */
export type QueryValues<Name extends string> = Partial<Record<Name, string[]>>

/**
 * @internal The values of the query string of `url` for each of `names`, decoded; a value that is
 * not URL-encoded text is kept as sent (its check refuses it). Other parameters are left out.
 */
export function queryParameters<Name extends string>(url: string, names: readonly Name[]): QueryValues<Name> {
  const found: QueryValues<Name> = {}
  const start = url.indexOf('?')
  if (start < 0) return found
  const end = url.indexOf('#', start)
  for (const pair of url.slice(start + 1, end < 0 ? undefined : end).split('&')) {
    const eq = pair.indexOf('=')
    const name = (eq < 0 ? pair : pair.slice(0, eq)) as Name
    if (!names.includes(name)) continue
    const raw = eq < 0 ? '' : pair.slice(eq + 1).replace(/\+/g, ' ')
    let value = raw
    try {
      value = decodeURIComponent(raw)
    } catch {
      // checked as sent
    }
    const values = found[name] ?? []
    values.push(value)
    found[name] = values
  }
  return found
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
