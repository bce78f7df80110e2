import { keyShaped, MAX_ECHO_LENGTH } from './echo.js'
import { KeywardError } from './error.js'
import { ErrorType } from './types.js'

// Names compared without case, `_` or `-`: `ipAllowlist` is near `ip_allowlist`.
const folded = (name: string) => name.toLowerCase().replace(/[_-]/g, '')

// The optimal string alignment distance: insertions, deletions, substitutions and swaps of two
// neighbours (`nmae` is one step from `name`), each costing one.
function distance(a: string, b: string): number {
  let before: number[] = []
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j)
  for (let i = 1; i <= a.length; i++) {
    const row = [i]
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1
      let best = Math.min(previous[j]! + 1, row[j - 1]! + 1, previous[j - 1]! + cost)
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1])
        best = Math.min(best, before[j - 2]! + 1)
      row.push(best)
    }
    before = previous
    previous = row
  }
  return previous[b.length]!
}

/**
 * The known name nearest to `name` (by edit distance, ignoring case, `_` and `-`), or
 * `undefined` when none is near: at most a third of the longer name's length apart, and at most 3.
 *
 * @example
 * ```ts
 * nearestName('remainig', ['name', 'remaining', 'refill']) // 'remaining'
 * nearestName('color', ['name', 'remaining']) // undefined
 * ```
 */
export function nearestName(name: string, known: Iterable<string>): string | undefined {
  const given = folded(name)
  let nearest: string | undefined
  let best = Number.POSITIVE_INFINITY
  for (const candidate of known) {
    const other = folded(candidate)
    const limit = Math.min(3, Math.max(1, Math.floor(Math.max(given.length, other.length) / 3)))
    // Lengths further apart than the limit cannot be near: skip the table.
    if (Math.abs(given.length - other.length) > limit) continue
    const d = distance(given, other)
    if (d <= limit && d < best) {
      best = d
      nearest = candidate
    }
  }
  return nearest
}

/** How {@link checkKnownFields} words its refusal. */
export interface KnownFieldsWording {
  /**
   * What the names are: `'field'` (a request body's, the default), `'option'` (a library call's)
   * or `'query parameter'` (a request's query string's).
   */
  readonly noun?: 'field' | 'option' | 'query parameter'
  /** Who refuses, put before the message: `'issueProjectKey'`. */
  readonly who?: string
}

const quoted = (name: string) =>
  name.length <= MAX_ECHO_LENGTH ? `\`${name}\`` : `\`${name.slice(0, MAX_ECHO_LENGTH)}…\``

/**
 * Refuses the first field of `value` that `known` does not name: 422 `extra_forbidden` at
 * `[...loc, field]`, whose message names the nearest known field ("did you mean `remaining`?"),
 * or lists them when none is near. A field named like a key is never repeated: its error is at
 * `loc`, and its name is not shown; a long name is cut. It is the one check of unknown fields:
 * request bodies (through `checkBody`) and the service's options objects both use it, so a typo
 * fails closed instead of dropping a policy.
 *
 * @example
 * ```ts
 * checkKnownFields({ name: 'ci', remainig: 5 }, { name: true, remaining: true }, ['body'])
 * // throws KeywardError { type: 'extra_forbidden', loc: ['body', 'remainig'],
 * //   msg: 'Unknown field `remainig`: did you mean `remaining`?' }
 * ```
 */
export function checkKnownFields(
  value: object,
  known: Readonly<Record<string, unknown>>,
  loc: readonly string[],
  wording: KnownFieldsWording = {},
): void {
  for (const field in value) {
    if (!Object.hasOwn(value, field) || Object.hasOwn(known, field)) continue
    throw unknownField(field, Object.keys(known), loc, wording)
  }
}

/**
 * @internal The refusal of one unknown name, as {@link checkKnownFields} words it: 422
 * `extra_forbidden` at `[...loc, name]`, naming the nearest known name.
 */
export function unknownField(
  field: string,
  known: readonly string[],
  loc: readonly string[],
  { noun = 'field', who }: KnownFieldsWording,
): KeywardError {
  const start = who === undefined ? `Unknown ${noun}` : `${who}: unknown ${noun}`
  if (keyShaped(field)) {
    return new KeywardError(
      ErrorType.extraForbidden,
      `${start} whose name is shaped like a key (not shown). Never send a key as a ${noun} name.`,
      loc,
    )
  }
  const nearest = nearestName(field, known)
  const hint =
    nearest !== undefined
      ? `did you mean ${quoted(nearest)}?`
      : known.length === 0
        ? `this takes no ${noun}s.`
        : `expected one of ${known.map(quoted).join(', ')}.`
  const name = field.length <= MAX_ECHO_LENGTH ? field : `${field.slice(0, MAX_ECHO_LENGTH)}…`
  return new KeywardError(ErrorType.extraForbidden, `${start} ${quoted(field)}: ${hint}`, [...loc, name])
}

// Every key of every member of a union (`keyof` of a union gives only the shared ones).
type AllKeys<T> = T extends unknown ? keyof T : never

/**
 * @internal The names of an options type, all of them and no other (the compiler checks both):
 * what {@link checkOptionNames} takes.
 */
export const optionNames = <T>(
  names: { readonly [K in AllKeys<Required<T>>]: true },
): Readonly<Record<string, true>> => names

/**
 * @internal Refuses an option of a library call that `names` does not hold (a plain JavaScript
 * caller's typo, which the compiler cannot see): 422 `extra_forbidden` at `["options", name]`,
 * the message led by `who` and naming the nearest option. Anything but an object is left to
 * the call's own checks.
 */
export function checkOptionNames(
  who: string,
  options: unknown,
  names: Readonly<Record<string, true>>,
  loc: readonly string[] = ['options'],
): void {
  if (typeof options === 'object' && options !== null) {
    checkKnownFields(options, names, loc, { noun: 'option', who })
  }
}
