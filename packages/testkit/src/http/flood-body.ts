import { request } from 'node:http'
import { connect } from 'node:net'

/**
 * What became of a large chunked body sent with {@link sendChunkedFlood}.
 *
 * @example
 * ```ts
 * const { status, bytesAccepted } = await sendChunkedFlood(origin, '/things', [], 200 * 2 ** 20)
 * ```
 */
export interface FloodOutcome {
  /** The response's status, or 0 when none came. */
  readonly status: number
  /** The response as received (head and body). */
  readonly response: string
  /** Body bytes the server accepted before it closed the connection. */
  readonly bytesAccepted: number
  /** The largest growth of this process's resident memory while sending, in bytes. */
  readonly rssGrowth: number
}

/**
 * Sends `POST path` with a chunked body of `totalBytes` (one 64 KiB chunk written again and
 * again, so the sender holds no more than that), as fast as the server takes it, until the server
 * answers and closes or the body is sent. Measures how much the server accepted and how far this
 * process's memory grew meanwhile (the servers of the suite run in this process).
 *
 * @example
 * ```ts
 * const outcome = await sendChunkedFlood(origin, '/api/v1/auth/developer-keys', [['X-Developer-Key', key]], 200 * 2 ** 20)
 * expect(outcome.status).toBe(413)
 * ```
 */
export function sendChunkedFlood(
  origin: string,
  path: string,
  headers: ReadonlyArray<readonly [string, string]>,
  totalBytes: number,
): Promise<FloodOutcome> {
  const url = new URL(origin)
  const chunk = Buffer.alloc(64 * 1024, 'a')
  const frame = Buffer.concat([Buffer.from(`${chunk.length.toString(16)}\r\n`), chunk, Buffer.from('\r\n')])
  const rssAtStart = process.memoryUsage.rss()
  return new Promise((resolve) => {
    const socket = connect({ host: url.hostname, port: Number(url.port) })
    const received: Buffer[] = []
    let bytesAccepted = 0
    let rssGrowth = 0
    let closed = false
    const sample = setInterval(() => {
      rssGrowth = Math.max(rssGrowth, process.memoryUsage.rss() - rssAtStart)
    }, 20)
    socket.on('data', (data: Buffer) => received.push(data))
    socket.on('error', () => socket.destroy())
    socket.on('close', () => {
      closed = true
      clearInterval(sample)
      const response = Buffer.concat(received).toString('latin1')
      const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(response)?.[1] ?? 0)
      resolve({ status, response, bytesAccepted, rssGrowth })
    })
    const head = [`POST ${path} HTTP/1.1`, `Host: ${url.host}`, 'Transfer-Encoding: chunked']
    for (const [name, value] of headers) head.push(`${name}: ${value}`)
    socket.write(`${head.join('\r\n')}\r\n\r\n`)
    const pump = () => {
      while (!closed && bytesAccepted < totalBytes) {
        bytesAccepted += chunk.length
        if (!socket.write(frame)) return void socket.once('drain', pump)
      }
      if (!closed) socket.end('0\r\n\r\n')
    }
    pump()
  })
}

/**
 * Streams `POST path` with a chunked body of `totalBytes` through Node's own `http` client, as
 * an application would upload a file, and stops sending once the answer comes. Resolves to the
 * answer's status, or to the error code when none came (`EPIPE`, `ECONNRESET`: the server closed
 * the connection before the client could read its answer).
 *
 * @example
 * ```ts
 * expect(await streamChunkedBody(origin, '/api/v1/auth/developer-keys', [['X-Developer-Key', key]], 200 * 2 ** 20)).toBe(413)
 * ```
 */
export function streamChunkedBody(
  origin: string,
  path: string,
  headers: ReadonlyArray<readonly [string, string]>,
  totalBytes: number,
): Promise<number | string> {
  const chunk = Buffer.alloc(64 * 1024, 'a')
  return new Promise((resolve) => {
    let answered = false
    const req = request(
      new URL(path, origin),
      { method: 'POST', headers: { ...Object.fromEntries(headers), 'transfer-encoding': 'chunked' } },
      (res) => {
        answered = true
        res.resume()
        const done = () => {
          req.destroy()
          resolve(res.statusCode ?? 0)
        }
        res.on('end', done)
        res.on('error', done)
      },
    )
    req.on('error', (error: NodeJS.ErrnoException) => {
      if (!answered) resolve(error.code ?? error.message)
    })
    let sent = 0
    const pump = () => {
      while (!answered && sent < totalBytes) {
        sent += chunk.length
        if (!req.write(chunk)) return void req.once('drain', pump)
      }
      if (!answered) req.end()
    }
    pump()
  })
}
