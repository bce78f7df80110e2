import { KEY_ALPHABET, KEY_PREFIX, KEY_RANDOM_LENGTH } from './constants.js'

// 32 characters of a 64-letter alphabet carry 6 bits each: 24 random bytes, read as
// base64url, give exactly 32 characters with no modulo bias and no rejection loop.
const RANDOM_BYTES = (KEY_RANDOM_LENGTH * 6) / 8

/**
 * Creates a new key: `ak_` followed by 32 characters of `[A-Za-z0-9_-]` from the
 * platform's cryptographically secure generator (192 bits of entropy).
 *
 * @example
 * ```ts
 * const key = generateKey() // 'ak_Xb3...' (35 characters)
 * ```
 */
export function generateKey(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(RANDOM_BYTES))
  let out = KEY_PREFIX
  for (let i = 0; i < RANDOM_BYTES; i += 3) {
    const n = (bytes[i]! << 16) | (bytes[i + 1]! << 8) | bytes[i + 2]!
    out +=
      KEY_ALPHABET[(n >>> 18) & 63]! +
      KEY_ALPHABET[(n >>> 12) & 63]! +
      KEY_ALPHABET[(n >>> 6) & 63]! +
      KEY_ALPHABET[n & 63]!
  }
  return out
}
