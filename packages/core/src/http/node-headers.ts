/** The header fields of a Node.js `IncomingMessage`, as far as Keyward reads them. */
export interface NodeHeaders {
  readonly headers: Readonly<Record<string, string | readonly string[] | undefined>>
  readonly headersDistinct?: Readonly<Record<string, readonly string[] | undefined>>
}

// Node joins repeated header lines with ", ", which Keyward reads as several values, except for
// these fields, of which `headers` keeps only the first line: for them the distinct lines are read.
const FIRST_LINE_ONLY = new Set([
  'age',
  'authorization',
  'content-length',
  'content-type',
  'etag',
  'expires',
  'from',
  'host',
  'if-modified-since',
  'if-unmodified-since',
  'last-modified',
  'location',
  'max-forwards',
  'proxy-authorization',
  'referer',
  'retry-after',
  'server',
  'user-agent',
])

/**
 * A header of a Node.js request (Express, Fastify, `node:http`) as {@link KeywardRequest.header}
 * reports it, so that repeated lines are never lost: `headers` for fields Node joins, the
 * distinct lines for fields it would reduce to the first. Plain objects without
 * `headersDistinct` (test injections) are read from `headers`.
 *
 * @example
 * ```ts
 * const request: KeywardRequest = { ..., header: (name) => nodeRequestHeader(req, name) }
 * ```
 */
export function nodeRequestHeader(
  message: NodeHeaders,
  name: string,
): string | readonly string[] | undefined {
  const value = message.headers[name]
  if (value === undefined || !FIRST_LINE_ONLY.has(name)) return value
  return message.headersDistinct?.[name] ?? value
}
