/** The prefix of every key issued since v1.5.0, developer and project keys alike. */
export const KEY_PREFIX = 'ak_'

/** The prefix developer keys carried before v1.5.0. See {@link LegacyDeveloperKeyPolicy}. */
export const LEGACY_DEVELOPER_KEY_PREFIX = 'dk_'

/** Number of random characters after {@link KEY_PREFIX}. */
export const KEY_RANDOM_LENGTH = 32

/** Total length of a key: `ak_` plus 32 random characters. */
export const KEY_LENGTH = KEY_PREFIX.length + KEY_RANDOM_LENGTH

/** Length of the stored, displayable `key_prefix` (the first 8 characters of a key). */
export const KEY_PREFIX_LENGTH = 8

/** The backend's minimum length for any presented key, legacy keys included. */
export const MIN_KEY_LENGTH = 16

/** The URL-safe alphabet of the random part: the base64url alphabet, in its order. */
export const KEY_ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_'

/**
 * Matches exactly one well-formed key and nothing else.
 *
 * @example
 * ```ts
 * KEY_PATTERN.test('ak_' + 'x'.repeat(32)) // true
 * ```
 */
export const KEY_PATTERN = /^ak_[A-Za-z0-9_-]{32}$/

/**
 * Finds keys inside larger text (logs, commits, chat exports) for leaked-key scanning.
 * A match is `ak_` plus exactly 32 alphabet characters, not glued to more of them.
 * It is global: reset `lastIndex` or use `String.prototype.matchAll`.
 *
 * @example
 * ```ts
 * const leaked = [...text.matchAll(KEY_SCAN_PATTERN)].map((m) => displayKey(m[0]))
 * ```
 */
export const KEY_SCAN_PATTERN = /(?<![A-Za-z0-9_-])ak_[A-Za-z0-9_-]{32}(?![A-Za-z0-9_-])/g
