// Keys that another system issued and that were imported by their hash: the formats a service
// accepts of them besides its own `ak_` keys (option `foreignKeys` of `createKeyward`).
import { KEY_PREFIX, LEGACY_DEVELOPER_KEY_PREFIX, MIN_KEY_LENGTH } from './constants.js'

/**
 * A format of keys issued by another system, imported by their SHA-256, that a service accepts:
 * an optional prefix and a length range, of visible ASCII characters (no space). A key of such a
 * format takes the same lookup, cache, revocation, credits and policies as a native key.
 *
 * @example
 * ```ts
 * const formats: ForeignKeyFormat[] = [
 *   { prefix: 'sk_live_', minLength: 40, maxLength: 64 }, // a prefix and a length range
 *   { minLength: 16, maxLength: 512 }, // any string of 16 to 512 characters
 * ]
 * ```
 */
export interface ForeignKeyFormat {
  /** What such keys start with (1 to 32 visible characters, not `ak_` or `dk_`); any start when absent. */
  readonly prefix?: string
  /** Fewest characters of a key, its prefix included: at least 16. */
  readonly minLength: number
  /** Most characters of a key, its prefix included: at most 512. */
  readonly maxLength: number
}

/** The longest foreign key accepted by any format. */
export const MAX_FOREIGN_KEY_LENGTH = 512

const VISIBLE = /^[\x21-\x7e]+$/
const OWN = [KEY_PREFIX, LEGACY_DEVELOPER_KEY_PREFIX]

/**
 * @internal Checks the option `foreignKeys` (throws naming it) and returns whether a presented
 * value has one of its formats; `undefined` without formats. A value that starts like a key of
 * Keyward's own (`ak_`, `dk_`) is never foreign: it is checked by the native rules.
 */
export function foreignKeyMatcher(
  formats: readonly ForeignKeyFormat[] | undefined,
): ((value: string) => boolean) | undefined {
  if (formats === undefined) return undefined
  const where = 'createKeyward: option `foreignKeys`'
  if (!Array.isArray(formats) || formats.length === 0 || formats.length > 16) {
    throw new TypeError(`${where} must be an array of 1 to 16 { prefix?, minLength, maxLength }.`)
  }
  const checked = formats.map((format: ForeignKeyFormat, i) => {
    const { prefix, minLength, maxLength } = format ?? {}
    if (
      prefix !== undefined &&
      (typeof prefix !== 'string' ||
        prefix.length > 32 ||
        !VISIBLE.test(prefix) ||
        OWN.some((own) => prefix.startsWith(own) || own.startsWith(prefix)))
    ) {
      throw new TypeError(
        `${where}[${i}].prefix must be 1 to 32 visible ASCII characters, and neither ak_ nor dk_ nor the start or an extension of them.`,
      )
    }
    if (
      !Number.isInteger(minLength) ||
      !Number.isInteger(maxLength) ||
      minLength < MIN_KEY_LENGTH ||
      maxLength > MAX_FOREIGN_KEY_LENGTH ||
      minLength > maxLength ||
      (prefix !== undefined && minLength <= prefix.length)
    ) {
      throw new TypeError(
        `${where}[${i}] must have integer minLength and maxLength with ${MIN_KEY_LENGTH} <= minLength <= maxLength <= ${MAX_FOREIGN_KEY_LENGTH}` +
          `${prefix === undefined ? '' : ', minLength longer than its prefix'}; got ${String(minLength)} and ${String(maxLength)}.`,
      )
    }
    return { prefix: prefix ?? '', minLength, maxLength }
  })
  return (value) => {
    if (value.startsWith(KEY_PREFIX) || value.startsWith(LEGACY_DEVELOPER_KEY_PREFIX)) return false
    for (const { prefix, minLength, maxLength } of checked) {
      if (value.length >= minLength && value.length <= maxLength && value.startsWith(prefix)) {
        return VISIBLE.test(value)
      }
    }
    return false
  }
}

/**
 * Whether a record is of a key imported from another system: its display prefix is not that of a
 * key Keyward issued (`ak_`, or the legacy `dk_`). Such a key is always due for rotation: rolling
 * it issues a native `ak_` key.
 *
 * @example
 * ```ts
 * isImportedKey({ keyPrefix: 'sk_live_' }) // true
 * ```
 */
export function isImportedKey(record: { readonly keyPrefix: string }): boolean {
  return !record.keyPrefix.startsWith(KEY_PREFIX) && !record.keyPrefix.startsWith(LEGACY_DEVELOPER_KEY_PREFIX)
}
