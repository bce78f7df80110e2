import { ErrorType } from '../errors/types.js'
import {
  bucketMs,
  retentionDays,
  retentionStart,
  USAGE_GRANULARITIES,
  type UsageGranularity,
  type UsageRetention,
} from '../store/usage.js'
import { invalidQuery, queryParameters, singleValue, timeValue } from './query-parameters.js'
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

/** @internal The query parameters a usage request reads. */
export const USAGE_QUERY = ['from', 'to', 'granularity', 'key_id'] as const
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i

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
  const found = queryParameters(request.url, USAGE_QUERY)
  const granularity = (singleValue(found, 'granularity') ?? 'hour') as UsageGranularity
  if (!USAGE_GRANULARITIES.includes(granularity)) {
    throw invalidQuery(ErrorType.valueError, 'granularity', "Input should be 'minute', 'hour' or 'day'.")
  }
  const to = timeValue(found, 'to') ?? now
  const from = timeValue(found, 'from') ?? new Date(to.getTime() - 86_400_000)
  if (from.getTime() >= to.getTime())
    throw invalidQuery(ErrorType.valueError, 'from', 'from must be before to.')
  const oldest = retentionStart(granularity, now, retention)
  if (from.getTime() < oldest.getTime()) {
    throw invalidQuery(
      ErrorType.valueError,
      'from',
      `Counts by ${granularity} are kept ${retentionDays(granularity, retention)} days: from must be after ${oldest.toISOString()}; use a coarser granularity for older counts.`,
    )
  }
  const buckets = Math.ceil((to.getTime() - from.getTime()) / bucketMs(granularity))
  if (buckets > MAX_USAGE_BUCKETS) {
    throw invalidQuery(
      ErrorType.valueError,
      'to',
      `At most ${MAX_USAGE_BUCKETS} buckets per request, got ${buckets}: shorten the range or use a coarser granularity.`,
    )
  }
  const keyId = singleValue(found, 'key_id')
  if (keyId !== undefined && !UUID.test(keyId)) {
    throw invalidQuery(ErrorType.uuidParsing, 'key_id', 'Input should be a valid UUID.')
  }
  return keyId === undefined
    ? { granularity, from, to }
    : { granularity, from, to, keyId: keyId.toLowerCase() }
}
