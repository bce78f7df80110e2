import { describe, expect, it } from 'vitest'
import { DEFAULT_BODY_LIMIT, readJsonBody, readJsonObjectBody } from './body.js'
import type { BodySource, KeywardRequest } from './types.js'

const read = (source: KeywardRequest | BodySource, limit = 100) => readJsonObjectBody(source, { limit })

const encoder = new TextEncoder()

async function* chunks(...parts: Array<string | Uint8Array>) {
  for (const part of parts) yield typeof part === 'string' ? encoder.encode(part) : part
}

const request = (
  source?: BodySource,
  headers: Record<string, string | undefined> = { 'content-type': 'application/json' },
): KeywardRequest => ({
  method: 'POST',
  url: '/',
  params: {},
  header: (name) => headers[name],
  ...(source ? { body: () => source } : {}),
})

const failure = async (promise: Promise<unknown>) => {
  const error = (await promise.then(
    () => expect.unreachable(),
    (e: unknown) => e,
  )) as { type: string; status: number; loc: string[]; msg: string }
  return { type: error.type, status: error.status, loc: error.loc, msg: error.msg }
}

describe('readJsonObjectBody', () => {
  it('parses JSON split across chunks, a multi-byte character included, and keeps its text', async () => {
    const bytes = encoder.encode('{"name": "café", "n": 12345678901234567890}')
    const body = await read(request({ raw: chunks(bytes.slice(0, 12), bytes.slice(12)) }))
    expect(body).toEqual({
      value: { name: 'café', n: 12345678901234567000 },
      text: '{"name": "café", "n": 12345678901234567890}',
    })
  })

  it('reads a Web ReadableStream through its reader', async () => {
    const parts = ['{"na', 'me":"web"}']
    const stream = {
      getReader: () => ({
        read: async () => {
          const part = parts.shift()
          return part === undefined ? { done: true } : { done: false, value: encoder.encode(part) }
        },
      }),
    }
    expect((await read(request({ raw: stream })))?.value).toEqual({ name: 'web' })
  })

  it('reads a BodySource as well as a request', async () => {
    expect(await read({ raw: chunks('{"a":1}') })).toEqual({ value: { a: 1 }, text: '{"a":1}' })
    expect(await read({ parsed: { a: 1 } })).toMatchObject({ value: { a: 1 }, text: '{"a":1}' })
  })

  it('treats no body, a null stream and whitespace as absent', async () => {
    expect(await read(request())).toBeUndefined()
    expect(await read(request({ raw: null }))).toBeUndefined()
    expect(await read(request({ raw: chunks(' \n ') }))).toBeUndefined()
    expect(await read(request({ parsed: undefined }))).toBeUndefined()
  })

  it('takes a value the host already parsed as it is, its text written as JSON', async () => {
    const parsed = { name: 'x' }
    const body = await read(request({ parsed }))
    expect(body?.value).toBe(parsed)
    expect(body?.text).toBe('{"name":"x"}')
  })

  it('answers 422 json_invalid without echoing the input', async () => {
    for (const raw of ['{"name": ak_secretsecret', '\uFFFE{', new Uint8Array([0x7b, 0xff, 0x7d])]) {
      expect(await failure(read(request({ raw: chunks(raw) })))).toEqual({
        type: 'json_invalid',
        status: 422,
        loc: ['body'],
        msg: 'The request body is not valid JSON.',
      })
    }
  })

  it('answers 413 past the limit, from Content-Length or from the bytes read, and stops reading there', async () => {
    const big = request(
      { raw: chunks('{"a":1}') },
      { 'content-type': 'application/json', 'content-length': '101' },
    )
    expect(await failure(read(big))).toMatchObject({ type: 'payload_too_large', status: 413 })
    let chunksRead = 0
    let ended = false
    async function* endless() {
      try {
        for (let i = 0; i < 10; i++) {
          chunksRead++
          yield encoder.encode('x'.repeat(40))
        }
      } finally {
        ended = true
      }
    }
    expect(await failure(read(request({ raw: endless() })))).toEqual({
      type: 'payload_too_large',
      status: 413,
      loc: ['body'],
      msg: 'The request body is larger than 100 bytes.',
    })
    // Three chunks of 40 bytes pass 100: the rest is never asked for, and the source is not ended
    // (ending a Node request would destroy its socket before the 413 is sent).
    expect(chunksRead).toBe(3)
    expect(ended).toBe(false)
  })

  it('answers 413 with Connection: close, so the unread rest is never read', async () => {
    const error = await read(request({ raw: chunks('x'.repeat(101)) })).catch((e: unknown) => e)
    expect((error as { headers?: unknown }).headers).toEqual({ connection: 'close' })
  })

  it('answers 415 unsupported_media_type to a body of another type, before reading it', async () => {
    let started = false
    async function* watched() {
      started = true
      yield encoder.encode('{"a":1}')
    }
    for (const type of [
      'text/plain',
      'application/x-www-form-urlencoded',
      'application/jsonx',
      'multipart/form-data',
    ]) {
      expect(await failure(read(request({ raw: watched() }, { 'content-type': type })))).toEqual({
        type: 'unsupported_media_type',
        status: 415,
        loc: ['header', 'content-type'],
        msg: 'Send the request body as JSON, with Content-Type: application/json.',
      })
    }
    expect(started).toBe(false)
    // JSON with parameters or a +json suffix is JSON; a body without a type is read as JSON.
    expect((await read(request({ raw: chunks('{"a":1}') }, {})))?.value).toEqual({ a: 1 })
    for (const type of [
      'application/json; charset=utf-8',
      'Application/JSON',
      'application/merge-patch+json',
    ]) {
      expect((await read(request({ raw: chunks('{"a":1}') }, { 'content-type': type })))?.value).toEqual({
        a: 1,
      })
    }
  })

  it('reads at most DEFAULT_BODY_LIMIT (16 KiB) when no limit is given', async () => {
    const fits = `{"a":"${'x'.repeat(DEFAULT_BODY_LIMIT - 8)}"}`
    expect((await readJsonObjectBody(request({ raw: chunks(fits) })))?.text).toBe(fits)
    expect(await failure(readJsonObjectBody(request({ raw: chunks(`${fits} `) })))).toEqual({
      type: 'payload_too_large',
      status: 413,
      loc: ['body'],
      msg: 'The request body is larger than 16384 bytes.',
    })
  })

  it('answers 422 dict_type for anything but an object', async () => {
    for (const source of [
      ...['[]', '"name"', '1', 'null'].map((raw) => ({ raw: chunks(raw) })),
      { parsed: [] },
    ]) {
      expect(await failure(read(request(source)))).toEqual({
        type: 'dict_type',
        status: 422,
        loc: ['body'],
        msg: 'The request body should be a JSON object.',
      })
    }
  })
})

