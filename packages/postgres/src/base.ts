import {
  type AuditWrite,
  type CreditAuditWrite,
  type CreditChange,
  type CreditLease,
  type CreditLeaseRequest,
  checkTelemetryOptions,
  type IdentityStore,
  type KeyChangeFeed,
  type KeyKind,
  type KeyOwner,
  type KeyOwnerSummary,
  type KeyPage,
  type KeyPageQuery,
  type KeyRecord,
  type KeyStore,
  type KeyUse,
  type KeywardTelemetry,
  limitExceededError,
  ownerChangeHash,
  ownerClosedError,
  type RevokedReason,
  type RoleStore,
  type RolledRecords,
  type StoredKeyPolicies,
  type WebhookStore,
} from '@keyward/core'
import {
  all,
  type KeyChange,
  type KeyRoll,
  keyCreditChange,
  one,
  publishChange,
  SqlStoreBase,
} from '@keyward/sql'
import { type AuditStatements, appendAuditIn, auditLog, auditStatements } from './audit.js'
import type { PoolStats, SqlDriver, SqlQueryable, SqlRow } from './driver.js'
import {
  ChangeFeedLateError,
  type FeedFences,
  positiveOption,
  type StrictRevocationOptions,
  strictSettings,
} from './fences.js'
import { PostgresIdentities } from './identities.js'
import { readFilteredPage } from './key-filter.js'
import {
  type Changed,
  creditValues,
  firstRecord,
  insertValues,
  jsonOrNull,
  type KeyRow,
  leaseMany,
  readPage,
  run,
  toRecord,
  UUID,
} from './key-rows.js'
import {
  checkReplicas,
  type ReadReplica,
  type ReplicaEvent,
  type ReplicaReadOptions,
  type ReplicaReadStats,
  ReplicaReads,
} from './replicas/reads.js'
import { PostgresRoles } from './roles.js'
import { checkSchema, INSERTED, type Statements, statementPrefix, statementsFor } from './statements.js'
import { traceStore } from './store-spans.js'
import { PostgresUsage } from './usage.js'
import { PostgresWebhooks } from './webhooks.js'

/** Options of {@link PostgresKeyStore}. */
export interface PostgresKeyStoreOptions {
  /** The SQL schema that holds Keyward's tables. Default `keyward`. */
  readonly schema?: string
  /**
   * The change feed of this store (`pgChangeFeed`, or PGlite's in process), for a
   * verification cache. `close()` closes it too when it has a `close` method.
   */
  readonly changes?: KeyChangeFeed
  /**
   * Streaming standbys of the database, for lookups by hash (every write, the limit and
   * everything else stay on the primary). A standby's answer is used only for an active key
   * with no change newer than what the standby has replayed, and only while `changes` is
   * connected; see the Postgres guide's "Read replicas" for the guarantee. `createPgKeyStore`
   * builds these from `replicas`.
   */
  readonly readReplicas?: readonly ReadReplica[]
  /** How replicas are read: lag bound, probe interval, behaviour while the primary is down. */
  readonly replicaReads?: ReplicaReadOptions
  /**
   * Strict revocation: after a revocation is acknowledged, no process accepts the key, from a
   * read replica or from its verification cache. Revocations (deactivations, rolls, an owner's
   * deletion) then return a bound B after their commit, once this process's feed confirmed the
   * primary delivers past it; lookups read a replica or a cache only while the feed heard one of
   * its own fences sent within B. It needs `changes` from `pgChangeFeed({ freshnessBoundMs })`,
   * whose bound it uses. Default: on when `changes` has fences or there are `readReplicas`
   * (which then need such a feed); `false` turns it off. See the Postgres guide's "The guarantee".
   */
  readonly strictRevocation?: boolean | StrictRevocationOptions
  /**
   * Receives what happens to the primary and the replicas (down, up, lagging, caught up) and,
   * under strict revocation, to the feed's freshness (`feed.stale`, `feed.fresh`).
   */
  readonly onEvent?: (event: ReplicaEvent) => void
  /**
   * Traces of the store's calls, one span each (`findKeyByHash keyward.api_keys`, after
   * OpenTelemetry's PostgreSQL conventions), through the host's OpenTelemetry:
   * `{ tracerProvider: trace.getTracerProvider() }`. `createPgKeyStore` gives it to its change
   * feed too. No argument or row is recorded. Off when absent. See the observability guide.
   */
  readonly telemetry?: KeywardTelemetry
}

