import { KeywardError } from '../errors/error.js'
import { ErrorType } from '../errors/types.js'
import type { ByteStream, KeywardRequest } from './types.js'

/** The largest request body the key routes read, in bytes, unless told otherwise. */
export const DEFAULT_BODY_LIMIT = 16 * 1024

const BODY_LOC = ['body'] as const

const tooLarge = (limit: number) =>
  new KeywardError(ErrorType.payloadTooLarge, `The request body is larger than ${limit} bytes.`, BODY_LOC)
const notJson = () => new KeywardError(ErrorType.jsonInvalid, 'The request body is not valid JSON.', BODY_LOC)

async function* chunksOf(source: AsyncIterable<Uint8Array | string> | ByteStream) {
  if (Symbol.asyncIterator in source) {
    yield* source
    return
  }
  const reader = source.getReader()
  for (;;) {
    const { done, value } = await reader.read()
    if (done) return
    if (value) yield value
  }
}

async function readText(
  source: AsyncIterable<Uint8Array | string> | ByteStream,
  limit: number,
): Promise<string> {
  const decoder = new TextDecoder('utf-8', { fatal: true })
  let text = ''
  let size = 0
  // Past the limit the rest is still drained, not read into memory: stopping a Node request
  // stream part way would destroy its socket before the 413 could be sent.
  for await (const chunk of chunksOf(source)) {
    size += typeof chunk === 'string' ? chunk.length : chunk.byteLength
    if (size > limit) continue
    try {
      text += typeof chunk === 'string' ? chunk : decoder.decode(chunk, { stream: true })
    } catch {
      throw notJson()
    }
  }
  if (size > limit) throw tooLarge(limit)
  try {
    return text + decoder.decode()
  } catch {
    throw notJson()
  }
}

/**
 * @internal The request's JSON body, `undefined` when there is none (or only whitespace).
 * Throws 413 `payload_too_large` past `limit` bytes and 422 `json_invalid` for anything that
 * is not UTF-8 JSON. The parser's message is never passed on: it would echo the input.
 */
export async function readJsonBody(request: KeywardRequest, limit: number): Promise<unknown> {
  const source = request.body?.()
  if (source === undefined) return undefined
  if ('parsed' in source) return source.parsed
  if (source.raw === null || source.raw === undefined) return undefined
  const declared = Number(request.header('content-length'))
  if (declared > limit) throw tooLarge(limit)
  const text = await readText(source.raw, limit)
  if (text.trim() === '') return undefined
  try {
    return JSON.parse(text)
  } catch {
    throw notJson()
  }
}

/** @internal The request's JSON body as an object, `undefined` when absent; 422 `dict_type` otherwise. */
export async function readJsonObject(
  request: KeywardRequest,
  limit: number,
): Promise<Readonly<Record<string, unknown>> | undefined> {
  const body = await readJsonBody(request, limit)
  if (body === undefined) return undefined
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw new KeywardError(ErrorType.dictType, 'The request body should be a JSON object.', BODY_LOC)
  }
  return body as Record<string, unknown>
}
