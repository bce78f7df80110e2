// The SHA-256 of a key as other systems write it (hex, base64url, base64), turned into the
// lower-case hex that Keyward stores.
import { KeywardError } from '../errors/error.js'
import { ErrorType } from '../errors/types.js'

/**
 * How an imported key's SHA-256 is written: 64 hex characters (`sha256-hex`), 43 characters of
 * base64url (`sha256-base64url`, better-auth's form), or 44 of base64 with its `=`
 * (`sha256-base64`; 43 without it are taken too).
 *
 * @example
 * ```ts
 * const format: ImportHashFormat = 'sha256-base64url'
 * ```
 */
export type ImportHashFormat = 'sha256-hex' | 'sha256-base64url' | 'sha256-base64'

/** Every {@link ImportHashFormat}. */
export const IMPORT_HASH_FORMATS: readonly ImportHashFormat[] = [
  'sha256-hex',
  'sha256-base64url',
  'sha256-base64',
]

const HEX = /^[0-9a-fA-F]{64}$/
const SHAPES: Readonly<Record<Exclude<ImportHashFormat, 'sha256-hex'>, RegExp>> = {
  'sha256-base64url': /^[A-Za-z0-9_-]{42}[AEIMQUYcgkosw048]$/,
  'sha256-base64': /^[A-Za-z0-9+/]{42}[AEIMQUYcgkosw048]=?$/,
}
const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789'
const VALUE = new Map<string, number>([...`${ALPHABET}-_`].map((c, i) => [c, i]))
for (const [c, i] of [...`${ALPHABET}+/`].map((c, i) => [c, i] as const)) VALUE.set(c, i)

/**
 * @internal The lower-case hex of a SHA-256 written in `format`; 422 at `hash` (or `hash_format`)
 * when it is not one. The message never repeats the value.
 */
export function hexOfDigest(value: unknown, format: unknown): string {
  if (!IMPORT_HASH_FORMATS.includes(format as ImportHashFormat)) {
    throw new KeywardError(
      ErrorType.valueError,
      `Input should be one of ${IMPORT_HASH_FORMATS.join(', ')}.`,
      ['hash_format'],
    )
  }
  if (typeof value !== 'string' || value === '') {
    throw new KeywardError(ErrorType.missing, 'A record needs the `hash` of its key.', ['hash'])
  }
  if (format === 'sha256-hex') {
    if (HEX.test(value)) return value.toLowerCase()
    throw new KeywardError(
      ErrorType.valueError,
      `A sha256-hex hash is 64 hex characters, got ${value.length} characters.`,
      ['hash'],
    )
  }
  const shape = SHAPES[format as keyof typeof SHAPES]
  if (!shape.test(value)) {
    throw new KeywardError(
      ErrorType.valueError,
      `A ${format} hash is 43 characters of its alphabet${format === 'sha256-base64' ? ' and one =' : ''} (32 bytes), got ${value.length} characters that are not.`,
      ['hash'],
    )
  }
  let hex = ''
  let bits = 0
  let buffer = 0
  for (let i = 0; i < 43; i++) {
    buffer = (buffer << 6) | VALUE.get(value[i]!)!
    bits += 6
    if (bits >= 8) {
      bits -= 8
      hex += ((buffer >> bits) & 0xff).toString(16).padStart(2, '0')
    }
  }
  return hex
}
