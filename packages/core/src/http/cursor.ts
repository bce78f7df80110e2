import { KeywardError } from '../errors/error.js'
import { ErrorType } from '../errors/types.js'

/**
 * Where a page of a listing starts, as a cursor carries it: after the item with this creation
 * time and id, newest first. `createdAt` is an RFC 3339 time in UTC with up to 6 fractional
 * digits (a PostgreSQL `timestamptz` keeps microseconds: a host that pages on one passes them on).
 */
export interface PagePosition {
  readonly createdAt: string
  readonly id: string
}

/** The longest cursor read, in characters. */
const MAX_CURSOR_LENGTH = 1024
/** The longest id a cursor carries, in characters. */
const MAX_ID_LENGTH = 255

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_'
const VALUE = new Map([...ALPHABET].map((char, i) => [char, i]))
const TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d{1,6})?Z$/
const encoder = new TextEncoder()
const decoder = new TextDecoder('utf-8', { fatal: true })

function toBase64Url(bytes: Uint8Array): string {
  let out = ''
  for (let i = 0; i < bytes.length; i += 3) {
    const n = (bytes[i]! << 16) | ((bytes[i + 1] ?? 0) << 8) | (bytes[i + 2] ?? 0)
    const chars = Math.min(4, Math.ceil(((bytes.length - i) * 8) / 6))
    for (let c = 0; c < chars; c++) out += ALPHABET[(n >> (18 - 6 * c)) & 63]
  }
  return out
}

// The bytes of a base64url text without padding, or `null` when it is not one (or not the one
// form of its bytes: the unused low bits must be zero, so that one position has one cursor).
function fromBase64Url(text: string): Uint8Array | null {
  if (text.length % 4 === 1) return null
  const bytes = new Uint8Array(Math.floor((text.length * 6) / 8))
  let bits = 0
  let buffer = 0
  let at = 0
  for (const char of text) {
    const value = VALUE.get(char)
    if (value === undefined) return null
    buffer = ((buffer << 6) | value) & 0xffff
    bits += 6
    if (bits >= 8) {
      bits -= 8
      bytes[at++] = (buffer >> bits) & 0xff
    }
  }
  return (buffer & ((1 << bits) - 1)) === 0 ? bytes : null
}

function validTime(value: unknown): value is string {
  if (typeof value !== 'string' || !TIME.test(value)) return false
  const parsed = new Date(value)
  // Date parses 2026-02-30 as March 2nd: the time must read back as written.
  return !Number.isNaN(parsed.getTime()) && parsed.toISOString().slice(0, 19) === value.slice(0, 19)
}

/**
 * The 422 of a cursor that no listing gave out, at `["query", "cursor"]`.
 *
 * @example
 * ```ts
 * throw invalidCursor('it names no key of this project')
 * ```
 */
export function invalidCursor(reason: string): KeywardError {
  return new KeywardError(
    ErrorType.valueError,
    `The cursor is not valid: ${reason}. Pass the next_cursor of the previous page as it is, or no cursor for the first page.`,
    ['query', 'cursor'],
  )
}

/**
 * The opaque cursor of a position: base64url (no padding) of the JSON `[createdAt, id]`.
 * Clients pass it back as it is; only {@link decodeCursor} reads it.
 *
 * @example
 * ```ts
 * encodeCursor({ createdAt: record.createdAt, id: record.id }) // 'WyIyMDI2LTAx...'
 * ```
 */
export function encodeCursor(position: { readonly createdAt: Date | string; readonly id: string }): string {
  const given = position.createdAt
  const createdAt = given instanceof Date && !Number.isNaN(given.getTime()) ? given.toISOString() : given
  if (!validTime(createdAt)) {
    throw new TypeError(
      `encodeCursor: createdAt must be a valid Date or an RFC 3339 time in UTC (up to 6 fractional digits), got ${JSON.stringify(createdAt)}.`,
    )
  }
  if (typeof position.id !== 'string' || position.id === '' || position.id.length > MAX_ID_LENGTH) {
    throw new TypeError(`encodeCursor: id must be a string of 1 to ${MAX_ID_LENGTH} characters.`)
  }
  return toBase64Url(encoder.encode(JSON.stringify([createdAt, position.id])))
}

/**
 * Reads a cursor that {@link encodeCursor} wrote. Anything else is refused with a 422
 * {@link KeywardError} (`value_error` at `["query", "cursor"]`, saying what is wrong); it never
 * throws anything else.
 *
 * @example
 * ```ts
 * const after = cursor === undefined ? undefined : decodeCursor(cursor) // { createdAt, id }
 * ```
 */
export function decodeCursor(cursor: string): PagePosition {
  if (typeof cursor !== 'string' || cursor === '') throw invalidCursor('it is empty')
  if (cursor.length > MAX_CURSOR_LENGTH) {
    throw invalidCursor(`it is longer than ${MAX_CURSOR_LENGTH} characters`)
  }
  const bytes = fromBase64Url(cursor)
  if (bytes === null) throw invalidCursor('it is not base64url text')
  let value: unknown
  try {
    value = JSON.parse(decoder.decode(bytes))
  } catch {
    throw invalidCursor('it does not hold a position')
  }
  const [createdAt, id] = Array.isArray(value) && value.length === 2 ? value : []
  if (!validTime(createdAt) || typeof id !== 'string' || id === '' || id.length > MAX_ID_LENGTH) {
    throw invalidCursor('it does not hold a position')
  }
  return { createdAt, id }
}
