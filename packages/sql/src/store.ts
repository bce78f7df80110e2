import {
  type AuditWrite,
  type CreditAuditWrite,
  type CreditChange,
  type CreditLease,
  type CreditLeaseRequest,
  type CreditState,
  countsAgainstLimit,
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
  keyPage,
  leasedCredits,
  limitExceededError,
  ownerChangeHash,
  ownerClosedError,
  type RevokedReason,
  type RoleStore,
  type RolledRecords,
  type StoredKeyPolicies,
} from '@keyward/core'
import { SqlAudit } from './audit.js'
import { appendChanges } from './change-log.js'
import {
  inChunks,
  placeholders,
  type SqlDatabase,
  type SqlDialect,
  type SqlExecutor,
  type SqlRow,
  uniqueWrite,
} from './dialect.js'
import { SqlIdentities } from './identities.js'
import {
  all,
  type CreditRow,
  creditsOf,
  creditValues,
  firstRecord,
  insertValues,
  jsonOrNull,
  KEY_COLUMNS,
  type KeyRow,
  keysById,
  one,
  recordOfValues,
  TEXT_VALUES,
  toRecord,
  UUID,
} from './key-rows.js'
import { SqlOutcomeUnknownError } from './outcome.js'
import { readPage } from './pages.js'
import { SqlRoles } from './roles.js'
import { DEFAULT_TABLE_PREFIX, type SqlTables, sqlTables } from './schema.js'
import { type KeyStatements, keyStatements } from './statements.js'
import { type KeyChange, type KeyRoll, keyCreditChange, publishChange, SqlStoreBase } from './store-base.js'
import { SqlUsage } from './usage.js'

/** Options of {@link SqlKeyStore}. */
export interface SqlKeyStoreOptions {
  /** What Keyward's table names start with. Default `keyward_` (`keyward_api_keys`, ...). */
  readonly tablePrefix?: string
  /**
   * The change feed of this store, for a verification cache. When it can take publications (a
   * `KeyChangeHub` of core), the store publishes each write it commits on it.
   */
  readonly changes?: KeyChangeFeed
  /**
   * Whether each write appends what it publishes to the change log (table `change_log`, schema
   * version 4) in its own transaction, for the change feeds of other processes (`mysqlChangeFeed`
   * of `@keyward/mysql`). Every process that writes to a database whose readers use such a feed
   * must keep it on. Default: on with MySQL's dialect, off with SQLite's (one process).
   */
  readonly changeLog?: boolean
  /**
   * Strict revocation: a write that may take a right away (a deactivation, a roll, a change of
   * expiry or policies, an owner's closing, a role's or an identity's change that reaches keys)
   * returns a bound B after its commit. A process whose change feed has a freshness bound of at
   * most B then no longer accepts the key from its verification cache. `true` takes B from
   * `changes` (`freshnessBoundMs` of `mysqlChangeFeed`); `{ boundMs }` sets it, for a process that
   * writes without a feed of its own. Needs the change log. Default: off.
   */
  readonly strictRevocation?: boolean | { readonly boundMs?: number }
}

/** An open transaction of {@link SqlKeyStore.transaction}. */
export interface SqlTransaction {
  /** Runs SQL of your own in this transaction (`?` parameters); returns its rows. */
  query<R extends SqlRow = SqlRow>(text: string, params?: readonly unknown[]): Promise<R[]>
  /** Runs a write of your own in this transaction; returns how many rows it changed. */
  run(text: string, params?: readonly unknown[]): Promise<{ readonly changes: number }>
  /** The key store, bound to this transaction: what it writes commits or rolls back with it. */
  readonly store: SqlKeyStore
}

// Hashes per statement of a lookup by many: well under every dialect's limit of parameters.

