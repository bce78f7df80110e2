import { KeywardError } from '../errors/error.js'
import { ErrorType } from '../errors/types.js'
import { KEY_RANDOM_LENGTH, MIN_KEY_LENGTH } from './constants.js'

// `ak_` or `dk_` at the start of a word (after anything but a letter or digit: `prod-ak_...`
// counts, `peak_...` does not), then a run of the key alphabet.
const PREFIXED_RUN = /(?<![A-Za-z0-9])(ak|dk)_([A-Za-z0-9_-]+)/g
const LEGACY_RANDOM_LENGTH = MIN_KEY_LENGTH - 'dk_'.length

// Random characters mix their kinds; words in snake_case rarely mix two of these three.
const mixed = (text: string) =>
  Number(/[A-Z]/.test(text)) + Number(/[a-z]/.test(text)) + Number(/\d/.test(text)) >= 2

/**
 * Whether `text` holds something shaped like a key: `ak_` followed by 32 or more characters of
 * the key alphabet (`A-Z a-z 0-9 - _`), or a legacy `dk_` followed by 13 or more (16 in all,
 * the shortest key the backend reads), the prefix at the start of a word and the characters
 * after it mixing at least two of upper case, lower case and digits, as random ones do. A
 * snake_case name such as `ak_billing_service_for_the_eu_region` is not key-shaped.
 *
 * @example
 * ```ts
 * holdsKeyMaterial(`ci ${key}`) // true
 * holdsKeyMaterial('ak_billing') // false
 * ```
 */
export function holdsKeyMaterial(text: string): boolean {
  // Both prefixes end in `k_`: a name without it (most) costs one scan, no regular expression.
  if (!text.includes('k_')) return false
  for (const [, prefix, run] of text.matchAll(PREFIXED_RUN)) {
    const length = prefix === 'ak' ? KEY_RANDOM_LENGTH : LEGACY_RANDOM_LENGTH
    if (run!.length >= length && mixed(run!.slice(0, KEY_RANDOM_LENGTH))) return true
  }
  return false
}

/**
 * Refuses a value that will be stored or shown (a name of a key or a project) when it holds
 * something shaped like a key ({@link holdsKeyMaterial}): 422 `key_shaped_value` at `loc`, with a
 * message that never repeats the value. A key pasted into a name would otherwise be kept in the
 * clear, in listings and in the append-only audit log.
 *
 * @example
 * ```ts
 * checkNotKeyShaped(body.name, ['body', 'name'])
 * // throws KeywardError { type: 'key_shaped_value', loc: ['body', 'name'], msg: 'The value holds ...' }
 * ```
 */
export function checkNotKeyShaped(value: string, loc: readonly string[]): void {
  if (!holdsKeyMaterial(value)) return
  throw new KeywardError(
    ErrorType.keyShapedValue,
    'The value holds something shaped like a key (ak_ or dk_ followed by random characters); it is not ' +
      'stored or shown. Choose a name without it, and if it is a real key, deactivate that key.',
    loc,
  )
}
