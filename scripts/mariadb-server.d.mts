// Types of mariadb-server.mjs, for the tests that import it.
/** Why a server of its own cannot be built here, or `undefined` when it can. */
export declare function mariadbServerUnavailable(): string | undefined
/** A MariaDB server of its own; its database `keyward` is at {@link url}. */
export declare class MariadbServer {
  readonly port: number
  /** The connection string of the database `keyward`, as `root` without a password. */
  readonly url: string
  private constructor()
  /**
   * Builds the data directory, starts the server and creates the database `keyward`.
   * `maxConnections` (default 200) is the server's `max_connections`.
   */
  static start(options?: { readonly maxConnections?: number }): Promise<MariadbServer>
  /** The server's process id, while it runs. */
  get pid(): number | undefined
  /** Starts the server on its data directory and port; resolves once it accepts connections. */
  restart(): Promise<void>
  /** Stops the server where it is (SIGSTOP): connections stay open and get no answer. */
  stall(): void
  /** Lets a stalled server run on (SIGCONT). */
  resume(): void
  /** Kills the server (SIGKILL, a crash) and waits until its process has ended. */
  kill(): Promise<void>
  /** Kills the server, if it runs, and removes its directory. */
  destroy(): void
}
