import {
  createServer,
  type IncomingMessage,
  type RequestListener,
  type Server,
  type ServerResponse,
} from 'node:http'
import { Server as NetServer, type Socket } from 'node:net'
import {
  answerClientError,
  answerConnect,
  clientErrorResponse,
  ErrorType,
  errorResponse,
  expectationFailedResponse,
  KeywardError,
  type KeywardResponse,
  lingeringClose,
  requestTargetProblem,
} from '@keyward/core'
import type { ServerConfig } from '../config.js'

/** The HTTP bounds of the server's settings. */
export type HttpBounds = Pick<ServerConfig, 'requestTimeoutMs' | 'headersTimeoutMs' | 'connectionsPerAddress'>

const write = (res: ServerResponse, { status, headers, body }: KeywardResponse) => {
  res.writeHead(status, { ...headers, 'content-length': Buffer.byteLength(body) }).end(body)
}

const tooManyConnections = () =>
  errorResponse(
    new KeywardError(
      ErrorType.rateLimited,
      'Too many connections from this address: reuse the open ones, or close some and try again.',
      [],
      { headers: { 'retry-after': '1', connection: 'close' } },
    ),
  )

/**
 * Node's HTTP server with the server's bounds: a whole request within `requestTimeoutMs`, its
 * headers within `headersTimeoutMs` (both answered 408 `request_timeout`), at most
 * `connectionsPerAddress` connections at once from one socket address (the connections past it
 * have their request answered 429 `rate_limited` and are closed), and every error of Node's HTTP
 * layer (400, 408, 417, 431) answered in the specification's error format, as are a request its
 * parser lets through that no route can take (a Host with user info or a space, a backslash in
 * the path, `OPTIONS *`: 400) and `CONNECT` (405), each closing its connection.
 */
export function createBoundedServer(bounds: HttpBounds, listener: RequestListener): Server {
  const overCap = new WeakSet<Socket>()
  const server = createServer(
    {
      requestTimeout: bounds.requestTimeoutMs,
      headersTimeout: bounds.headersTimeoutMs,
      // Node checks both bounds this often (30 s by default, which made a 60 s bound 62 s).
      connectionsCheckingInterval: Math.max(50, Math.min(1_000, Math.floor(bounds.headersTimeoutMs / 4))),
    },
    (req: IncomingMessage, res: ServerResponse) => {
      // While the server stops, each connection closes after its answer.
      if (draining.has(server)) res.setHeader('connection', 'close')
      if (overCap.has(req.socket)) return write(res, tooManyConnections())
      // A Host or a target that Node's parser let through and no route can take: 400, closing.
      const problem = requestTargetProblem(req.url ?? '', req.headers.host)
      if (problem) return write(res, clientErrorResponse({ code: problem }))
      listener(req, res)
    },
  )
  // A body refused past its limit (413) is read and thrown away for a while before the
  // connection closes, so that a client still sending it reads the answer.
  lingeringClose(server)
  server.on('clientError', answerClientError)
  server.on('connect', answerConnect)
  server.on('checkExpectation', (_req: IncomingMessage, res: ServerResponse) =>
    write(res, expectationFailedResponse()),
  )
  if (bounds.connectionsPerAddress > 0) {
    const open = new Map<string, number>()
    server.on('connection', (socket: Socket) => {
      const address = socket.remoteAddress ?? ''
      const count = (open.get(address) ?? 0) + 1
      open.set(address, count)
      if (count > bounds.connectionsPerAddress) overCap.add(socket)
      socket.once('close', () => {
        const left = (open.get(address) ?? 1) - 1
        if (left > 0) open.set(address, left)
        else open.delete(address)
      })
    })
  }
  return server
}

const draining = new WeakSet<Server>()

/**
 * How long a stopping server leaves its idle keep-alive connections open: a request that a
 * client sent on one just before the stop is answered rather than cut off (the client stops
 * sending once it hears `Connection: close`, or once its load balancer stops sending here).
 */
export const DRAIN_MS = 1_000

/**
 * Stops `server` gracefully: no new connection is accepted; the requests in flight, and any that
 * come on open connections, are answered with `Connection: close`; idle connections are closed
 * after {@link DRAIN_MS}. `closed` is called once every connection has ended.
 */
export function closeGracefully(server: Server, closed: () => void): void {
  draining.add(server)
  // net's close, not http's: http's closes the idle connections at once, cutting off a request
  // that is on its way on one of them.
  NetServer.prototype.close.call(server, () => closed())
  setTimeout(() => {
    server.closeIdleConnections()
    setInterval(() => server.closeIdleConnections(), 100).unref()
  }, DRAIN_MS).unref()
}
