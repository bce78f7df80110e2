import { KEY_PREFIX_LENGTH } from './constants.js'

/**
 * The stored `key_prefix` of a key: its first 8 characters (`ak_` plus 5 random ones).
 * It is for display only: it is not unique and never identifies a key.
 *
 * @example
 * ```ts
 * keyPrefix('ak_Ab3xYq...') // 'ak_Ab3xY'
 * ```
 */
export function keyPrefix(key: string): string {
  return key.slice(0, KEY_PREFIX_LENGTH)
}

/**
 * The display form of a key or of its stored prefix: the first 8 characters and `...`.
 * Safe to log, show in a console, or put in an error message.
 *
 * @example
 * ```ts
 * displayKey('ak_Ab3xY') // 'ak_Ab3xY...'
 * displayKey(fullKey)    // same: never more than 8 characters of the key
 * ```
 */
export function displayKey(keyOrPrefix: string): string {
  return `${keyOrPrefix.slice(0, KEY_PREFIX_LENGTH)}...`
}
