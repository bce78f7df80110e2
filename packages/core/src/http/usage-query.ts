import { KeywardError } from '../errors/error.js'
import { ErrorType } from '../errors/types.js'
import {
  bucketMs,
  retentionDays,
  retentionStart,
  USAGE_GRANULARITIES,
  type UsageGranularity,
  type UsageRetention,
} from '../store/usage.js'
import type { KeywardRequest } from './types.js'

/** A usage request's `?from&to&granularity&key_id`, read and checked. */
export interface UsageRequestQuery {
  readonly granularity: UsageGranularity
  readonly from: Date
  readonly to: Date
  readonly keyId?: string
}

/** The most buckets one request may ask for: a day of minutes, 60 days of hours, about 4 years of days. */
export const MAX_USAGE_BUCKETS = 1440

const NAMES = ['from', 'to', 'granularity', 'key_id'] as const
type Name = (typeof NAMES)[number]
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i
// An RFC 3339 time with its offset (`Z` or `+02:00`); `Date.parse` alone would take a local time.
const RFC3339 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?(?:Z|[+-]\d{2}:\d{2})$/i

function parameters(url: string): Partial<Record<Name, string[]>> {
  const found: Partial<Record<Name, string[]>> = {}
  const start = url.indexOf('?')
  if (start < 0) return found
  const end = url.indexOf('#', start)
  for (const pair of url.slice(start + 1, end < 0 ? undefined : end).split('&')) {
    const eq = pair.indexOf('=')
    const name = (eq < 0 ? pair : pair.slice(0, eq)) as Name
    if (!NAMES.includes(name)) continue
    const raw = eq < 0 ? '' : pair.slice(eq + 1).replace(/\+/g, ' ')
    let value = raw
    try {
      value = decodeURIComponent(raw)
    } catch {
      // checked as sent: it fails its format below
    }
    const values = found[name] ?? []
    values.push(value)
    found[name] = values
  }
  return found
}

const invalid = (type: ErrorType, name: Name, msg: string) => new KeywardError(type, msg, ['query', name])

function single(found: Partial<Record<Name, string[]>>, name: Name): string | undefined {
  const values = found[name]
  if (values === undefined) return undefined
  if (values.length > 1) throw invalid(ErrorType.valueError, name, `Give ${name} at most once.`)
  return values[0] === '' ? undefined : values[0]
}

function time(found: Partial<Record<Name, string[]>>, name: 'from' | 'to'): Date | undefined {
  const text = single(found, name)
  if (text === undefined) return undefined
  const at = RFC3339.test(text) ? Date.parse(text) : Number.NaN
  if (Number.isNaN(at)) {
    throw invalid(
      ErrorType.datetimeParsing,
      name,
      'Input should be an RFC 3339 time with an offset, e.g. 2026-01-31T00:00:00Z.',
    )
  }
  return new Date(at)
}

/**
 * Reads a usage request's query: `granularity` (`minute`, `hour` or `day`; default `hour`),
 * `from` and `to` (RFC 3339 times; default the last 24 hours up to now), `key_id` (a UUID). Throws
 * a 422 {@link KeywardError} at `["query", name]`: an unknown granularity, a time that is not one,
 * `from` not before `to`, a `from` older than what the granularity keeps (`retention`), a range of
 * more than `MAX_USAGE_BUCKETS` (1,440) buckets.
 *
 * @example
 * ```ts
 * const query = readUsageQuery(request, keyward.usageRetention!, new Date()) // ?granularity=minute&from=...
 * ```
 */
export function readUsageQuery(
  request: Pick<KeywardRequest, 'url'>,
  retention: UsageRetention,
  now: Date,
): UsageRequestQuery {
  const found = parameters(request.url)
  const granularity = (single(found, 'granularity') ?? 'hour') as UsageGranularity
  if (!USAGE_GRANULARITIES.includes(granularity)) {
    throw invalid(ErrorType.valueError, 'granularity', "Input should be 'minute', 'hour' or 'day'.")
  }
  const to = time(found, 'to') ?? now
  const from = time(found, 'from') ?? new Date(to.getTime() - 86_400_000)
  if (from.getTime() >= to.getTime()) throw invalid(ErrorType.valueError, 'from', 'from must be before to.')
  const oldest = retentionStart(granularity, now, retention)
  if (from.getTime() < oldest.getTime()) {
    throw invalid(
      ErrorType.valueError,
      'from',
      `Counts by ${granularity} are kept ${retentionDays(granularity, retention)} days: from must be after ${oldest.toISOString()}; use a coarser granularity for older counts.`,
    )
  }
  const buckets = Math.ceil((to.getTime() - from.getTime()) / bucketMs(granularity))
  if (buckets > MAX_USAGE_BUCKETS) {
    throw invalid(
      ErrorType.valueError,
      'to',
      `At most ${MAX_USAGE_BUCKETS} buckets per request, got ${buckets}: shorten the range or use a coarser granularity.`,
    )
  }
  const keyId = single(found, 'key_id')
  if (keyId !== undefined && !UUID.test(keyId)) {
    throw invalid(ErrorType.uuidParsing, 'key_id', 'Input should be a valid UUID.')
  }
  return keyId === undefined
    ? { granularity, from, to }
    : { granularity, from, to, keyId: keyId.toLowerCase() }
}