/**
 * The `KeyStore` of `@keyward/core` on a SQL database, written once for every dialect: records,
 * pages, the active-key limit, rolls, owners, credits leases, usage batches and the audit chain.
 * A dialect (`@keyward/sqlite`, `@keyward/mysql`) gives it a {@link SqlDatabase} and a
 * {@link SqlDialect}; you normally build it through their `create...KeyStore`.
 *
 * The active-key limit is atomic: a creation, re-activation or roll first makes sure the owner
 * has a row in `api_key_owners`, then, in one transaction, reads that row with a locking read
 * (`FOR UPDATE`; SQLite's `BEGIN IMMEDIATE` holds the whole database), counts and writes. Two
 * concurrent creations for one owner run one after the other. The same lock serializes an owner's
 * closing ({@link SqlKeyStore.deactivateOwnerKeys}) with them.
 *
 * @example
 * ```ts
 * import { createSqliteKeyStore } from '@keyward/sqlite'
 * const store = await createSqliteKeyStore({ path: './keyward.db' })
 * const keyward = createKeyward({ store })
 * ```
 */
export class SqlKeyStore extends SqlStoreBase<SqlExecutor, SqlDatabase> implements KeyStore {
  /** The names of Keyward's tables. */
  readonly tables: SqlTables
  /** The dialect the store speaks. */
  readonly dialect: SqlDialect
  /** The store's change feed, when it was given one. */
  readonly changes?: KeyChangeFeed
  /**
   * The identities of the project keys, in the table `identities` beside `api_keys`: each write
   * with its audit rows in one transaction, and a change of an identity on the change feed for
   * each of its keys.
   */
  readonly identities: IdentityStore
  /**
   * The roles of the project keys, in the table `roles` beside `api_keys` (schema version 3):
   * each write with its audit rows in one transaction, and a change of a role on the change feed
   * for each key that holds it.
   */
  readonly roles: RoleStore
  readonly #db: SqlDatabase
  readonly #sql: KeyStatements
  readonly #audit: SqlAudit
  readonly #changeLog: boolean
  readonly #boundMs: number | undefined
  // Told of every committed write that may take a right away, when its commit returned (at
  // `performance.now()`); returns when acknowledged. A store bound to a transaction notes it.
  #revoked: (committedAt: number) => Promise<void> = (committedAt) => this.#acknowledge(committedAt)
  // Told of every record this store writes, once committed (a store bound to a transaction collects them).
  #wrote: (change: { hash: string; id?: string }) => void = (change) => this.#publish(change)

  constructor(db: SqlDatabase, dialect: SqlDialect, options: SqlKeyStoreOptions = {}) {
    if (
      typeof db?.query !== 'function' ||
      typeof db.transaction !== 'function' ||
      typeof db.run !== 'function'
    ) {
      throw new TypeError('SqlKeyStore: the database must have `query`, `run` and `transaction` methods.')
    }
    const tables = sqlTables(options.tablePrefix ?? DEFAULT_TABLE_PREFIX, 'SqlKeyStore')
    const audit = new SqlAudit(dialect, tables)
    super(db, new SqlUsage(dialect, tables), audit)
    this.#db = db
    this.dialect = dialect
    this.tables = tables
    this.#sql = keyStatements(dialect, this.tables)
    this.#audit = audit
    if (options.changes) this.changes = options.changes
    this.#changeLog = options.changeLog ?? dialect.name === 'mysql'
    this.#boundMs = strictBound(options, this.#changeLog)
    // Its writes reach this store's feed as the store's own do (a bound store collects them).
    const context = {
      db,
      dialect,
      tables: this.tables,
      audit: this.#audit,
      wrote: (record: KeyChange) => this.#wrote(record),
      log: (tx: SqlExecutor, changes: readonly KeyChange[]) => this.#log(tx, changes),
      revoked: (committedAt: number) => this.#revoked(committedAt),
    }
    this.identities = new SqlIdentities(context)
    this.roles = new SqlRoles(context)
  }

