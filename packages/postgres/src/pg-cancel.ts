// Cancelling the statement a node-postgres connection is running: PostgreSQL's CancelRequest,
// sent on a connection of its own to where that connection goes (a pooler passes it on).
import { connect } from 'node:net'
import type pg from 'pg'

// The request's code in the protocol: 1234 in the upper 16 bits, 5678 in the lower.
const CANCEL_REQUEST_CODE = 80877102

/** What node-postgres keeps of its connection: where it goes, and the key the server gave it. */
interface Connected {
  readonly host?: string
  readonly port?: number
  readonly processID?: number | null
  readonly secretKey?: number | null
}

/**
 * @internal Asks the server to cancel what `client` runs now: the statement then ends with
 * error 57014 (or with its own result if it finished first). Resolves once the server has
 * taken the request (it closes the request's connection), or after `timeoutMs` without that.
 * Give the connection to another operation only then, so that the request cannot reach a
 * statement of the next one.
 */
export function cancelStatement(client: pg.ClientBase, timeoutMs: number): Promise<void> {
  const { host, port, processID, secretKey } = client as unknown as Connected
  if (typeof processID !== 'number' || typeof secretKey !== 'number' || !port) return Promise.resolve()
  const socket = host?.startsWith('/') ? connect(`${host}/.s.PGSQL.${port}`) : connect(port, host)
  const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()))
  socket.setTimeout(timeoutMs, () => socket.destroy())
  socket.on('error', () => socket.destroy())
  socket.on('connect', () => {
    const request = Buffer.alloc(16)
    request.writeInt32BE(16, 0)
    request.writeInt32BE(CANCEL_REQUEST_CODE, 4)
    request.writeInt32BE(processID, 8)
    request.writeInt32BE(secretKey, 12)
    socket.end(request)
  })
  return closed
}
