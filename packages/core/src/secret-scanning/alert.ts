import { KeywardError } from '../errors/error.js'
import { ErrorType } from '../errors/types.js'

/** One match of a secret-scanning alert, as the sender reports it. */
export interface SecretScanningMatch {
  /** The string that matched: perhaps a key, perhaps not. */
  readonly token: string
  /** The sender's name of the pattern that matched, echoed in the feedback. */
  readonly type: string
  /** Where it was found (may be empty). */
  readonly url: string
  /** What kind of place that is (`content`, `commit`, `npm`, ...; may be empty). */
  readonly source: string
}

const invalid = (msg: string, loc: readonly string[]) => new KeywardError(ErrorType.alertInvalid, msg, loc)

function text(match: Record<string, unknown>, field: string, index: number, required: boolean): string {
  const value = match[field]
  if (value === undefined || value === null) {
    if (required) throw invalid('Field required.', ['body', String(index), field])
    return ''
  }
  if (typeof value !== 'string') throw invalid('Expected a string.', ['body', String(index), field])
  return value
}

/**
 * @internal Checks the body of a secret-scanning alert: a JSON array of
 * `{ token, type, url, source }` (`url` and `source` may be missing or empty). Anything else
 * is 400 `alert_invalid` at the faulty element; messages never echo a token.
 */
export function parseAlert(value: unknown): SecretScanningMatch[] {
  if (!Array.isArray(value)) throw invalid('The body should be a JSON array of matches.', ['body'])
  return value.map((element: unknown, index) => {
    if (typeof element !== 'object' || element === null || Array.isArray(element)) {
      throw invalid('Each match should be a JSON object.', ['body', String(index)])
    }
    const match = element as Record<string, unknown>
    const token = text(match, 'token', index, true)
    if (token === '') throw invalid('The token is empty.', ['body', String(index), 'token'])
    return {
      token,
      type: text(match, 'type', index, true),
      url: text(match, 'url', index, false),
      source: text(match, 'source', index, false),
    }
  })
}
