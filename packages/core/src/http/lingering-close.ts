// A lingering close for Node.js servers: what nginx does after refusing a body it did not read.

/** A Node.js socket, as far as {@link lingeringClose} uses it. */
export interface LingeringSocket {
  readonly bytesRead: number
  readonly destroyed: boolean
  destroySoon?: () => void
  end(): unknown
  destroy(): unknown
  pause(): unknown
  resume(): unknown
  once(event: 'close' | 'end', listener: () => void): unknown
}

/** A Node.js HTTP server, as far as {@link lingeringClose} uses it. */
export interface LingeringServer {
  prependListener(
    event: 'request',
    listener: (request: { readonly complete: boolean; readonly socket: LingeringSocket | null }) => void,
  ): unknown
}

/** Options of {@link lingeringClose}. */
export interface LingeringCloseOptions {
  /** The longest a connection lingers after its answer, in milliseconds. Default 5000. */
  readonly maxMs?: number
  /** The most bytes read and thrown away after the answer; then reading stops until `maxMs`. Default 64 MiB. */
  readonly maxBytes?: number
}

/** What {@link lingeringClose} does unless told otherwise. */
export const LINGERING_CLOSE_DEFAULTS = { maxMs: 5_000, maxBytes: 64 * 1024 * 1024 } as const

const CHECK_MS = 50

/**
 * Makes `server` close a connection the way nginx's lingering close does when an answer that
 * ends the connection (`Connection: close`, as a 413 `payload_too_large` or a 415 has) leaves
 * part of the request body unread: the answer is sent and the sending side shut, then the rest of
 * the body is read and thrown away, for at most `maxMs` and `maxBytes`, before the connection
 * is closed. Node.js would destroy the socket as soon as the answer is written: the kernel then
 * resets the connection because of the unread bytes, and a client still sending its body gets
 * EPIPE or ECONNRESET instead of the answer. Memory holds no more than before: the bytes read
 * after the answer are dropped as they come. A connection whose request was read whole closes
 * at once, as before.
 *
 * @example
 * ```ts
 * import { createServer } from 'node:http'
 * const server = lingeringClose(createServer(app)) // Express
 * lingeringClose(fastify.server) // Fastify, before it listens
 * lingeringClose(serve({ fetch: app.fetch, port: 3000 })) // Hono on @hono/node-server
 * ```
 */
export function lingeringClose<S extends LingeringServer>(server: S, options: LingeringCloseOptions = {}): S {
  if (typeof server?.prependListener !== 'function') {
    throw new TypeError('lingeringClose: the first argument must be a Node.js HTTP server.')
  }
  const maxMs = options.maxMs ?? LINGERING_CLOSE_DEFAULTS.maxMs
  const maxBytes = options.maxBytes ?? LINGERING_CLOSE_DEFAULTS.maxBytes
  for (const [name, value] of [
    ['maxMs', maxMs],
    ['maxBytes', maxBytes],
  ] as const) {
    if (!Number.isInteger(value) || value < 0) {
      throw new TypeError(
        `lingeringClose: option \`${name}\` must be a non-negative integer, got ${String(value)}.`,
      )
    }
  }
  // The request each connection is on: a keep-alive connection carries several, one at a time.
  const current = new WeakMap<LingeringSocket, { readonly complete: boolean }>()
  server.prependListener('request', (request) => {
    const socket = request.socket
    if (!socket) return
    const patched = current.has(socket)
    current.set(socket, request)
    if (patched) return
    const destroySoon = socket.destroySoon
    if (typeof destroySoon !== 'function') return
    // Node calls destroySoon() once the last answer of a connection is handed to the socket.
    socket.destroySoon = () => {
      if (current.get(socket)?.complete !== false || socket.destroyed) {
        destroySoon.call(socket)
        return
      }
      linger(socket, maxMs, maxBytes)
    }
  })
  return server
}

function linger(socket: LingeringSocket, maxMs: number, maxBytes: number): void {
  // Shut the sending side once the answer is out; the client sees the answer, then the end.
  socket.end()
  const readBefore = socket.bytesRead
  const started = Date.now()
  let timer: unknown
  const close = () => {
    clearTimeout(timer)
    if (!socket.destroyed) socket.destroy()
  }
  // The client ends its side once it has sent its body (or gave up): the connection is done.
  socket.once('end', close)
  socket.once('close', close)
  socket.resume()
  const check = () => {
    if (socket.destroyed) return
    if (Date.now() - started >= maxMs) {
      close()
      return
    }
    // Past the bytes' bound, stop reading: the client's sending stalls, but it can read the answer.
    if (socket.bytesRead - readBefore > maxBytes) socket.pause()
    timer = setTimeout(check, CHECK_MS)
  }
  timer = setTimeout(check, CHECK_MS)
}
