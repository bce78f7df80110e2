import { readFileSync } from 'node:fs'
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
export type HttpBounds = Pick<
  ServerConfig,
  'requestTimeoutMs' | 'headersTimeoutMs' | 'connectionsPerAddress' | 'maxConnections'
>

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
 * `connectionsPerAddress` connections at once from one socket address, idle ones included (a new
 * one closes the address's oldest idle connection; when none is idle, its request is answered 429
 * `rate_limited` and it is closed), at most `maxConnections` in all (a new one closes the oldest
 * idle connection of any address, and is closed itself when none is idle), and every error of Node's HTTP
 * layer (400, 408, 417, 431) answered in the specification's error format, as are a request its
 * parser lets through that no route can take (a Host with user info or a space, a backslash in
 * the path, `OPTIONS *`: 400) and `CONNECT` (405), each closing its connection.
 */
export function createBoundedServer(bounds: HttpBounds, listener: RequestListener): Server {
  const overCap = new WeakSet<Socket>()
  const connections = connectionBounds(bounds, overCap)
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
      connections.busy(req.socket, res)
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
  server.on('connection', connections.opened)
  return server
}

/** The connections of one client address: how many are open, and the idle ones, oldest idle first. */
interface Peer {
  open: number
  readonly idle: Set<Socket>
}

/**
 * The connection bounds: per address and in all, idle connections counted. A connection is idle
 * from its start until its first request, and between requests; the oldest idle one makes room
 * for a new one (of its address past `connectionsPerAddress`, of any past `maxConnections`).
 */
function connectionBounds(bounds: HttpBounds, overCap: WeakSet<Socket>) {
  const perAddress = bounds.connectionsPerAddress
  const max = bounds.maxConnections ?? defaultMaxConnections()
  const peers = new Map<string, Peer>()
  const peerOf = new WeakMap<Socket, Peer>()
  // Every idle connection, oldest idle first (a Set keeps the order of insertion).
  const idle = new Set<Socket>()
  let open = 0

  const notIdle = (socket: Socket, peer: Peer) => {
    idle.delete(socket)
    peer.idle.delete(socket)
  }
  // Counted until it closes, or until it is shed (once).
  const release = (socket: Socket, peer: Peer, address: string) => {
    if (!peerOf.has(socket)) return
    peerOf.delete(socket)
    notIdle(socket, peer)
    open -= 1
    peer.open -= 1
    if (peer.open === 0) peers.delete(address)
  }
  const shed = (socket: Socket) => {
    const peer = peerOf.get(socket)
    if (peer) release(socket, peer, socket.remoteAddress ?? '')
    socket.destroy()
  }

  return {
    opened(socket: Socket) {
      const address = socket.remoteAddress ?? ''
      let peer = peers.get(address)
      if (!peer) {
        peer = { open: 0, idle: new Set() }
        peers.set(address, peer)
      }
      if (perAddress > 0 && peer.open >= perAddress) {
        const oldest = peer.idle.values().next().value
        if (oldest) shed(oldest)
        else overCap.add(socket)
      }
      if (max > 0 && open >= max) {
        const oldest = idle.values().next().value
        if (!oldest) {
          socket.destroy()
          return
        }
        shed(oldest)
      }
      open += 1
      peer.open += 1
      peerOf.set(socket, peer)
      idle.add(socket)
      peer.idle.add(socket)
      const counted = peer
      socket.once('close', () => release(socket, counted, address))
    },
    /** A request came on `socket`: not idle until its response ends. */
    busy(socket: Socket, res: ServerResponse) {
      const peer = peerOf.get(socket)
      if (!peer) return
      notIdle(socket, peer)
      res.once('close', () => {
        if (peerOf.get(socket) !== peer || socket.destroyed) return
        idle.add(socket)
        peer.idle.add(socket)
      })
    },
  }
}

/** 90% of the process's limit of open file descriptors, read on Linux; `0` (no bound) elsewhere. */
function defaultMaxConnections(): number {
  try {
    const limit = /^Max open files\s+(\d+)/m.exec(readFileSync('/proc/self/limits', 'utf8'))?.[1]
    return limit ? Math.max(64, Math.floor(Number(limit) * 0.9)) : 0
  } catch {
    return 0
  }
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
