import { createServer } from 'node:http'
import { type AddressInfo, connect } from 'node:net'
import { describe, expect, it } from 'vitest'
import { lingeringClose } from './lingering-close.js'

describe('lingeringClose', () => {
  it('checks its arguments when called, naming the option', () => {
    expect(() => lingeringClose({} as never)).toThrow(
      'lingeringClose: the first argument must be a Node.js HTTP server.',
    )
    expect(() => lingeringClose(createServer(), { maxMs: -1 })).toThrow(
      'lingeringClose: option `maxMs` must be a non-negative integer, got -1.',
    )
    expect(() => lingeringClose(createServer(), { maxBytes: 1.5 })).toThrow(
      'lingeringClose: option `maxBytes` must be a non-negative integer, got 1.5.',
    )
  })

  it('closes at once a connection whose request was read whole, and lingers at most maxMs otherwise', async () => {
    const server = lingeringClose(
      createServer((req, res) => {
        // OPTIONS keeps the connection; anything else is answered at once and closes it,
        // leaving the body of an upload unread.
        if (req.method === 'OPTIONS') res.writeHead(204).end()
        else res.writeHead(413, { connection: 'close', 'content-length': '0' }).end()
      }),
      { maxMs: 2_000 },
    )
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    const { port } = server.address() as AddressInfo
    const timed = async (upload: boolean, after = '') => {
      const socket = connect({ port, host: '127.0.0.1', allowHalfOpen: true })
      const started = performance.now()
      let answer = ''
      socket.setEncoding('latin1').on('data', (chunk: string) => {
        answer += chunk
      })
      socket.on('error', () => {})
      socket.write(
        after +
          (upload
            ? 'POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n4\r\nabcd\r\n'
            : 'GET / HTTP/1.1\r\nHost: x\r\n\r\n'),
      )
      // The client keeps sending after the answer, as an upload does: the connection ends when
      // the server stops reading (a write then fails) or closes.
      const closed = new Promise((resolve) => socket.once('close', resolve))
      const sending = setInterval(() => socket.write('4\r\nabcd\r\n'), 50)
      await closed
      clearInterval(sending)
      return { answer, ms: performance.now() - started }
    }
    const whole = await timed(false)
    const upload = await timed(true)
    // On a keep-alive connection, after a request read whole.
    const second = await timed(true, 'OPTIONS / HTTP/1.1\r\nHost: x\r\n\r\n')
    server.close()
    expect(second.answer).toMatch(/^HTTP\/1\.1 204[\s\S]*HTTP\/1\.1 413/)
    expect(second.ms).toBeGreaterThanOrEqual(1_900)
    expect(whole.answer).toMatch(/^HTTP\/1\.1 413/)
    expect(upload.answer).toMatch(/^HTTP\/1\.1 413/)
    // Generous margins for a loaded machine: at once (well under the bound), and the bound.
    expect(whole.ms).toBeLessThan(1_000)
    expect(upload.ms).toBeGreaterThanOrEqual(1_900)
    expect(upload.ms).toBeLessThan(6_000)
  })
})
