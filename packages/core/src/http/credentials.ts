import { isKeywardError, KeywardError } from '../errors/error.js'
import { ErrorType } from '../errors/types.js'
import { KEY_HEADER, type KeyKind, KIND_WORDS } from '../key/format.js'
import { queryPairs } from './query-parameters.js'
import type { KeywardRequest } from './types.js'

/** Marks a header sent with several values (several lines, or one comma-separated list). */
const SEVERAL = Symbol('several values')

/**
 * The one value of a header. Several header lines, or a comma (which by RFC 9110 joins the
 * values of a list), count as several values: keys and tokens never contain commas, and a
 * framework that joins duplicate lines with ", " then answers like one that keeps them apart.
 */
function oneValue(request: KeywardRequest, name: string): string | undefined | typeof SEVERAL {
  const value = request.header(name)
  if (value === undefined) return undefined
  if (typeof value === 'string') return value.includes(',') ? SEVERAL : value
  if (value.length === 0) return undefined
  if (value.length > 1) return SEVERAL
  return value[0]!.includes(',') ? SEVERAL : value[0]
}

/**
 * @internal The key a request presents in the header of `kind`, or `undefined`.
 * Throws `key_malformed` when the header holds several values.
 */
export function readKey(request: KeywardRequest, kind: KeyKind): string | undefined {
  const value = oneValue(request, KEY_HEADER[kind])
  if (value !== SEVERAL) return value
  throw new KeywardError(
    ErrorType.keyMalformed,
    `Send exactly one ${KIND_WORDS[kind].label} in one ${KIND_WORDS[kind].header} header.`,
    ['header', KEY_HEADER[kind]],
  )
}

/** The names of the query string's parameters, lower-cased, without '-' and '_', and its values. */
const queryParameters = (url: string): Array<[name: string, value: string]> =>
  queryPairs(url).map(([name, value]) => [name.toLowerCase().replace(/[-_]/g, ''), value])

const KEY_QUERY_NAMES = new Set(['apikey', 'xapikey', 'key', 'projectkey', 'developerkey', 'xdeveloperkey'])
const TOKEN_QUERY_NAMES = new Set(['accesstoken', 'token', 'bearer', 'authorization'])

/**
 * @internal Explains a `key_missing` error better when the request put a key in its query
 * string, which is never read (URLs end up in logs, histories and referrers).
 */
export function explainMissingKey(error: unknown, request: KeywardRequest): unknown {
  // isKeywardError, not instanceof: the service may come from another copy of this package.
  if (!isKeywardError(error) || error.type !== ErrorType.keyMissing) return error
  const inQuery = queryParameters(request.url).some(
    ([name, value]) => KEY_QUERY_NAMES.has(name) || /^(?:ak|dk)_/.test(value),
  )
  if (!inQuery) return error
  const kind: KeyKind = error.loc[1] === KEY_HEADER.developer ? 'developer' : 'project'
  return new KeywardError(
    ErrorType.keyMissing,
    `Keys are never read from the query string: send the ${KIND_WORDS[kind].label} in the ${KIND_WORDS[kind].header} header.`,
    error.loc,
  )
}

const AUTHORIZATION_LOC = ['header', 'authorization'] as const
// RFC 6750 section 2.1: "Bearer" (any case), 1*SP, then one b64token (the token68 alphabet).
const BEARER_CREDENTIALS = /^bearer +([A-Za-z0-9._~+/-]+=*)$/i
const BEARER_SCHEME = /^bearer(?: +|$)/i

const tokenMissing = (msg: string) => new KeywardError(ErrorType.tokenMissing, msg, AUTHORIZATION_LOC)
const tokenInvalid = (msg: string) => new KeywardError(ErrorType.tokenInvalid, msg, AUTHORIZATION_LOC)

/** @internal The answer for a well-formed token that the host's verifier refused. */
export const invalidToken = () => tokenInvalid('The access token is not valid: it is unknown or expired.')

/**
 * Whether the `Authorization` header holds credentials of schemes other than Bearer only
 * (`Basic`, `Digest`, ...): no bearer token was presented, whatever the other scheme's
 * parameters (Digest's hold commas), so every such scheme is answered alike, `token_missing`.
 */
function otherSchemesOnly(request: KeywardRequest): boolean {
  const value = request.header('authorization')
  const lines = value === undefined ? [] : typeof value === 'string' ? [value] : value
  return lines.length > 0 && lines.every((line) => line.trim() !== '' && !BEARER_SCHEME.test(line.trim()))
}

/**
 * @internal The bearer token of a request's `Authorization` header (RFC 6750: scheme in any
 * case, one token of the token68 alphabet). Throws `token_missing` or `token_invalid`.
 */
export function readBearerToken(request: KeywardRequest): string {
  if (otherSchemesOnly(request)) {
    throw tokenMissing('The Authorization header uses another scheme: send Authorization: Bearer <token>.')
  }
  const value = oneValue(request, 'authorization')
  if (value === SEVERAL) throw tokenInvalid('Send one Authorization header with one Bearer token.')
  if (value === undefined || value === '') {
    const inQuery = queryParameters(request.url).some(([name]) => TOKEN_QUERY_NAMES.has(name))
    throw tokenMissing(
      inQuery
        ? 'Access tokens are never read from the query string: send Authorization: Bearer <token>.'
        : 'Send the access token in the Authorization header: Authorization: Bearer <token>.',
    )
  }
  const match = BEARER_CREDENTIALS.exec(value)
  if (match) return match[1]!
  if (/^bearer *$/i.test(value)) throw tokenMissing('The Authorization header has no token after Bearer.')
  throw tokenInvalid(
    'Expected Authorization: Bearer <token>, with one token of A-Z, a-z, 0-9, - . _ ~ + / and trailing =.',
  )
}
