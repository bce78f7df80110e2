import { ErrorType, KeywardError } from '@keyward/core'
import type { MiddlewareHandler } from 'hono'
import { bodyLimit } from 'hono/body-limit'
import { refuse } from './respond.js'

const BODY_LOC = ['body'] as const

/** Refuses a body over `maxSize` bytes with 413 `payload_too_large`, before the route reads it. */
export const limitBody = (maxSize: number): MiddlewareHandler =>
  bodyLimit({
    maxSize,
    onError: (c) =>
      refuse(
        c,
        new KeywardError(
          ErrorType.payloadTooLarge,
          `The request body is larger than ${maxSize} bytes.`,
          BODY_LOC,
        ),
      ),
  })

/**
 * The request's body, which must be a JSON object, as the text that was sent: 422
 * `missing` when there is none, `json_invalid` when it is not UTF-8 JSON, `dict_type`
 * when it is JSON but not an object.
 */
export async function readJsonObjectText(request: Request): Promise<string> {
  let text: string
  let value: unknown
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(await request.arrayBuffer())
    value = text.trim() === '' ? undefined : JSON.parse(text)
  } catch {
    // The parser's message is not passed on: it would echo the input.
    throw new KeywardError(ErrorType.jsonInvalid, 'The request body is not valid JSON.', BODY_LOC)
  }
  if (value === undefined) throw new KeywardError(ErrorType.missing, 'Field required.', BODY_LOC)
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new KeywardError(ErrorType.dictType, 'The request body should be a JSON object.', BODY_LOC)
  }
  return text
}
