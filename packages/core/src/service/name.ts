import { KeywardError } from '../errors/error.js'
import { ErrorType } from '../errors/types.js'

// C0 controls and DEL: never meant in a name, and U+0000 fits no PostgreSQL text column.
function firstControlCharacter(name: string): number {
  for (let i = 0; i < name.length; i++) {
    const code = name.charCodeAt(i)
    if (code < 0x20 || code === 0x7f) return i
  }
  return -1
}

/** Longest descriptive name of a key or project, in characters. */
export const MAX_NAME_LENGTH = 100

/**
 * Checks a descriptive name: absent (`undefined` or `null`) is allowed and gives `null`;
 * otherwise a string of 1 to 100 characters with no control character. Throws a 422
 * {@link KeywardError} at `["body", "name"]` (`string_type`, `string_too_short`,
 * `string_too_long`, `string_pattern_mismatch`).
 *
 * @example
 * ```ts
 * checkName('ci-runner') // 'ci-runner'
 * checkName(undefined)   // null
 * ```
 */
export function checkName(name: unknown, loc: readonly string[] = ['body', 'name']): string | null {
  if (name === undefined || name === null) return null
  if (typeof name !== 'string')
    throw new KeywardError(ErrorType.stringType, 'Input should be a valid string.', loc)
  const length = [...name].length
  if (length < 1)
    throw new KeywardError(ErrorType.stringTooShort, 'String should have at least 1 character.', loc)
  if (length > MAX_NAME_LENGTH) {
    throw new KeywardError(
      ErrorType.stringTooLong,
      `String should have at most ${MAX_NAME_LENGTH} characters, got ${length}.`,
      loc,
    )
  }
  const at = firstControlCharacter(name)
  if (at >= 0) {
    const code = name.charCodeAt(at).toString(16).toUpperCase().padStart(4, '0')
    throw new KeywardError(
      ErrorType.stringPatternMismatch,
      `Names cannot contain control characters: U+${code} at character ${[...name.slice(0, at)].length + 1}.`,
      loc,
    )
  }
  return name
}