describe('readJsonBody', () => {
  it('reads a JSON array and keeps the bytes exactly as sent, split anywhere', async () => {
    const sent = encoder.encode('\uFEFF [ {"token": "é"} ]\n')
    const body = await readJsonBody(
      { raw: chunks(sent.subarray(0, 4), sent.subarray(4, 13), sent.subarray(13)) },
      {
        keepBytes: true,
      },
    )
    expect(body?.value).toEqual([{ token: 'é' }])
    expect(body?.bytes).toEqual(sent)
  })

  it('keeps no bytes unless asked, and applies the limit and the JSON rules of the object reader', async () => {
    expect((await readJsonBody({ raw: chunks('[1]') }))?.bytes).toBeUndefined()
    expect(
      await failure(readJsonBody({ raw: chunks('[1, 2, 3]') }, { limit: 4, keepBytes: true })),
    ).toMatchObject({
      type: 'payload_too_large',
      status: 413,
    })
    expect(await failure(readJsonBody({ raw: chunks('[1,') }, { keepBytes: true }))).toMatchObject({
      type: 'json_invalid',
    })
    expect(await readJsonBody({ raw: chunks('  ') }, { keepBytes: true })).toBeUndefined()
  })

  it('refuses, with a TypeError that says why, to keep the bytes of a body the host already parsed', async () => {
    expect((await readJsonBody({ parsed: [1] }))?.value).toEqual([1])
    await expect(readJsonBody({ parsed: [1] }, { keepBytes: true })).rejects.toThrow(/before the body parser/)
  })
})
