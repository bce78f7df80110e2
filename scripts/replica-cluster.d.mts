// Types of replica-cluster.mjs, for the tests that import it.
/**
 * Where the PostgreSQL server binaries are: `KEYWARD_PG_BINDIR`, else what `pg_config` says,
 * else the newest version in Debian's layout.
 */
export declare function postgresBinDir(): string | undefined
/** Why replica clusters cannot be built here, or `undefined` when they can. */
export declare function replicaClusterUnavailable(): string | undefined
/** A free TCP port on 127.0.0.1 (the kernel picks it; it is free again when this resolves). */
export declare function freePort(): Promise<number>
/** One server of the cluster. */
export interface ClusterNode {
  readonly port: number
  readonly dataDir: string
  /** A connection string to the node's `postgres` database. */
  readonly url: string
}
/**
 * A primary and one streaming standby. The standby replays commits `applyDelayMs` after the
 * primary made them (`recovery_min_apply_delay`), so tests can see it lag.
 */
export declare class ReplicaCluster {
  readonly primary: ClusterNode
  readonly standby: ClusterNode
  readonly applyDelayMs: number
  private constructor()
  /**
   * Builds and starts both servers; the standby is streaming when this resolves. With
   * `standby: false`, only the primary (for tests that stop and restart one server).
   * `settings` (`name = value` lines) are added to the primary's configuration, after the defaults.
   */
  static start(options?: {
    readonly applyDelayMs?: number
    readonly standby?: boolean
    readonly settings?: readonly string[]
  }): Promise<ReplicaCluster>
  /** Appends settings (`name = value` lines) to a running node's configuration and reloads it. */
  reconfigure(node: ClusterNode, settings: readonly string[]): void
  /** Starts a stopped node and waits until it accepts connections. */
  startNode(node: ClusterNode): Promise<void>
  /** Stops a node: `fast` closes its sessions and shuts down cleanly; `immediate` is a crash. */
  stopNode(node: ClusterNode, mode?: 'fast' | 'immediate'): Promise<void>
  /** Stops whatever still runs and removes the directory. */
  destroy(): Promise<void>
  /** {@link destroy}, synchronously (for a process that is exiting). */
  destroySync(): void
}
