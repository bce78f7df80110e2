import { KeywardError } from '../errors/error.js'
import { ErrorType } from '../errors/types.js'
import type { BodySource, ByteStream, KeywardRequest } from './types.js'

/** The largest request body the key routes read, in bytes, unless told otherwise. */
export const DEFAULT_BODY_LIMIT = 16 * 1024

const BODY_LOC = ['body'] as const

// The 413 closes the connection: the rest of the body is left unread, and the socket that still
// holds it cannot serve another request.
const tooLarge = (limit?: number) =>
  new KeywardError(
    ErrorType.payloadTooLarge,
    limit === undefined
      ? 'The request body is larger than the server accepts.'
      : `The request body is larger than ${limit} bytes.`,
    BODY_LOC,
    { headers: { connection: 'close' } },
  )
const notJson = () => new KeywardError(ErrorType.jsonInvalid, 'The request body is not valid JSON.', BODY_LOC)
const notJsonType = () =>
  new KeywardError(
    ErrorType.unsupportedMediaType,
    'Send the request body as JSON, with Content-Type: application/json.',
    ['header', 'content-type'],
    { headers: { connection: 'close' } },
  )

/** What the host's own body parser refused: JSON it could not parse, too many bytes, or a media type. */
export type BodyProblem = 'invalid_json' | 'too_large' | 'unsupported_media_type'

/**
 * The error for a body that the host's own parser (Express's `express.json()`, Fastify's
 * parser) refused, worded as Keyward's own body reader words it: 422 `json_invalid`, 413
 * `payload_too_large` (with the parser's `limit` in bytes when it gives one), or 415
 * `unsupported_media_type` (at `["header", "content-type"]`), the others at `["body"]`. Adapters map their framework's errors to it.
 *
 * @example
 * ```ts
 * if (err.type === 'entity.too.large') send(res, errorResponse(bodyError('too_large', err.limit)))
 * ```
 */
export function bodyError(problem: BodyProblem, limit?: number): KeywardError {
  if (problem === 'too_large') return tooLarge(typeof limit === 'number' ? limit : undefined)
  if (problem === 'invalid_json') return notJson()
  return notJsonType()
}

// application/json, or a structured syntax suffix (application/problem+json), with any parameters.
const JSON_MEDIA_TYPE = /^application\/(?:[\w.+-]+\+)?json\s*(?:;|$)/i

type ChunkSource = AsyncIterable<Uint8Array | string> | ByteStream

/**
 * The next-chunk function of a source. An async iterable is stepped by hand, never ended with
 * `return()`: ending a Node request's iterator destroys its socket before the 413 can be sent.
 * Left alone, the stream pauses, and the server closes the connection after the answer.
 */
function nextChunk(source: ChunkSource): () => Promise<{ done?: boolean; value?: Uint8Array | string }> {
  if (Symbol.asyncIterator in source) {
    const iterator = source[Symbol.asyncIterator]()
    return () => iterator.next()
  }
  const reader = source.getReader()
  return () => reader.read()
}

async function readText(source: ChunkSource, limit: number, bytes?: Uint8Array[]): Promise<string> {
  const decoder = new TextDecoder('utf-8', { fatal: true })
  const next = nextChunk(source)
  let text = ''
  let size = 0
  // Reading stops at the limit: memory holds at most `limit` bytes plus one chunk.
  for (;;) {
    const { done, value: chunk } = await next()
    if (done) break
    if (chunk === undefined) continue
    size += typeof chunk === 'string' ? chunk.length : chunk.byteLength
    if (size > limit) throw tooLarge(limit)
    bytes?.push(typeof chunk === 'string' ? new TextEncoder().encode(chunk) : chunk)
    try {
      text += typeof chunk === 'string' ? chunk : decoder.decode(chunk, { stream: true })
    } catch {
      throw notJson()
    }
  }
  try {
    return text + decoder.decode()
  } catch {
    throw notJson()
  }
}

/** The `Content-Type` of a request, if it has one header of it. */
function contentType(request: KeywardRequest): string | undefined {
  const value = request.header('content-type')
  return typeof value === 'string' ? value : value?.length === 1 ? value[0] : value?.join(',')
}

/** Options of {@link readJsonObjectBody}. */
export interface ReadJsonBodyOptions {
  /** The largest body read, in bytes. Default {@link DEFAULT_BODY_LIMIT} (16 KiB). */
  readonly limit?: number
}

/** Options of {@link readJsonBody}. */
export interface ReadJsonAnyBodyOptions extends ReadJsonBodyOptions {
  /**
   * Keep the bytes as they were sent, in `bytes` (to check a signature made over them). The
   * body must then come raw: one that a body parser of the host already parsed is refused
   * with a `TypeError` that says so.
   */
  readonly keepBytes?: boolean
}

/** A request body of any JSON value: the value, its JSON text and, when asked for, its bytes. */
export interface JsonBody {
  /** The value, as `JSON.parse` returns it. */
  readonly value: unknown
  /** The JSON text as it was sent (or, for a body parsed by the host, as `JSON.stringify` writes it). */
  readonly text: string
  /** The bytes as they were sent, with `keepBytes`. */
  readonly bytes?: Uint8Array
}

