import { describe, expect, it } from 'vitest'
import { readJsonBody, readJsonObject } from './body.js'
import type { BodySource, KeywardRequest } from './types.js'

const encoder = new TextEncoder()

async function* chunks(...parts: Array<string | Uint8Array>) {
  for (const part of parts) yield typeof part === 'string' ? encoder.encode(part) : part
}

const request = (source?: BodySource, headers: Record<string, string> = {}): KeywardRequest => ({
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

describe('readJsonBody', () => {
  it('parses JSON split across chunks, a multi-byte character included', async () => {
    const bytes = encoder.encode('{"name":"café"}')
    const body = await readJsonBody(request({ raw: chunks(bytes.slice(0, 12), bytes.slice(12)) }), 100)
    expect(body).toEqual({ name: 'café' })
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
    expect(await readJsonBody(request({ raw: stream }), 100)).toEqual({ name: 'web' })
  })

  it('treats no body, a null stream and whitespace as absent', async () => {
    expect(await readJsonBody(request(), 100)).toBeUndefined()
    expect(await readJsonBody(request({ raw: null }), 100)).toBeUndefined()
    expect(await readJsonBody(request({ raw: chunks(' \n ') }), 100)).toBeUndefined()
  })

  it('takes a value the host already parsed as it is', async () => {
    expect(await readJsonBody(request({ parsed: { name: 'x' } }), 100)).toEqual({ name: 'x' })
  })

  it('answers 422 json_invalid without echoing the input', async () => {
    for (const raw of ['{"name": ak_secretsecret', '\uFFFE{', new Uint8Array([0x7b, 0xff, 0x7d])]) {
      expect(await failure(readJsonBody(request({ raw: chunks(raw) }), 100))).toEqual({
        type: 'json_invalid',
        status: 422,
        loc: ['body'],
        msg: 'The request body is not valid JSON.',
      })
    }
  })

  it('answers 413 past the limit, from Content-Length or from the bytes read, draining the rest', async () => {
    const big = request({ raw: chunks('{"a":1}') }, { 'content-length': '101' })
    expect(await failure(readJsonBody(big, 100))).toMatchObject({ type: 'payload_too_large', status: 413 })
    let drained = 0
    async function* endless() {
      for (let i = 0; i < 10; i++) {
        drained++
        yield encoder.encode('x'.repeat(40))
      }
    }
    expect(await failure(readJsonBody(request({ raw: endless() }), 100))).toEqual({
      type: 'payload_too_large',
      status: 413,
      loc: ['body'],
      msg: 'The request body is larger than 100 bytes.',
    })
    expect(drained).toBe(10)
  })
})

describe('readJsonObject', () => {
  it('answers 422 dict_type for anything but an object', async () => {
    for (const raw of ['[]', '"name"', '1', 'null']) {
      expect(await failure(readJsonObject(request({ raw: chunks(raw) }), 100))).toMatchObject({
        type: 'dict_type',
        loc: ['body'],
      })
    }
  })
})
