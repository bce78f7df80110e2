// What Node's HTTP layer refuses before any route, answered in the specification's error format,
// and the bounds on slow clients and on connections per address, against the built server.
import { mkdtemp, rm } from 'node:fs/promises'
import { connect, type Socket } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { buildServer, type ServerProcess, startServer } from './server-process.js'

let cwd: string
let server: ServerProcess
let port: number
const sockets: Socket[] = []

beforeAll(async () => {
  cwd = await mkdtemp(join(tmpdir(), 'keyward-http-'))
  await buildServer()
  server = await startServer(cwd, {
    KEYWARD_DATA_DIR: join(cwd, 'data'),
    // Small bounds, so that the slow clients below take seconds, not minutes.
    KEYWARD_REQUEST_TIMEOUT_MS: '2000',
    KEYWARD_HEADERS_TIMEOUT_MS: '1000',
    KEYWARD_CONNECTIONS_PER_ADDRESS: '8',
    KEYWARD_MAX_CONNECTIONS: '12',
  })
  port = Number(new URL(server.baseUrl).port)
}, 120_000)
afterAll(async () => {
  for (const socket of sockets) socket.destroy()
  await server?.stop()
  await rm(cwd, { recursive: true, force: true })
})

/** A raw connection to the server, from `from` (any address of the loopback network). */
async function open(from = '127.0.0.1'): Promise<Socket> {
  const socket = connect({ port, host: '127.0.0.1', localAddress: from })
  sockets.push(socket)
  socket.on('error', () => {})
  await new Promise((resolve) => socket.once('connect', resolve))
  return socket
}

interface RawAnswer {
  readonly status: number
  readonly headers: Record<string, string>
  readonly body: string
  /** Milliseconds from the call to the end of the connection. */
  readonly ms: number
}

/** Sends `parts` (strings, or pauses in ms between them) and reads until the server closes. */
async function raw(...parts: Array<string | number>): Promise<RawAnswer> {
  const socket = await open()
  const started = performance.now()
  let received = ''
  socket.setEncoding('latin1').on('data', (chunk: string) => {
    received += chunk
  })
  const closed = new Promise((resolve) => socket.once('close', resolve))
  // Sent on the side: the server may answer and close before the client is done.
  void (async () => {
    for (const part of parts) {
      if (socket.destroyed) return
      if (typeof part === 'number') await new Promise((resolve) => setTimeout(resolve, part))
      else socket.write(part, 'latin1')
    }
  })()
  await closed
  const [head = '', body = ''] = received.split('\r\n\r\n')
  const [statusLine = '', ...lines] = head.split('\r\n')
  const headers = Object.fromEntries(
    lines.map((line) => [
      line.slice(0, line.indexOf(':')).toLowerCase(),
      line.slice(line.indexOf(':') + 1).trim(),
    ]),
  )
  return { status: Number(statusLine.split(' ')[1]), headers, body, ms: performance.now() - started }
}

const detailOf = (answer: RawAnswer) =>
  (JSON.parse(answer.body) as { detail: Array<{ type: string }> }).detail

describe("errors of Node's HTTP layer, in the error format", () => {
  it.each([
    ['a NUL in a header', 'GET /healthz HTTP/1.1\r\nHost: x\r\nX-A: a\0b\r\n\r\n', 400, 'request_invalid'],
    [
      'a CR alone in a header',
      'GET /healthz HTTP/1.1\r\nHost: x\r\nX-A: a\rb\r\n\r\n',
      400,
      'request_invalid',
    ],
    ['an unknown method', 'FROB /healthz HTTP/1.1\r\nHost: x\r\n\r\n', 400, 'request_invalid'],
    [
      'a bad chunk size',
      'POST /api/v1/projects HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n{}\r\n0\r\n\r\n',
      400,
      'request_invalid',
    ],
    [
      'Content-Length with Transfer-Encoding',
      'POST /api/v1/projects HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\nTransfer-Encoding: chunked\r\n\r\n2\r\n{}\r\n0\r\n\r\n',
      400,
      'request_invalid',
    ],
    [
      'headers over 16 KiB',
      `GET /healthz HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(17 * 1024)}\r\n\r\n`,
      431,
      'headers_too_large',
    ],
    [
      'an Expect other than 100-continue',
      'GET /healthz HTTP/1.1\r\nHost: x\r\nExpect: tea\r\nConnection: close\r\n\r\n',
      417,
      'expectation_failed',
    ],
    // What Node's parser lets through but no route can take: answered here, not with an empty 400.
    [
      'a Host with user info',
      'GET /healthz HTTP/1.1\r\nHost: user@127.0.0.1\r\n\r\n',
      400,
      'request_invalid',
    ],
    ['a Host with a space', 'GET /healthz HTTP/1.1\r\nHost: exa mple\r\n\r\n', 400, 'request_invalid'],
    ['a backslash in the path', 'GET /api\\v1/audit HTTP/1.1\r\nHost: x\r\n\r\n', 400, 'request_invalid'],
    ['OPTIONS *', 'OPTIONS * HTTP/1.1\r\nHost: x\r\n\r\n', 400, 'request_invalid'],
    // Node hands CONNECT to no route, and closed the connection without a word.
    ['CONNECT', 'CONNECT 127.0.0.1:22 HTTP/1.1\r\nHost: 127.0.0.1:22\r\n\r\n', 405, 'method_not_allowed'],
  ])(
    '%s: %i %s',
    async (_name, request, status, type) => {
      // Read until the server closes: a connection it keeps open fails the test by its timeout.
      const answer = await raw(request)
      expect(answer.status).toBe(status)
      expect(answer.headers.connection).toBe('close')
      expect(answer.headers['cache-control']).toBe('no-store')
      expect(answer.headers['content-type']).toBe('application/json; charset=utf-8')
      expect(detailOf(answer)).toEqual([{ loc: expect.any(Array), msg: expect.any(String), type }])
    },
    20_000,
  )
})