/** An open transaction of {@link PostgresKeyStore.transaction}. */
export interface PostgresTransaction {
  /** Runs SQL of your own in this transaction. */
  query<R extends SqlRow = SqlRow>(text: string, params?: readonly unknown[]): Promise<R[]>
  /** The key store, bound to this transaction: what it writes commits or rolls back with it. */
  readonly store: PostgresKeyStore
}

/**
 * The default schema of Keyward's tables: `keyward.api_keys`, `keyward.api_key_owners`,
 * `keyward.keyward_migrations`.
 *
 * @example
 * ```ts
 * await store.query(`SELECT count(*) FROM ${DEFAULT_SCHEMA}.api_keys WHERE active`)
 * ```
 */
export const DEFAULT_SCHEMA = 'keyward'

type OwnerRow = {
  id: string
  keys: number
  active_keys: number
  first_created_at: Date
  last_created_at: Date
}

// The columns of an insert, by name: a row of `insertImported`'s JSON array.
const INSERT_COLUMNS = INSERTED.split(', ')

const importedRow = (record: KeyRecord): Record<string, unknown> => {
  const values = insertValues(record)
  const row: Record<string, unknown> = { identity_id: record.identityId ?? null }
  INSERT_COLUMNS.forEach((column, i) => {
    const value = values[i]
    // JSON columns come as text from `insertValues`: the row carries them as JSON.
    row[column] =
      (column === 'metadata' || column === 'ratelimits' || column === 'credits_low_at') &&
      typeof value === 'string'
        ? JSON.parse(value)
        : value
  })
  return row
}

/**
 * The `KeyStore` of `@keyward/core` on PostgreSQL, over a small {@link SqlDriver}: node-postgres
 * (`@keyward/postgres/pg`) or embedded PGlite (`@keyward/postgres/pglite`), one schema and
 * the same SQL for both. Lookups by hash are one indexed, prepared statement.
 *
 * The active-key limit is atomic across connections and processes: a creation or
 * re-activation that has a limit locks the owner's row in `api_key_owners`, then counts
 * and writes in the same transaction, so concurrent ones for one owner run one after the other.
 * Every creation, activation and roll takes that lock, and refuses an owner that
 * {@link PostgresKeyStore.deactivateOwnerKeys} closed (a deleted project or developer).
 *
 * It also runs your SQL, alone or in a transaction with key writes, for the tables your
 * application keeps beside Keyward's.
 *
 * @example
 * ```ts
 * import { createPgKeyStore } from '@keyward/postgres/pg'
 * const store = await createPgKeyStore({ connectionString: process.env.DATABASE_URL })
 * const keyward = createKeyward({ store })
 * ```
 */
export class PostgresKeyStore extends SqlStoreBase<SqlQueryable, SqlDriver> implements KeyStore {
  /** The schema of Keyward's tables. */
  readonly schema: string
  /** The store's change feed, when it was given one. */
  readonly changes?: KeyChangeFeed
  /**
   * The identities of the project keys, in the table `identities` beside `api_keys` (schema
   * version 10): each write with its audit rows in one transaction, and a change of an identity
   * on the change feed for each of its keys.
   */
  readonly identities: IdentityStore
  /**
   * The roles of the project keys, in the table `roles` beside `api_keys` (schema version 14):
   * each write with its audit rows in one transaction, and a change of a role on the change feed
   * for each key that holds it.
   */
  readonly roles: RoleStore
  /**
   * Its webhooks, in the tables of schema version 15: endpoints, the outbox (written by the audit
   * append, in the statement of the audit rows) and the delivery log.
   */
  readonly webhooks: WebhookStore
  readonly #db: SqlDriver
  readonly #sql: Statements
  readonly #auditSql: AuditStatements
  readonly #replicas: readonly ReadReplica[]
  readonly #reads: ReplicaReads | undefined
  readonly #strict: { readonly fences: FeedFences; readonly confirmTimeoutMs: number } | undefined
  readonly #telemetry: KeywardTelemetry | undefined
  // Told of every record this store writes (a store bound to a transaction collects them).
  #wrote: (record: Changed | null) => void = (record) => this.#publish(record)
  // Told of every revocation this store commits, when its commit returned; a store bound to a
  // transaction notes it, for the transaction to wait once it has committed.
  #revoked: (committedAt: number) => Promise<void> = (committedAt) =>
    this.#strict ? this.#strict.fences.acknowledge(committedAt, this.#strict.confirmTimeoutMs) : done

