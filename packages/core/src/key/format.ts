import { type KeywardError, refusal } from '../errors/error.js'
import { ErrorType } from '../errors/types.js'
import {
  KEY_LENGTH,
  KEY_PATTERN,
  KEY_PREFIX,
  LEGACY_DEVELOPER_KEY_PREFIX,
  MIN_KEY_LENGTH,
} from './constants.js'

/** The two kinds of key. The kind is decided by a key's association, never by its format. */
export type KeyKind = 'developer' | 'project'

/**
 * What to do with legacy `dk_` developer keys (issued before v1.5.0).
 * `reject` (the default) answers `key_legacy_prefix` with a migration hint; `accept`
 * checks them by the backend rules only (at least 16 characters, prefix, hash, active, scope).
 */
export type LegacyDeveloperKeyPolicy = 'reject' | 'accept'

/** Options of {@link checkKeyFormat}. */
export interface KeyFormatOptions {
  /** Policy for `dk_` developer keys. Default `reject`. */
  readonly legacyDeveloperKeys?: LegacyDeveloperKeyPolicy
}

/** The request header that carries each kind of key, lower-cased as in an error's `loc`. */
export const KEY_HEADER: Readonly<Record<KeyKind, string>> = {
  developer: 'x-developer-key',
  project: 'x-api-key',
}

const MISSING_MSG: Readonly<Record<KeyKind, string>> = {
  developer: 'Send the developer key in the X-Developer-Key header.',
  project: "Send the project's API key in the X-API-Key header.",
}

/** @internal How messages name each kind of key and its header. */
export const KIND_WORDS: Readonly<Record<KeyKind, { label: string; withArticle: string; header: string }>> = {
  developer: { label: 'developer key', withArticle: 'a developer key', header: 'X-Developer-Key' },
  project: { label: 'API key', withArticle: 'an API key', header: 'X-API-Key' },
}

const ALPHABET_CHAR = /[A-Za-z0-9_-]/

/** @internal The `key_missing` error of a kind, with an optional reason. */
export function keyMissingError(kind: KeyKind, msg: string = MISSING_MSG[kind]): KeywardError {
  return refusal(ErrorType.keyMissing, msg, ['header', KEY_HEADER[kind]])
}

/**
 * @internal Explains why `value` is not an acceptable key of `kind`, in the order of the
 * specification (present, minimum length, prefix for the kind, exact length, alphabet),
 * or returns `null` when it is. The message never holds more than 8 characters of `value`.
 */
export function keyFormatProblem(
  value: string | null | undefined,
  kind: KeyKind,
  legacy: LegacyDeveloperKeyPolicy,
): KeywardError | null {
  if (value === undefined || value === null || value === '') return keyMissingError(kind)
  const loc = ['header', KEY_HEADER[kind]]
  const malformed = (msg: string) => refusal(ErrorType.keyMalformed, msg, loc)
  if (typeof value !== 'string') return malformed(`Expected ${KIND_WORDS[kind].withArticle} as one string.`)
  if (value.length === KEY_LENGTH && KEY_PATTERN.test(value)) return null
  if (value.length < MIN_KEY_LENGTH) {
    return malformed(`Expected at least ${MIN_KEY_LENGTH} characters, got ${value.length}.`)
  }
  if (value.startsWith(LEGACY_DEVELOPER_KEY_PREFIX)) {
    if (kind === 'project') {
      return malformed('API keys start with ak_; dk_ is the legacy prefix of developer keys.')
    }
    if (legacy === 'accept') return null
    return refusal(
      ErrorType.keyLegacyPrefix,
      'Developer keys with the dk_ prefix are no longer accepted. Issue a new developer key (it starts with ak_), ' +
        'use it in place of this one, then deactivate the old key.',
      loc,
    )
  }
  if (!value.startsWith(KEY_PREFIX)) {
    return malformed(`Expected ${KIND_WORDS[kind].withArticle} starting with ${KEY_PREFIX}.`)
  }
  if (value.length !== KEY_LENGTH) {
    return malformed(`Expected ${KEY_LENGTH} characters, got ${value.length}.`)
  }
  for (let i = KEY_PREFIX.length; i < value.length; i++) {
    if (!ALPHABET_CHAR.test(value[i]!)) {
      return malformed(`Character ${i + 1} is not allowed: keys use only A-Z, a-z, 0-9, '-' and '_'.`)
    }
  }
  // Unreachable for strings: a 35-character ak_ value of alphabet characters matches KEY_PATTERN.
  return malformed('Malformed key.')
}

/**
 * Checks that `value` has the format of a key of `kind`, following the specification's
 * order: present, at least 16 characters, the prefix for the kind, then (for `ak_` keys)
 * exactly 35 characters of `[A-Za-z0-9_-]` after the prefix. Throws a {@link KeywardError}
 * (`key_missing`, `key_malformed` or `key_legacy_prefix`) whose message says what is wrong
 * and never echoes the key.
 *
 * @example
 * ```ts
 * checkKeyFormat(key, 'project') // returns normally for a well-formed key
 * checkKeyFormat('ak_short-but-long-enough', 'project')
 * // throws KeywardError { type: 'key_malformed', msg: 'Expected 35 characters, got 24.' }
 * ```
 */
export function checkKeyFormat(
  value: string | null | undefined,
  kind: KeyKind,
  options: KeyFormatOptions = {},
): asserts value is string {
  const problem = keyFormatProblem(value, kind, options.legacyDeveloperKeys ?? 'reject')
  if (problem) throw problem
}
