import { connect } from 'node:net'

/** A request as bytes on the wire: headers in order, repeated names allowed, nothing normalized. */
export interface RawRequest {
  readonly method: string
  readonly path: string
  readonly headers?: ReadonlyArray<readonly [name: string, value: string]>
  readonly body?: string
  /** Send the body with `Transfer-Encoding: chunked` instead of `Content-Length`. */
  readonly chunked?: boolean
}

/** A response as it came: status, headers by lower-case name (all values), body text. */
export interface RawResponse {
  readonly status: number
  readonly headers: Readonly<Record<string, readonly string[]>>
  readonly body: string
}

function encodeRequest(host: string, request: RawRequest): Buffer {
  const lines = [`${request.method} ${request.path} HTTP/1.1`, `Host: ${host}`, 'Connection: close']
  for (const [name, value] of request.headers ?? []) lines.push(`${name}: ${value}`)
  const body = request.body === undefined ? undefined : Buffer.from(request.body, 'utf8')
  if (body && request.chunked) lines.push('Transfer-Encoding: chunked')
  else if (body) lines.push(`Content-Length: ${body.length}`)
  const head = Buffer.from(`${lines.join('\r\n')}\r\n\r\n`, 'utf8')
  if (!body) return head
  if (!request.chunked) return Buffer.concat([head, body])
  const parts: Buffer[] = [head]
  for (let i = 0; i < body.length; i += 4096) {
    const chunk = body.subarray(i, i + 4096)
    parts.push(Buffer.from(`${chunk.length.toString(16)}\r\n`), chunk, Buffer.from('\r\n'))
  }
  parts.push(Buffer.from('0\r\n\r\n'))
  return Buffer.concat(parts)
}

function decodeChunked(data: Buffer): Buffer {
  const parts: Buffer[] = []
  let at = 0
  for (;;) {
    const eol = data.indexOf('\r\n', at)
    const size = Number.parseInt(data.subarray(at, eol).toString('latin1'), 16)
    if (!(size > 0)) return Buffer.concat(parts)
    parts.push(data.subarray(eol + 2, eol + 2 + size))
    at = eol + 2 + size + 2
  }
}

/**
 * Sends one request over a fresh TCP connection to `origin` (`http://127.0.0.1:PORT`) and reads
 * the response until the server closes. Header values go out as UTF-8 bytes, unchecked, so
 * tests can send what clients such as `fetch` refuse to (NUL, duplicates, non-ASCII).
 *
 * @example
 * ```ts
 * const response = await sendRaw('http://127.0.0.1:3000', {
 *   method: 'GET',
 *   path: '/api/v1/auth/developer-keys',
 *   headers: [['X-Developer-Key', 'ak_short']],
 * })
 * response.status // 401
 * ```
 */
export function sendRaw(origin: string, request: RawRequest): Promise<RawResponse> {
  const url = new URL(origin)
  return new Promise((resolve, reject) => {
    const socket = connect({ host: url.hostname, port: Number(url.port) })
    const received: Buffer[] = []
    socket.on('data', (chunk: Buffer) => received.push(chunk))
    socket.on('error', (error) => (received.length > 0 ? socket.destroy() : reject(error)))
    socket.on('close', () => {
      const data = Buffer.concat(received)
      const end = data.indexOf('\r\n\r\n')
      if (end < 0) return reject(new Error(`Incomplete response: ${JSON.stringify(data.toString('latin1'))}`))
      const [statusLine = '', ...headerLines] = data.subarray(0, end).toString('latin1').split('\r\n')
      const headers: Record<string, string[]> = {}
      for (const line of headerLines) {
        const colon = line.indexOf(':')
        const name = line.slice(0, colon).trim().toLowerCase()
        headers[name] = [...(headers[name] ?? []), line.slice(colon + 1).trim()]
      }
      const rest = data.subarray(end + 4)
      const body = headers['transfer-encoding']?.includes('chunked') ? decodeChunked(rest) : rest
      resolve({ status: Number(statusLine.split(' ')[1]), headers, body: body.toString('utf8') })
    })
    socket.write(encodeRequest(url.host, request))
  })
}
