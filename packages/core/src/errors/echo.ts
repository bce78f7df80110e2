/**
 * The most characters of a request value that an error message repeats.
 *
 * @example
 * ```ts
 * echoValue('x'.repeat(MAX_ECHO_LENGTH + 1)) // cut, with the length it had
 * ```
 */
export const MAX_ECHO_LENGTH = 64

// Anything that could be a key or a token: an `ak_` or `dk_` prefix, or a run of 24 or more
// characters of the key alphabet in both cases (a key sent without its prefix, a JWT part; a
// UUID, in one case, is no secret and is shown).
const KEY_PREFIXED = /(?:^|[^A-Za-z0-9])(?:ak|dk)_/
const ALPHABET_RUN = /[A-Za-z0-9_-]{24,}/g

/** @internal Whether a value may hold a key or a token, so that no message or `loc` repeats it. */
export const keyShaped = (value: string): boolean =>
  KEY_PREFIXED.test(value) ||
  [...value.matchAll(ALPHABET_RUN)].some(([run]) => /[a-z]/.test(run) && /[A-Z]/.test(run))

/**
 * A value from the request (a path parameter) as an error message may repeat it: quoted, cut
 * to {@link MAX_ECHO_LENGTH} characters, and never a value shaped like a key (such a value is
 * named, not shown), so that an answer or a log of it never carries a secret sent by mistake.
 *
 * @example
 * ```ts
 * echoValue('proj-1') // '"proj-1"'
 * echoValue('x'.repeat(10_000)) // '"xxx…" (10000 characters)'
 * echoValue('ak_' + 'A'.repeat(32)) // 'the value sent (shaped like a key, not shown)'
 * ```
 */
export function echoValue(value: string): string {
  if (keyShaped(value)) return 'the value sent (shaped like a key, not shown)'
  if (value.length <= MAX_ECHO_LENGTH) return JSON.stringify(value)
  return `${JSON.stringify(`${value.slice(0, MAX_ECHO_LENGTH)}…`)} (${value.length} characters)`
}