  async insertKey(record: KeyRecord, activeLimit?: number, audit?: AuditWrite): Promise<KeyRecord> {
    const owner = { type: record.ownerType, id: record.ownerId }
    await this.#ensureOwner(owner)
    const inserted = await this.#audited(audit, one, async (tx) => {
      await this.#lockOpenOwner(tx, owner)
      if (record.active && activeLimit !== undefined) {
        const counted = await this.#countActive(tx, owner, record.createdAt)
        if (counted >= activeLimit) throw limitExceededError(owner, activeLimit)
      }
      await tx.run(this.#sql.insert, insertValues(record))
      return this.#find(tx, this.#sql.findById, record.id) as Promise<KeyRecord>
    })
    this.#wrote(inserted)
    return inserted
  }

  // Keys another system issued, a batch in one transaction: a hash stored already (or repeated in
  // the batch, or inserted meanwhile by another import: the unique index decides) and a closed
  // owner's keys are left out. No limit applies, and no owner row is made.
  async insertImportedKeys(records: readonly KeyRecord[], audit?: AuditWrite): Promise<KeyRecord[]> {
    const byHash = new Map<string, KeyRecord>()
    for (const record of records) if (!byHash.has(record.hash)) byHash.set(record.hash, record)
    const first = [...byHash.values()]
    if (first.length === 0) return []
    const { keys, owners } = this.tables
    const inserted = await this.#audited(audit, all, async (tx) => {
      const stored = await inChunks([...byHash.keys()], (chunk, list) =>
        tx.query<{ hash: string }>(`SELECT hash FROM ${keys} WHERE hash IN (${list})`, chunk),
      )
      const ownerIds = [...new Set(first.map((record) => record.ownerId))]
      const closed = await inChunks(ownerIds, (chunk, list) =>
        tx.query<{ owner_type: string; owner_id: string }>(
          `SELECT owner_type, owner_id FROM ${owners} WHERE closed_at IS NOT NULL AND owner_id IN (${list})`,
          chunk,
        ),
      )
      const skipped = new Set([
        ...stored.map((row) => row.hash),
        ...first
          .filter((record) =>
            closed.some((row) => row.owner_type === record.ownerType && row.owner_id === record.ownerId),
          )
          .map((record) => record.hash),
      ])
      const written: string[] = []
      for (const record of first) {
        if (skipped.has(record.hash)) continue
        if (!(await uniqueWrite(this.dialect, () => tx.run(this.#sql.insert, insertValues(record))))) continue
        if (!record.active && record.revokedReason) {
          await tx.run(`UPDATE ${keys} SET revoked_reason = ? WHERE id = ?`, [
            record.revokedReason,
            record.id,
          ])
        }
        written.push(record.id)
      }
      return keysById(tx, keys, written)
    })
    for (const record of inserted) this.#wrote(record)
    return inserted
  }

  // The hot path: one indexed statement, one promise on top of the database's.
  findKeyByHash(hash: string): Promise<KeyRecord | null> {
    return this.#db.firstValues
      ? this.#db.firstValues(this.#sql.findByHash, [hash]).then(recordOfValues)
      : this.#db.query<KeyRow>(this.#sql.findByHash, [hash]).then(firstRecord)
  }

  async findKeyById(id: string): Promise<KeyRecord | null> {
    if (!UUID.test(id)) return null
    return this.#find(this.#db, this.#sql.findById, id)
  }

  async listKeysByOwner(owner: KeyOwner): Promise<KeyRecord[]> {
    return (await this.#db.query<KeyRow>(this.#sql.listByOwner[owner.type], [owner.id])).map(toRecord)
  }

  // One keyset query per page: one more row than asked tells whether a page follows. A filtered
  // page applies core's `matchesKeyFilter` to the owner's keys (see the README's limits).
  async listKeysPage(owner: KeyOwner, query: KeyPageQuery): Promise<KeyPage> {
    if (query.filter) return keyPage(await this.listKeysByOwner(owner), query)
    return readPage(this.#db, this.#sql.page[owner.type], owner.id, query, toRecord)
  }

  /** @internal */
  protected async deactivateKey(id: string, audit?: AuditWrite) {
    return this.#audited(audit, one, async (tx) => {
      await tx.run(this.#sql.deactivate, ['revoked', id])
      return this.#find(tx, this.#sql.findById, id)
    })
  }

  /** @internal */
  protected async activateKey(id: string, activeLimit: number | undefined, now: Date, audit?: AuditWrite) {
    const current = await this.findKeyById(id)
    if (!current) return null
    const owner = { type: current.ownerType, id: current.ownerId }
    await this.#ensureOwner(owner)
    // An activation takes the owner's lock, as a creation does: a closed owner refuses it.
    return this.#audited(audit, one, async (tx) => {
      await this.#lockOpenOwner(tx, owner)
      const locked = await this.#find(tx, this.#sql.lockById, id)
      if (!locked || locked.active) return locked
      if (activeLimit !== undefined && (await this.#countActive(tx, owner, now)) >= activeLimit) {
        throw limitExceededError(owner, activeLimit)
      }
      await tx.run(this.#sql.activate, [id])
      return this.#find(tx, this.#sql.findById, id)
    })
  }

  // Only while the key is not in a roll's grace window: a rolled key comes back unchanged.
  async setKeyExpiry(id: string, expiresAt: Date | null, audit?: AuditWrite): Promise<KeyRecord | null> {
    if (!UUID.test(id)) return null
    return this.#update(audit, id, async (tx, locked) => {
      if (locked.replacedBy !== null) return false
      await tx.run(this.#sql.setExpiry, [expiresAt?.getTime() ?? null, id])
      return true
    })
  }

  async setKeyPolicies(
    id: string,
    policies: StoredKeyPolicies,
    audit?: AuditWrite,
  ): Promise<KeyRecord | null> {
    if (!UUID.test(id)) return null
    const { ipAllowlist, permissions, metadata, ratelimits, roleIds, creditsLowAt } = policies
    const given = (value: unknown) => (value === undefined ? 0 : 1)
    const params = [
      given(ipAllowlist),
      jsonOrNull(ipAllowlist),
      given(permissions),
      jsonOrNull(permissions),
      given(metadata),
      jsonOrNull(metadata),
      given(ratelimits),
      ratelimits?.length ? JSON.stringify(ratelimits) : null,
      given(roleIds),
      roleIds?.length ? JSON.stringify(roleIds) : null,
      given(creditsLowAt),
      jsonOrNull(creditsLowAt),
      id,
    ]
    return this.#update(audit, id, async (tx) => {
      await tx.run(this.#sql.setPolicies, params)
      return true
    })
  }

  async listOwners(type: KeyKind): Promise<KeyOwnerSummary[]> {
    type OwnerRow = {
      id: string
      key_count: number | string
      active_count: number | string
      first_created_at: number | string
      last_created_at: number | string
    }
    const rows = await this.#db.query<OwnerRow>(this.#sql.listOwners[type], [])
    return rows.map((row) => ({
      id: row.id,
      keys: Number(row.key_count),
      activeKeys: Number(row.active_count),
      firstCreatedAt: new Date(Number(row.first_created_at)),
      lastCreatedAt: new Date(Number(row.last_created_at)),
    }))
  }

  /** @internal */
  protected async roll({ id, replacement, previousExpiresAt, now, audit }: KeyRoll) {
    const owner = { type: replacement.ownerType, id: replacement.ownerId }
    await this.#ensureOwner(owner)
    return this.#audited<RolledRecords | null>(
      audit,
      (rolled) => (rolled ? [rolled.previous, rolled.replacement] : []),
      async (tx) => {
        const [row] = await tx.query<{ closed_at: unknown }>(this.#sql.lockOwner, [owner.type, owner.id])
        if (!row || row.closed_at !== null) return null
        const current = await this.#find(tx, this.#sql.lockById, id)
        if (!current || current.ownerType !== owner.type || current.ownerId !== owner.id) return null
        if (!countsAgainstLimit(current, now)) return null
        const identityId = replacement.identityId ?? current.identityId
        const stored = identityId ? { ...replacement, identityId } : replacement
        await tx.run(this.#sql.insert, insertValues(stored))
        const expiry = Math.min(
          current.expiresAt?.getTime() ?? Number.POSITIVE_INFINITY,
          previousExpiresAt.getTime(),
        )
        await tx.run(this.#sql.markReplaced, [replacement.id, expiry, id])
        const previous = (await this.#find(tx, this.#sql.findById, id)) as KeyRecord
        return {
          previous,
          replacement: (await this.#find(tx, this.#sql.findById, replacement.id)) as KeyRecord,
        }
      },
    )
  }

  // A batch of one (see `leaseCreditsMany`).
  async leaseCredits(id: string, want: number, need: number, now: Date): Promise<CreditLease | null> {
    const [lease] = await this.leaseCreditsMany([{ id, want, need }], now)
    return lease ?? null
  }

  // One transaction for the batch (on SQLite, one commit and its one fsync): the rows read with a
  // locking read, each lease computed by core's `leasedCredits` (the refill due at `now`, then
  // the take), and the balances that changed written with one statement.
  async leaseCreditsMany(
    requests: readonly CreditLeaseRequest[],
    now: Date,
  ): Promise<(CreditLease | null)[]> {
    const ids = [...new Set(requests.map((request) => request.id))].filter((id) => UUID.test(id))
    if (ids.length === 0) return requests.map(() => null)
    return this.#db.transaction(async (tx) => {
      const rows = await inChunks(ids, (chunk) => {
        const listed = padded(chunk)
        return tx.query<CreditRow>(this.#sql.lockCredits(placeholders(listed.length)), listed)
      })
      const credits = new Map(rows.map((row) => [row.id, creditsOf(row)]))
      const written = new Map<string, CreditState>()
      const leases = requests.map(({ id, want, need }) => {
        const state = credits.get(id)
        if (!state) return null
        const { lease, after } = leasedCredits(state, want, need, now)
        if (after) {
          credits.set(id, after)
          written.set(id, after)
        }
        return lease
      })
      await inChunks([...written], async (chunk) => {
        const rows = padded(chunk)
        const balances = rows.flatMap(([id, after]) => [id, after.remaining])
        const refills = rows.flatMap(([id, after]) => [id, after.refilledAt?.getTime() ?? null])
        const params = [...balances, ...refills, ...rows.map(([id]) => id)]
        await tx.run(this.#sql.writeLeases(rows.length), params)
        return []
      })
      return leases
    })
  }

  async returnCredits(id: string, amount: number): Promise<void> {
    if (!UUID.test(id) || amount <= 0) return
    await this.#db.run(this.#sql.returnCredits, [amount, id])
  }

  // A transaction with the row locked, the rule computed by core's `refilled` and
  // `changedCredits`, then one write and its audit rows. A refused change writes nothing.
  /** @internal */
  protected async changeKeyCredits(id: string, change: CreditChange, now: Date, audit?: CreditAuditWrite) {
    return this.#db.transaction(async (tx) => {
      const current = await this.#find(tx, this.#sql.lockById, id)
      if (!current) return null
      const { before, after, lowAt } = keyCreditChange(current, change, now)
      await tx.run(this.#sql.writeCredits, [...creditValues(after, TEXT_VALUES), jsonOrNull(lowAt), id])
      const record = (await this.#find(tx, this.#sql.findById, id)) as KeyRecord
      if (audit) await this.#audit.append(tx, audit({ before, record }))
      await this.#log(tx, [record])
      return { before, record }
    })
  }

  // One transaction for the batch: never moving `lastUsedAt` back, only for active keys.
  async recordKeyUse(uses: readonly KeyUse[]): Promise<void> {
    const known = uses.filter((use) => UUID.test(use.id))
    if (known.length === 0) return
    await this.#db.transaction(async (tx) => {
      for (const use of known) {
        const at = use.usedAt.getTime()
        await tx.run(this.#sql.recordUse, [at, use.id, at])
      }
    })
  }

  async findKeysByHashes(hashes: readonly string[]): Promise<KeyRecord[]> {
    const rows = await inChunks([...new Set(hashes)], (chunk, list) =>
      this.#db.query<KeyRow>(`SELECT ${KEY_COLUMNS} FROM ${this.tables.keys} WHERE hash IN (${list})`, chunk),
    )
    return rows.map(toRecord)
  }

  // The active ones among the ids, read with a locking read and deactivated in one transaction:
  // of two concurrent calls, the second finds them inactive.
  /** @internal */
  protected async deactivateMany(uuids: readonly string[], reason: RevokedReason, audit?: AuditWrite) {
    return this.#audited(audit, all, async (tx) => {
      return inChunks(uuids, async (chunk, list) => {
        const active = await tx.query<{ id: string }>(
          `SELECT id FROM ${this.tables.keys} WHERE id IN (${list}) AND active = 1${this.dialect.forUpdate}`,
          chunk,
        )
        return this.#deactivate(
          tx,
          active.map((row) => row.id),
          reason,
        )
      })
    })
  }

  /**
   * Closes an owner and deactivates its active keys, in one transaction holding the owner's lock:
   * creations, activations and rolls take the same lock first and refuse a closed owner
   * (404 `not_found`), so none that races the call leaves an active key.
   *
   * @example
   * ```ts
   * const deactivated = await store.deactivateOwnerKeys({ type: 'project', id: projectId })
   * ```
   */
  async deactivateOwnerKeys(owner: KeyOwner, audit?: AuditWrite): Promise<KeyRecord[]> {
    await this.#ensureOwner(owner)
    const closed = { hash: ownerChangeHash(owner) }
    const records = await this.#audited(
      audit,
      all,
      async (tx) => {
        await tx.query(this.#sql.lockOwner, [owner.type, owner.id])
        await tx.run(this.#sql.closeOwner, [Date.now(), owner.type, owner.id])
        const active = await tx.query<KeyRow>(this.#sql.activeOfOwner[owner.type], [owner.id])
        return this.#deactivate(
          tx,
          active.map((row) => row.id),
          'revoked',
        )
      },
      [closed],
    )
    for (const record of records) this.#wrote(record)
    // The owner changed even when it had no active key.
    this.#wrote(closed)
    await this.#revoked(performance.now())
    return records
  }

  /**
   * Runs SQL of your own and returns the rows. Parameters are `?`.
   *
   * @example
   * ```ts
   * const [project] = await store.query('SELECT developer_id FROM projects WHERE id = ?', [projectId])
   * ```
   */
  query<R extends SqlRow = SqlRow>(text: string, params: readonly unknown[] = []): Promise<R[]> {
    return this.#db.query<R>(text, params)
  }

  /**
   * Runs `fn` in one transaction: your SQL (`tx.query`, `tx.run`) and key writes (`tx.store`)
   * commit together or not at all. Inside, use only `tx`.
   *
   * @example
   * ```ts
   * const { key } = await store.transaction(async (tx) => {
   *   await tx.run('INSERT INTO projects (id, name) VALUES (?, ?)', [id, name])
   *   return createKeyward({ store: tx.store }).issueProjectKey(id, { name: 'default' })
   * })
   * ```
   */
  async transaction<T>(fn: (tx: SqlTransaction) => Promise<T>): Promise<T> {
    let written: KeyChange[] = []
    const revoking = { any: false }
    const result = await this.#db.transaction(async (tx) => {
      // Run again after a deadlock: only what the last run wrote is published.
      written = []
      revoking.any = false
      const bound = this.#bound(tx, written, revoking)
      const result = await fn({
        query: (text, params = []) => tx.query(text, params),
        run: (text, params = []) => tx.run(text, params),
        store: bound,
      })
      // What the bound store wrote goes to the change log last, just before the commit.
      await this.#log(tx, written)
      return result
    })
    for (const change of written) this.#publish(change)
    // A revocation inside it is acknowledged with the transaction, a bound after its commit.
    if (revoking.any) await this.#revoked(performance.now())
    return result
  }

  /** Closes the change feed, then the database. */
  async close(): Promise<void> {
    await (this.changes as { close?: () => Promise<void> } | undefined)?.close?.()
    await this.#db.close?.()
  }

  /** @internal */
  protected published(changes: readonly KeyChange[], revocation: boolean, committedAt: number) {
    for (const change of changes) this.#wrote(change)
    return revocation && changes.length > 0 ? this.#revoked(committedAt) : done
  }

  // A write and its audit rows, in one transaction: a failed append rolls the write back. What it
  // wrote (and `also`) goes to the change log last, just before the commit.
  #audited<T>(
    audit: AuditWrite | undefined,
    written: (result: T) => readonly KeyRecord[],
    write: (tx: SqlExecutor) => Promise<T>,
    also: readonly KeyChange[] = [],
  ): Promise<T> {
    return this.#db.transaction(async (tx) => {
      const result = await write(tx)
      if (audit) await this.#audit.append(tx, audit(written(result)))
      await this.#log(tx, [...written(result), ...also])
      return result
    })
  }

  // Appends to the change log in `tx`, when this store keeps one (a bound store leaves it to its
  // transaction, which appends all it wrote at the end).
  async #log(tx: SqlExecutor, changes: readonly KeyChange[]): Promise<void> {
    if (this.#changeLog && changes.length > 0) await appendChanges(tx, this.tables, changes)
  }

  // Strict revocation: returns B after the commit. Every process that trusts its cache polled
  // the change log less than B ago (minus a margin), after the commit: it heard the change.
  async #acknowledge(committedAt: number): Promise<void> {
    if (this.#boundMs === undefined) return
    const due = committedAt + this.#boundMs
    // A timer may wake a fraction of a millisecond early on this clock: wait out the rest.
    for (let wait = due - performance.now(); wait > 0; wait = due - performance.now()) {
      await new Promise((resolve) => setTimeout(resolve, Math.ceil(wait)))
    }
  }

  // A change of one key under its row's lock: `change` says whether it wrote.
  async #update(
    audit: AuditWrite | undefined,
    id: string,
    change: (tx: SqlExecutor, locked: KeyRecord) => Promise<boolean>,
  ): Promise<KeyRecord | null> {
    let changed = false
    const record = await this.#audited(audit, one, async (tx) => {
      const locked = await this.#find(tx, this.#sql.lockById, id)
      if (!locked) return null
      changed = await change(tx, locked)
      return changed ? this.#find(tx, this.#sql.findById, id) : locked
    })
    if (record) this.#wrote(record)
    // An expiry brought closer, fewer permissions: acknowledged like a deactivation.
    if (changed) await this.#revoked(performance.now())
    return record
  }

  async #deactivate(tx: SqlExecutor, ids: readonly string[], reason: RevokedReason): Promise<KeyRecord[]> {
    if (ids.length === 0) return []
    const list = placeholders(ids.length)
    await tx.run(`UPDATE ${this.tables.keys} SET active = 0, revoked_reason = ? WHERE id IN (${list})`, [
      reason,
      ...ids,
    ])
    return keysById(tx, this.tables.keys, ids)
  }

  async #find(db: SqlExecutor, statement: string, value: string): Promise<KeyRecord | null> {
    return firstRecord(await db.query<KeyRow>(statement, [value]))
  }

  async #countActive(tx: SqlExecutor, owner: KeyOwner, now: Date): Promise<number> {
    const [row] = await tx.query<{ n: number | string }>(this.#sql.countActive[owner.type], [
      owner.id,
      now.getTime(),
    ])
    return Number(row?.n ?? 0)
  }

  // The owner's row, made outside the transaction that locks it: on MySQL, an insert of the same
  // new row in two transactions deadlocks, a locking read of an existing one waits. Whether this
  // insert committed does not matter (it is made again, or found, by the next write), and the
  // write it comes before has not begun: its failure is a known one, the cause itself.
  async #ensureOwner(owner: KeyOwner): Promise<void> {
    await this.#db.run(this.#sql.ensureOwner, [owner.type, owner.id]).catch((error: unknown) => {
      throw error instanceof SqlOutcomeUnknownError && error.cause !== undefined ? error.cause : error
    })
  }

  // Takes the owner's lock for the rest of the transaction; throws when the owner is closed.
  async #lockOpenOwner(tx: SqlExecutor, owner: KeyOwner): Promise<void> {
    const [row] = await tx.query<{ closed_at: unknown }>(this.#sql.lockOwner, [owner.type, owner.id])
    if (row && row.closed_at !== null) throw ownerClosedError(owner)
  }

  #bound(tx: SqlExecutor, written: KeyChange[], revoking: { any: boolean }): SqlKeyStore {
    const db: SqlDatabase = {
      query: (text, params) => tx.query(text, params),
      run: (text, params) => tx.run(text, params),
      transaction: (fn) => fn(tx),
    }
    const bound = new SqlKeyStore(db, this.dialect, { tablePrefix: this.#prefix(), changeLog: false })
    bound.#wrote = (change) => written.push(change)
    bound.#revoked = () => {
      revoking.any = true
      return done
    }
    return bound
  }

  #prefix(): string {
    return this.tables.keys.slice(0, -'api_keys'.length)
  }

  #publish(change: KeyChange): void {
    publishChange(this.changes, change)
  }
}

