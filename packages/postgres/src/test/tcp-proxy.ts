// A TCP proxy in front of the database, for tests of what the store does when the database
// goes away (stop), hangs (stall) and comes back (restart, resume).
import { connect, createServer, type Server, type Socket } from 'node:net'

export class TcpProxy {
  #server: Server | undefined
  #sockets = new Set<Socket>()
  #stalled = false
  #waiting: Array<() => void> = []
  port = 0

  private constructor(
    readonly targetHost: string,
    readonly targetPort: number,
  ) {}

  static async start(targetHost: string, targetPort: number): Promise<TcpProxy> {
    const proxy = new TcpProxy(targetHost, targetPort)
    await proxy.#listen(0)
    return proxy
  }

  /** The connection string `url` rewritten to go through the proxy. */
  through(url: string): string {
    const parsed = new URL(url)
    parsed.hostname = '127.0.0.1'
    parsed.port = String(this.port)
    return parsed.toString()
  }

  /** The database goes away: connections are cut and new ones refused. */
  async stop(): Promise<void> {
    const server = this.#server
    this.#server = undefined
    for (const socket of this.#sockets) socket.destroy()
    this.#sockets.clear()
    await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()))
  }

  /** The database is back, on the same port. */
  async restart(): Promise<void> {
    await this.#listen(this.port)
  }

  /** The database hangs: connections stay open but nothing passes. */
  stall(): void {
    this.#stalled = true
    for (const socket of this.#sockets) socket.pause()
  }

  resume(): void {
    this.#stalled = false
    for (const socket of this.#sockets) socket.resume()
    for (const start of this.#waiting.splice(0)) start()
  }

  async #listen(port: number): Promise<void> {
    const server = createServer((client) => this.#accept(client))
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject)
      server.listen(port, '127.0.0.1', () => resolve())
    })
    this.port = (server.address() as { port: number }).port
    this.#server = server
  }

  #accept(client: Socket): void {
    this.#sockets.add(client)
    client.on('close', () => this.#sockets.delete(client))
    client.on('error', () => client.destroy())
    const start = () => {
      if (client.destroyed) return
      const upstream = connect(this.targetPort, this.targetHost)
      this.#sockets.add(upstream)
      upstream.on('close', () => {
        this.#sockets.delete(upstream)
        client.destroy()
      })
      upstream.on('error', () => upstream.destroy())
      client.on('close', () => upstream.destroy())
      client.pipe(upstream)
      upstream.pipe(client)
      if (this.#stalled) upstream.pause()
    }
    if (this.#stalled) {
      client.pause()
      this.#waiting.push(start)
    } else start()
  }
}