/** A request body that is a JSON object: the object, and its JSON text. */
export interface JsonObjectBody {
  /** The object, as `JSON.parse` returns it. */
  readonly value: Readonly<Record<string, unknown>>
  /**
   * The JSON text as it was sent, to keep it exactly (numbers beyond a double's precision,
   * key order, duplicate keys). When the host's body parser already parsed the body, the
   * parsed value as `JSON.stringify` writes it.
   */
  readonly text: string
}

const isBodySource = (source: KeywardRequest | BodySource): source is BodySource =>
  'raw' in source || 'parsed' in source

function concat(chunks: readonly Uint8Array[]): Uint8Array {
  if (chunks.length === 1) return chunks[0]!
  let size = 0
  for (const chunk of chunks) size += chunk.byteLength
  const out = new Uint8Array(size)
  let at = 0
  for (const chunk of chunks) {
    out.set(chunk, at)
    at += chunk.byteLength
  }
  return out
}

async function readJson(
  source: KeywardRequest | BodySource,
  limit: number,
  keepBytes = false,
): Promise<JsonBody | undefined> {
  const body = isBodySource(source) ? source : source.body?.()
  if (body === undefined) return undefined
  if ('parsed' in body && keepBytes) {
    throw new TypeError(
      'The request body was already parsed by a body parser, so its bytes as sent are gone. ' +
        'Mount this route before the body parser, or give it the raw body.',
    )
  }
  if ('parsed' in body) {
    const value = body.parsed
    // Written only when asked for: the key routes never ask.
    return value === undefined
      ? undefined
      : {
          value,
          get text() {
            return JSON.stringify(value)
          },
        }
  }
  if (body.raw === null || body.raw === undefined) return undefined
  const type = isBodySource(source) ? undefined : contentType(source)
  if (type !== undefined && !JSON_MEDIA_TYPE.test(type)) throw notJsonType()
  if (!isBodySource(source) && Number(source.header('content-length')) > limit) throw tooLarge(limit)
  const chunks: Uint8Array[] | undefined = keepBytes ? [] : undefined
  const text = await readText(body.raw, limit, chunks)
  if (text.trim() === '') return undefined
  try {
    const value: unknown = JSON.parse(text)
    return chunks ? { value, text, bytes: concat(chunks) } : { value, text }
  } catch {
    throw notJson()
  }
}

/**
 * Reads a request body that should be a JSON object, with a size limit, as Keyward's key
 * routes do: `undefined` when there is none (or only whitespace). Raw bytes are read from
 * their stream, and reading stops at the limit (the 413 closes the connection, so memory holds
 * at most `limit` bytes whatever is sent); a body the host already parsed is taken as it is.
 * From a {@link KeywardRequest}, a `Content-Length` over the limit, or a `Content-Type` other
 * than JSON, is refused before anything is read.
 *
 * Throws a {@link KeywardError}: 413 `payload_too_large` past `limit` bytes, 415
 * `unsupported_media_type` (at `["header", "content-type"]`) for a body sent as another type (a
 * body without `Content-Type` is read as JSON), 422 `json_invalid` for anything that is not UTF-8 JSON (the parser's message is
 * never passed on: it would echo the input), 422 `dict_type` for JSON that is not an object.
 *
 * @example
 * ```ts
 * app.post('/things', async (c) => {
 *   const body = await readJsonObjectBody(toKeywardRequest(c), { limit: 64 * 1024 })
 *   if (body === undefined) throw new KeywardError(ErrorType.missing, 'Field required.', ['body'])
 *   await db.insertThing(body.value.name, body.text)
 * })
 * ```
 */
export async function readJsonObjectBody(
  source: KeywardRequest | BodySource,
  options: ReadJsonBodyOptions = {},
): Promise<JsonObjectBody | undefined> {
  const limit = options.limit ?? DEFAULT_BODY_LIMIT
  const body = await readJson(source, limit)
  if (body === undefined) return undefined
  const { value } = body
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new KeywardError(ErrorType.dictType, 'The request body should be a JSON object.', BODY_LOC)
  }
  return body as JsonObjectBody
}

/**
 * Reads a request body of any JSON value (an array, say) with the rules of
 * {@link readJsonObjectBody}: a size limit (413 `payload_too_large`), 422 `json_invalid` for
 * anything that is not UTF-8 JSON, `undefined` when there is no body. With `keepBytes`, the
 * bytes as sent come back too, for a signature check.
 *
 * @example
 * ```ts
 * const body = await readJsonBody(request, { limit: 1024 * 1024, keepBytes: true })
 * if (body && (await verify(signature, body.bytes!))) handle(body.value)
 * ```
 */
export function readJsonBody(
  source: KeywardRequest | BodySource,
  options: ReadJsonAnyBodyOptions = {},
): Promise<JsonBody | undefined> {
  return readJson(source, options.limit ?? DEFAULT_BODY_LIMIT, options.keepBytes === true)
}