describe('slow clients are bounded', () => {
  it('slow headers: 408 request_timeout, within the headers bound (1 s here) and the check interval', async () => {
    const answer = await raw('GET /healthz HTTP/1.1\r\n', 300, 'Host: x\r\n', 5_000, 'X-Late: 1\r\n\r\n')
    expect(answer.status).toBe(408)
    expect(detailOf(answer)[0]?.type).toBe('request_timeout')
    expect(answer.headers['cache-control']).toBe('no-store')
    // Generous on a loaded machine: the bound is 1 s, checked every 250 ms.
    expect(answer.ms).toBeLessThan(4_000)
  }, 20_000)

  it('a slow body: 408 request_timeout within the request bound (2 s here)', async () => {
    // With the developer key of the first start, so that the route reads the body.
    const key = /Developer key {2}(ak_\S+)/.exec(server.stdout())?.[1]
    const answer = await raw(
      `POST /api/v1/projects HTTP/1.1\r\nHost: x\r\nX-Developer-Key: ${key}\r\nContent-Type: application/json\r\nContent-Length: 20\r\n\r\n{"na`,
      ...Array.from({ length: 10 }, () => [600, 'm'] as const).flat(),
    )
    expect(answer.status).toBe(408)
    expect(detailOf(answer)[0]?.type).toBe('request_timeout')
    expect(answer.ms).toBeLessThan(5_000)
  }, 20_000)

  // Connections opened one after the other (the server accepts them in that order), each with a
  // promise of its end.
  async function openInTurn(count: number, from: string) {
    const opened: Array<{ socket: Socket; closed: Promise<unknown> }> = []
    for (let i = 0; i < count; i++) {
      const socket = await open(from)
      opened.push({ socket, closed: new Promise((resolve) => socket.once('close', resolve)) })
    }
    return opened
  }
  const isClosed = async (closed: Promise<unknown>) =>
    Promise.race([closed.then(() => true), new Promise((resolve) => setTimeout(resolve, 300, false))])
  // A request on an open connection, and its status line.
  const ask = (socket: Socket) =>
    new Promise<string>((resolve) => {
      socket.setEncoding('latin1').once('data', (chunk: string) => resolve(chunk.split('\r\n')[0]!))
      socket.write('GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n')
    })

  it('bounds connections in all (12 here): the oldest idle ones, of any address, make room', async () => {
    const first = await openInTurn(8, '127.0.0.2')
    const second = await openInTurn(8, '127.0.0.3')
    // 16 opened, 12 at most: the 4 that were idle longest are closed by the server.
    await Promise.all(first.slice(0, 4).map(({ closed }) => closed))
    const open = await Promise.all([...first.slice(4), ...second].map(({ closed }) => isClosed(closed)))
    expect(open).toEqual(Array(12).fill(false))
    for (const { socket, closed } of [...first, ...second]) {
      socket.destroy()
      await closed
    }
  }, 20_000)

  it('counts idle connections in the cap per address: a new one closes its oldest idle one', async () => {
    // 20 idle connections from one address, none of them sending a byte: 8 stay open.
    const opened = await openInTurn(20, '127.0.0.4')
    await Promise.all(opened.slice(0, 12).map(({ closed }) => closed))
    expect(await Promise.all(opened.slice(12).map(({ closed }) => isClosed(closed)))).toEqual(
      Array(8).fill(false),
    )
    // A new one is served (the oldest idle one made room); once answered it is idle again, the
    // newest: the next new one closes the oldest idle one, not it.
    const [used] = await openInTurn(1, '127.0.0.4')
    expect(await ask(used!.socket)).toBe('HTTP/1.1 200 OK')
    await opened[12]!.closed
    const next = await openInTurn(1, '127.0.0.4')
    await opened[13]!.closed
    expect(await isClosed(used!.closed)).toBe(false)
    for (const { socket, closed } of [...opened, used!, ...next]) {
      socket.destroy()
      await closed
    }
  }, 20_000)

  it('caps connections per address: when none is idle, the one past the cap is answered 429 and closed', async () => {
    const key = /Developer key {2}(ak_\S+)/.exec(server.stdout())?.[1]
    // 8 connections, each with a request in progress (its body still to come): none is idle.
    const held = await openInTurn(8, '127.0.0.5')
    await Promise.all(
      held.map(
        ({ socket }) =>
          new Promise((resolve) => {
            socket.setEncoding('latin1').once('data', resolve) // 100 Continue: the request is in
            socket.write(
              `POST /api/v1/projects HTTP/1.1\r\nHost: x\r\nX-Developer-Key: ${key}\r\nContent-Type: application/json\r\nContent-Length: 20\r\nExpect: 100-continue\r\n\r\n`,
            )
          }),
      ),
    )
    const past = await openInTurn(1, '127.0.0.5')
    const answer = await new Promise<string>((resolve) => {
      let text = ''
      past[0]!.socket.setEncoding('latin1').on('data', (chunk: string) => {
        text += chunk
      })
      past[0]!.socket.once('close', () => resolve(text))
      past[0]!.socket.write('GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n')
    })
    expect(answer.split('\r\n')[0]).toBe('HTTP/1.1 429 Too Many Requests')
    expect(answer).toContain('retry-after: 1')
    expect(answer).toContain('"type":"rate_limited"')
    for (const { socket, closed } of held) {
      socket.destroy()
      await closed
    }
  }, 20_000)
})
