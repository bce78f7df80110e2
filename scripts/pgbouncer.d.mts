// Types of pgbouncer.mjs, for the tests that import it.
/**
 * Where the pgbouncer binary is: `KEYWARD_PGBOUNCER_BIN`, else on `PATH`, else in the system
 * directories where distributions install it (Debian: /usr/sbin).
 */
export declare function pgbouncerBinary(): string | undefined
/**
 * Why PgBouncer tests cannot run here, or `undefined` when they can. With
 * `KEYWARD_REQUIRE_PGBOUNCER=1` (CI) a missing PgBouncer throws instead: the run fails.
 */
export declare function pgbouncerUnavailable(): string | undefined
/** How {@link PgBouncer.start} configures PgBouncer. */
export interface PgBouncerOptions {
  /** The PostgreSQL server's URL: its host, port and user (trust authentication). */
  readonly server: string
  /** `pool_mode`. Default `transaction`. */
  readonly poolMode?: 'session' | 'transaction' | 'statement'
  /** More `name = value` lines of the `[pgbouncer]` section (e.g. `server_login_retry = 1`). */
  readonly settings?: readonly string[]
}
/** A PgBouncer process in front of one PostgreSQL server. */
export declare class PgBouncer {
  readonly port: number
  readonly poolMode: string
  private constructor()
  /** Writes a configuration and starts PgBouncer; it accepts connections when this resolves. */
  static start(options: PgBouncerOptions): Promise<PgBouncer>
  /** `url` (of the PostgreSQL server behind) with its host and port changed to PgBouncer's. */
  through(url: string): string
  /** Whether the process runs. */
  readonly running: boolean
  /** What PgBouncer logged lately (its stderr). */
  log(): string
  /** Starts PgBouncer again (same configuration and port) and waits until it accepts connections. */
  restart(): Promise<void>
  /** Ends the process with `signal` (default SIGKILL: a crash) and waits until it is gone. */
  kill(signal?: NodeJS.Signals): Promise<void>
  /** Stops PgBouncer and removes its directory. */
  destroy(): Promise<void>
  /** {@link destroy}, synchronously (for a process that is exiting). */
  destroySync(): void
}
