import { KeywardError } from '../errors/error.js'
import { ErrorType } from '../errors/types.js'
import { checkNotKeyShaped } from '../key/material.js'
import { NAME_FORBIDDEN_CHARACTERS, NameSchema } from '../openapi/schemas.js'

const FORBIDDEN = new RegExp(`[${NAME_FORBIDDEN_CHARACTERS}]`)

/** Longest descriptive name of a key or project, in characters. */
export const MAX_NAME_LENGTH: number = NameSchema.maxLength ?? 100

const MIN_NAME_LENGTH = NameSchema.minLength ?? 1

/**
 * Checks a descriptive name against the API's `Name` schema: absent (`undefined` or `null`) is
 * allowed and gives `null`; otherwise a string of 1 to 100 characters (`maxLength`; code points, as JSON
 * Schema counts them) with no control character and nothing shaped like a key (see
 * `checkNotKeyShaped`). Throws a 422 {@link KeywardError} at `["body", "name"]` (`string_type`,
 * `string_too_short`, `string_too_long`, `string_pattern_mismatch`, `key_shaped_value`).
 *
 * @example
 * ```ts
 * checkName('ci-runner') // 'ci-runner'
 * checkName(undefined)   // null
 * ```
 */
export function checkName(
  name: unknown,
  loc: readonly string[] = ['body', 'name'],
  maxLength: number = MAX_NAME_LENGTH,
): string | null {
  if (name === undefined || name === null) return null
  if (typeof name !== 'string')
    throw new KeywardError(ErrorType.stringType, 'Input should be a valid string.', loc)
  const length = [...name].length
  if (length < MIN_NAME_LENGTH)
    throw new KeywardError(ErrorType.stringTooShort, 'String should have at least 1 character.', loc)
  if (length > maxLength) {
    throw new KeywardError(
      ErrorType.stringTooLong,
      `String should have at most ${maxLength} characters, got ${length}.`,
      loc,
    )
  }
  const at = name.search(FORBIDDEN)
  if (at >= 0) {
    const code = name.charCodeAt(at).toString(16).toUpperCase().padStart(4, '0')
    throw new KeywardError(
      ErrorType.stringPatternMismatch,
      `Names cannot contain control characters: U+${code} at character ${[...name.slice(0, at)].length + 1}.`,
      loc,
    )
  }
  checkNotKeyShaped(name, loc)
  return name
}