  constructor(driver: SqlDriver, options: PostgresKeyStoreOptions = {}) {
    if (typeof driver?.query !== 'function' || typeof driver.transaction !== 'function') {
      throw new TypeError('PostgresKeyStore: the driver must have `query` and `transaction` methods.')
    }
    const schema = checkSchema('PostgresKeyStore', options.schema ?? DEFAULT_SCHEMA)
    const auditSql = auditStatements(schema, statementPrefix(schema))
    super(driver, new PostgresUsage(schema), auditLog(auditSql))
    this.schema = schema
    this.#db = driver
    this.#sql = statementsFor(this.schema)
    this.#auditSql = auditSql
    // Its writes reach this store's feed and revocations, as the store's own do (a store bound
    // to a transaction collects them).
    const access = {
      db: driver,
      audit: this.#auditSql,
      wrote: (change: Changed) => this.#wrote(change),
      revoked: (committedAt: number) => this.#revoked(committedAt),
    }
    this.identities = new PostgresIdentities(this.schema, access)
    this.roles = new PostgresRoles(this.schema, access)
    this.webhooks = new PostgresWebhooks(this.schema, { db: driver, audit: this.#auditSql })
    if (options.changes) this.changes = options.changes
    this.#replicas = options.readReplicas ?? []
    // The replicas' own options are checked first: their messages say more.
    if (this.#replicas.length > 0) checkReplicas(this.#replicas, options.replicaReads)
    this.#strict = strictOf(options)
    const fences = this.#strict?.fences
    if (this.#replicas.length > 0) {
      const find = (db: SqlQueryable, hash: string) => run(db, this.#sql.findByHash, [hash]).then(firstRecord)
      const changes = this.changes
      this.#reads = new ReplicaReads(driver, this.#replicas, find, options.onEvent, options.replicaReads, {
        connected: () => changes?.connected === true,
        ...(fences ? { fenced: () => fences.fresh } : {}),
      })
      // The lag guard hears the feed before anyone else (a cache subscribes later), so that a
      // lookup made on a `changed` event already finds the key on the primary.
      const reads = this.#reads
      if (this.changes?.connected) reads.hear({ type: 'connected' })
      this.changes?.subscribe((event) => reads.hear(event))
      void reads.probe()
    }
    if (fences) reportFreshness(this.changes!, options.onEvent)
    checkTelemetryOptions('PostgresKeyStore', options.telemetry)
    this.#telemetry = options.telemetry
    traceStore(this, this.schema, options.telemetry)
  }

  async insertKey(record: KeyRecord, activeLimit?: number, audit?: AuditWrite): Promise<KeyRecord> {
    const values = insertValues(record)
    const owner = { type: record.ownerType, id: record.ownerId }
    if (!record.active || activeLimit === undefined) {
      // One statement: no row back means the owner is closed.
      const inserted = this.#audited(audit, false, one, (db) =>
        run(db, this.#sql.insert[owner.type], [...values, record.identityId ?? null]).then((rows) => {
          const inserted = firstRecord(rows)
          if (!inserted) throw ownerClosedError(owner)
          return inserted
        }),
      )
      return this.#written(inserted) as Promise<KeyRecord>
    }
    const inserted = this.#audited(audit, true, one, async (tx) => {
      await this.#lockOpenOwner(tx, owner)
      const inserted = firstRecord(
        await run(tx, this.#sql.insertWithinLimit[owner.type], [
          ...values,
          record.identityId ?? null,
          activeLimit,
        ]),
      )
      if (!inserted) throw limitExceededError(owner, activeLimit)
      return inserted
    })
    return this.#written(inserted) as Promise<KeyRecord>
  }

  // One statement for the batch, in one transaction with its audit rows; then, as for other
  // writes, each inserted record reaches the change feed.
  async insertImportedKeys(records: readonly KeyRecord[], audit?: AuditWrite): Promise<KeyRecord[]> {
    // The first of a repeated hash is the one written.
    const byHash = new Map<string, KeyRecord>()
    for (const record of records) if (!byHash.has(record.hash)) byHash.set(record.hash, record)
    const first = [...byHash.values()]
    if (first.length === 0) return []
    const rows = JSON.stringify(first.map(importedRow))
    const inserted = await this.#audited(audit, true, all, async (tx) =>
      (await run(tx, this.#sql.insertImported, [rows])).map(toRecord),
    )
    for (const record of inserted) this.#wrote(record)
    return inserted
  }

  /**
   * With read replicas: how many lookups by hash a replica answered, and how many the primary
   * did (recently changed, unknown or inactive keys, and fallbacks). `undefined` without replicas.
   *
   * @example
   * ```ts
   * const { replica, primary } = store.replicaStats ?? { replica: 0, primary: 0 }
   * metrics.gauge('keyward.lookups.replica_share', replica / Math.max(1, replica + primary))
   * ```
   */
  /**
   * The connections of the primary's pool (open, idle, waiting), for metrics; `undefined` when the
   * driver has no pool (one Client, PGlite).
   *
   * @example
   * ```ts
   * const { total, idle, waiting } = store.poolStats ?? { total: 0, idle: 0, waiting: 0 }
   * ```
   */
  get poolStats(): PoolStats | undefined {
    return this.#db.poolStats?.()
  }

  get replicaStats(): Readonly<ReplicaReadStats> | undefined {
    return this.#reads ? { ...this.#reads.stats } : undefined
  }

  // The hot path: one prepared statement, one promise on top of the driver's.
  findKeyByHash(hash: string): Promise<KeyRecord | null> {
    if (this.#reads) return this.#reads.findKeyByHash(hash)
    return run(this.#db, this.#sql.findByHash, [hash]).then(firstRecord)
  }

  async findKeyById(id: string): Promise<KeyRecord | null> {
    if (!UUID.test(id)) return null
    return run(this.#db, this.#sql.findById, [id]).then(firstRecord)
  }

  async listKeysByOwner(owner: KeyOwner): Promise<KeyRecord[]> {
    const rows = await run(this.#db, this.#sql.listByOwner[owner.type], [owner.id])
    return rows.map(toRecord)
  }

  // One indexed keyset query per page: one more row than asked tells whether a page follows.
  async listKeysPage(owner: KeyOwner, query: KeyPageQuery): Promise<KeyPage> {
    if (query.filter) return readFilteredPage(this.#db, this.#sql, owner, query, query.filter)
    return readPage(this.#db, this.#sql.listPage[owner.type], owner.id, query, toRecord)
  }

  async setKeyExpiry(id: string, expiresAt: Date | null, audit?: AuditWrite): Promise<KeyRecord | null> {
    if (!UUID.test(id)) return null
    // A revocation when it comes closer: acknowledged like a deactivation (`strictRevocation`).
    const write = (db: SqlQueryable) => run(db, this.#sql.setExpiry, [id, expiresAt]).then(firstRecord)
    return this.#revocation(this.#written(this.#audited(audit, false, one, write)))
  }

  async setKeyPolicies(
    id: string,
    policies: StoredKeyPolicies,
    audit?: AuditWrite,
  ): Promise<KeyRecord | null> {
    if (!UUID.test(id)) return null
    const { ipAllowlist, permissions, metadata, ratelimits, roleIds, creditsLowAt } = policies
    const params = [
      id,
      ipAllowlist !== undefined,
      ipAllowlist ?? null,
      permissions !== undefined,
      permissions ?? null,
      metadata !== undefined,
      jsonOrNull(metadata),
      ratelimits !== undefined,
      ratelimits?.length ? JSON.stringify(ratelimits) : null,
      roleIds !== undefined,
      roleIds?.length ? roleIds : null,
      creditsLowAt !== undefined,
      jsonOrNull(creditsLowAt),
    ]
    // Fewer permissions or a narrower allowlist is a revocation: acknowledged like a deactivation.
    const write = (db: SqlQueryable) => run(db, this.#sql.setPolicies, params).then(firstRecord)
    return this.#revocation(this.#written(this.#audited(audit, false, one, write)))
  }

  async listOwners(type: KeyKind): Promise<KeyOwnerSummary[]> {
    const rows = await run<OwnerRow>(this.#db, this.#sql.listOwners[type], [])
    return rows.map((row) => ({
      id: row.id,
      keys: row.keys,
      activeKeys: row.active_keys,
      firstCreatedAt: row.first_created_at,
      lastCreatedAt: row.last_created_at,
    }))
  }

  protected async deactivateKey(id: string, audit?: AuditWrite) {
    return this.#audited(audit, false, one, (db) => run(db, this.#sql.deactivate, [id]).then(firstRecord))
  }

  protected async activateKey(id: string, activeLimit: number | undefined, now: Date, audit?: AuditWrite) {
    // An activation takes the owner's row lock, as a creation does: a closed owner refuses it.
    return this.#audited(audit, true, one, async (tx) => {
      const [owner] = await run<{ type: KeyKind; id: string }>(tx, this.#sql.ownerOf, [id])
      if (!owner) return null
      await this.#lockOpenOwner(tx, owner)
      if (activeLimit === undefined) return firstRecord(await run(tx, this.#sql.activate, [id]))
      const activated = firstRecord(
        await run(tx, this.#sql.activateWithinLimit[owner.type], [id, owner.id, activeLimit, now]),
      )
      if (!activated) throw limitExceededError(owner, activeLimit)
      return activated
    })
  }

  protected async roll({ id, replacement, previousExpiresAt, now, audit }: KeyRoll) {
    const params = [...insertValues(replacement), id, previousExpiresAt, now]
    return this.#audited<RolledRecords | null>(
      audit,
      false,
      (rolled) => (rolled ? [rolled.previous, rolled.replacement] : []),
      async (db) => {
        const rows = await run<KeyRow & { is_replacement: boolean }>(
          db,
          this.#sql.roll[replacement.ownerType],
          params,
        )
        const previous = rows.find((row) => !row.is_replacement)
        const stored = rows.find((row) => row.is_replacement)
        return previous && stored ? { previous: toRecord(previous), replacement: toRecord(stored) } : null
      },
    )
  }

  // One statement: the refill due at `now` and the lease in one conditional write (see `leaseCredits`).
  async leaseCredits(id: string, want: number, need: number, now: Date): Promise<CreditLease | null> {
    const [lease] = await leaseMany(this.#db, this.#sql.leaseCredits, [{ id, want, need }], now)
    return lease ?? null
  }

  // The same statement for the batch: the ids as one array, unnested.
  leaseCreditsMany(requests: readonly CreditLeaseRequest[], now: Date): Promise<(CreditLease | null)[]> {
    return leaseMany(this.#db, this.#sql.leaseCredits, requests, now)
  }

  async returnCredits(id: string, amount: number): Promise<void> {
    if (!UUID.test(id) || amount <= 0) return
    await run(this.#db, this.#sql.returnCredits, [id, amount])
  }

  // Rare (an operator's change): a transaction with the row locked, the rule computed by core's
  // `refilled` and `changedCredits`, then one write, and its audit rows in the same transaction.
  // A refused change, or a failed append, writes nothing.
  protected async changeKeyCredits(id: string, change: CreditChange, now: Date, audit?: CreditAuditWrite) {
    return this.#db.transaction(async (tx) => {
      const current = firstRecord(await run(tx, this.#sql.lockCredits, [id]))
      if (!current) return null
      const { before, after, lowAt } = keyCreditChange(current, change, now)
      const record = firstRecord(
        await run(tx, this.#sql.writeCredits, [
          id,
          ...creditValues(after),
          change.op === 'set',
          jsonOrNull(lowAt),
        ]),
      )
      if (!record) return null
      if (audit) await appendAuditIn(tx, this.#auditSql, audit({ before, record }))
      return { before, record }
    })
  }

  async recordKeyUse(uses: readonly KeyUse[]): Promise<void> {
    if (uses.length === 0) return
    await run(this.#db, this.#sql.recordUse, [uses.map((use) => use.id), uses.map((use) => use.usedAt)])
  }

  // One statement for the whole batch: `WHERE hash = ANY($1)` on the unique hash index. Always
  // on the primary, never a replica: it serves leaked-key revocation, which must see every key.
  async findKeysByHashes(hashes: readonly string[]): Promise<KeyRecord[]> {
    if (hashes.length === 0) return []
    const rows = await run(this.#db, this.#sql.findByHashes, [[...new Set(hashes)]])
    return rows.map(toRecord)
  }

  protected async deactivateMany(uuids: readonly string[], reason: RevokedReason, audit?: AuditWrite) {
    return this.#audited(audit, false, all, async (db) =>
      (await run(db, this.#sql.deactivateMany, [uuids, reason])).map(toRecord),
    )
  }

  /**
   * Closes an owner and deactivates its active keys, in one transaction (or in yours, through
   * `tx.store`): it writes `closed_at` on the owner's row of `api_key_owners`, holding that row's
   * lock, then deactivates the keys with a snapshot taken after it. Creations, activations and
   * rolls take the same lock first and refuse a closed owner (404 `not_found`), so none that
   * races the call leaves an active key. Returns the keys it deactivated.
   *
   * @example
   * ```ts
   * const deactivated = await store.deactivateOwnerKeys({ type: 'project', id: projectId })
   * ```
   */
  async deactivateOwnerKeys(owner: KeyOwner, audit?: AuditWrite): Promise<KeyRecord[]> {
    const records = await this.#audited(audit, true, all, async (tx) => {
      await run(tx, this.#sql.closeOwner, [owner.type, owner.id])
      return (await run(tx, this.#sql.deactivateOwner[owner.type], [owner.id])).map(toRecord)
    })
    const committedAt = performance.now()
    for (const record of records) this.#wrote(record)
    // The owner changed even when it had no active key: this process hears it at once too.
    this.#wrote({ hash: ownerChangeHash(owner) })
    await this.#revoked(committedAt)
    return records
  }

  /**
   * Runs SQL of your own (on the tables your application keeps beside Keyward's) and
   * returns the rows. Parameters are `$1`, `$2`, ...
   *
   * @example
   * ```ts
   * const [project] = await store.query('SELECT developer_id FROM app.projects WHERE id = $1', [projectId])
   * ```
   */
  query<R extends SqlRow = SqlRow>(text: string, params: readonly unknown[] = []): Promise<R[]> {
    return this.#db.query<R>(text, params)
  }

  /**
   * Runs `fn` in one transaction: your SQL (`tx.query`) and key writes (`tx.store`) commit
   * together or not at all. Use it to create a record of your own and its first key at once.
   * Inside, use only `tx`: the store itself would run outside the transaction.
   *
   * @example
   * ```ts
   * const { key, record } = await store.transaction(async (tx) => {
   *   await tx.query('INSERT INTO app.projects (id, name, developer_id) VALUES ($1, $2, $3)', [id, name, developerId])
   *   return createKeyward({ store: tx.store }).issueProjectKey(id, { name: 'default' })
   * })
   * ```
   */
  async transaction<T>(fn: (tx: PostgresTransaction) => Promise<T>): Promise<T> {
    const written: (Changed | null)[] = []
    const revoking = { any: false }
    const result = await this.#db
      .transaction((tx) =>
        fn({
          query: (text, params = []) => tx.query(text, params),
          store: this.#bound(tx, written, revoking),
        }),
      )
      .finally(() => {
        for (const record of written) this.#publish(record)
      })
    // A revocation inside it is acknowledged with the transaction, a bound after its commit.
    if (revoking.any) await this.#revoked(performance.now())
    return result
  }

  /**
   * Closes the change feed, then what the driver opened itself (pools made from connection
   * strings, the replicas' included).
   */
  async close(): Promise<void> {
    this.#reads?.close()
    await (this.changes as { close?: () => Promise<void> } | undefined)?.close?.()
    await Promise.all([this.#db.close?.(), ...this.#replicas.map((replica) => replica.driver.close?.())])
  }

  // A write and its audit rows, in one transaction: the rows of what it wrote are appended before
  // it commits, and a failed append rolls the write back. Without `audit`, the write alone, in a
  // transaction only when it needs one (`inTransaction`).
  #audited<T>(
    audit: AuditWrite | undefined,
    inTransaction: boolean,
    written: (result: T) => readonly KeyRecord[],
    write: (db: SqlQueryable) => Promise<T>,
  ): Promise<T> {
    if (!audit && !inTransaction) return write(this.#db)
    return this.#db.transaction(async (tx) => {
      const result = await write(tx)
      if (audit) await appendAuditIn(tx, this.#auditSql, audit(written(result)))
      return result
    })
  }

  // Takes the owner's row lock for the rest of the transaction; throws when the owner is closed.
  async #lockOpenOwner(tx: SqlQueryable, owner: KeyOwner): Promise<void> {
    const [row] = await run<{ closed: boolean }>(tx, this.#sql.lockOwner, [owner.type, owner.id])
    if (row?.closed) throw ownerClosedError(owner)
  }

  #bound(tx: SqlQueryable, written: (Changed | null)[], revoking: { any: boolean }): PostgresKeyStore {
    const driver: SqlDriver = {
      query: (text, params, options) => tx.query(text, params, options),
      transaction: (fn) => fn(tx),
    }
    const bound = new PostgresKeyStore(driver, {
      schema: this.schema,
      strictRevocation: false,
      ...(this.#telemetry ? { telemetry: this.#telemetry } : {}),
    })
    bound.#wrote = (record) => written.push(record)
    bound.#revoked = () => {
      revoking.any = true
      return done
    }
    return bound
  }

  // A write is reported to this process's services at once, when it returns, besides the
  // trigger's notification that every process hears a little later; a revocation returns once
  // acknowledged (see `strictRevocation`).
  protected published(changes: readonly KeyChange[], revocation: boolean, committedAt: number) {
    for (const change of changes) this.#wrote(change)
    return revocation && changes.length > 0 ? this.#revoked(committedAt) : done
  }

  // A deactivation that found its key returns once acknowledged (see `strictRevocation`).
  async #revocation(write: Promise<KeyRecord | null>): Promise<KeyRecord | null> {
    const record = await write
    if (record) await this.#revoked(performance.now())
    return record
  }

  // A write is reported to this process's services at once, when it returns, besides the
  // trigger's notification that every process hears a little later.
  #written(write: Promise<KeyRecord | null>): Promise<KeyRecord | null> {
    return write.then((record) => {
      this.#wrote(record)
      return record
    })
  }

  // The lag guard hears it through the hub (it subscribes first), or directly from a feed that
  // takes no publications: a key changed here is read from the primary before the call returns.
  #publish(record: Changed | null): void {
    if (!record) return
    const { event, published } = publishChange(this.changes, record)
    if (!published) this.#reads?.hear(event)
  }
}

const done = Promise.resolve()

/** Strict revocation as the options ask for it, checked once, when the store is built. */
function strictOf(options: PostgresKeyStoreOptions) {
  const who = 'PostgresKeyStore'
  const fences = (options.changes as { fences?: FeedFences } | undefined)?.fences
  const asked = options.strictRevocation
  const settings = strictSettings(
    who,
    asked ?? (fences !== undefined || (options.readReplicas?.length ?? 0) > 0),
  )
  if (!settings) return undefined
  const confirmTimeoutMs = positiveOption(
    who,
    'strictRevocation.confirmTimeoutMs',
    settings.confirmTimeoutMs,
    1000,
  )
  if (!fences) {
    throw new TypeError(
      `${who}: strict revocation (option \`strictRevocation\`, on by default with \`readReplicas\`) needs ` +
        `\`changes\` from pgChangeFeed({ ..., freshnessBoundMs: ${settings.boundMs} }), or \`strictRevocation: false\`.`,
    )
  }
  const given = typeof asked === 'object' ? asked.boundMs : undefined
  if (given !== undefined && given !== fences.boundMs) {
    throw new TypeError(
      `${who}: option \`strictRevocation.boundMs\` (${given}) differs from the change feed's \`freshnessBoundMs\` (${fences.boundMs}).`,
    )
  }
  return { fences, confirmTimeoutMs }
}

/** Reports the feed's freshness through `onEvent`: `feed.stale` when its fences are late, `feed.fresh` when one is back. */
function reportFreshness(changes: KeyChangeFeed, onEvent: ((event: ReplicaEvent) => void) | undefined) {
  if (!onEvent) return
  let stale = false
  changes.subscribe((event) => {
    let report: ReplicaEvent | undefined
    if (event.type === 'disconnected' && event.error instanceof ChangeFeedLateError) {
      stale = true
      report = { type: 'feed.stale', boundMs: event.error.boundMs }
    } else if (event.type === 'connected' && stale) {
      stale = false
      report = { type: 'feed.fresh' }
    } else if (event.type === 'disconnected') stale = false
    try {
      if (report) onEvent(report)
    } catch {
      // The host's hook must not change what the feed does.
    }
  })
}