const done = Promise.resolve()

// A batch's list grown to the next power of two by repeating its last item (an id listed twice,
// or a key's balance set twice to one value, changes nothing): a few statement texts for every
// batch size, so that a driver that prepares each text once per connection (MySQL caps prepared
// statements server-wide) prepares a few.
function padded<T>(items: readonly T[]): readonly T[] {
  const size = 2 ** Math.ceil(Math.log2(items.length))
  return [...items, ...Array.from({ length: size - items.length }, () => items.at(-1) as T)]
}

/** The bound B of option `strictRevocation`, checked once; `undefined` when it is off. */
function strictBound(options: SqlKeyStoreOptions, changeLog: boolean): number | undefined {
  const asked = options.strictRevocation
  if (asked === undefined || asked === false) return undefined
  if (asked !== true && (typeof asked !== 'object' || asked === null)) {
    throw new TypeError(
      `SqlKeyStore: option \`strictRevocation\` must be true, false or { boundMs }, got ${String(asked)}.`,
    )
  }
  if (!changeLog) {
    throw new TypeError('SqlKeyStore: strict revocation needs the change log (option `changeLog`).')
  }
  const feedBound = (options.changes as { boundMs?: unknown } | undefined)?.boundMs
  const given = asked === true ? undefined : asked.boundMs
  const boundMs = given ?? feedBound
  if (!(Number.isInteger(boundMs) && (boundMs as number) > 0)) {
    throw new TypeError(
      given === undefined
        ? 'SqlKeyStore: strict revocation needs a bound: `changes` from mysqlChangeFeed (its `freshnessBoundMs`), or `strictRevocation: { boundMs }`.'
        : `SqlKeyStore: option \`strictRevocation.boundMs\` must be a positive integer, got ${String(given)}.`,
    )
  }
  if (given !== undefined && feedBound !== undefined && given < (feedBound as number)) {
    throw new TypeError(
      `SqlKeyStore: option \`strictRevocation.boundMs\` (${given}) is below the change feed's \`freshnessBoundMs\` (${String(feedBound)}).`,
    )
  }
  return boundMs as number
}
