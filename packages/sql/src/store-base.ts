// What a SQL key store does the same way on every database, around the writes its statements
// make: the checks of what a call names (an id that is no UUID names no key), the publication of
// what a write changed once it committed, and the usage and audit calls on the store's database.
import {
  type AuditChainHead,
  type AuditEntry,
  type AuditPage,
  type AuditQuery,
  type AuditRecord,
  type AuditWrite,
  type CreditAuditWrite,
  type CreditChange,
  type CreditChangeResult,
  changedCredits,
  creditState,
  type KeyChangeFeed,
  type KeyChangeHub,
  type KeyRecord,
  keptCreditsLowAt,
  type RevokedReason,
  type RolledRecords,
  refilled,
  type UsageBucket,
  type UsageCount,
  type UsageQuery,
  type UsageRetention,
} from '@keyward/core'
import { UUID } from './key-rows.js'

/** @internal What a write changed, as a change feed names it: a key record, or a closed owner. */
export type KeyChange = { readonly hash: string; readonly id?: string }

/**
 * @internal Publishes a committed change on `changes` when it takes publications (a
 * `KeyChangeHub` of core). Returns the event, and whether it was published.
 */
export function publishChange(changes: KeyChangeFeed | undefined, change: KeyChange) {
  const event = change.id
    ? ({ type: 'changed', hash: change.hash, id: change.id } as const)
    : ({ type: 'changed', hash: change.hash } as const)
  const hub = changes as Partial<Pick<KeyChangeHub, 'publish'>> | undefined
  hub?.publish?.(event)
  return { event, published: hub?.publish !== undefined }
}

/**
 * @internal A change of a key's credits by core's rules: its balance `before` (the refill due at
 * `now` applied) and `after`, and the low-credits threshold the key keeps (`lowAt`).
 */
export function keyCreditChange(current: KeyRecord, change: CreditChange, now: Date) {
  const before = refilled(creditState(current), now)
  const after = changedCredits(before, change, now)
  return { before, after, lowAt: keptCreditsLowAt(current.creditsLowAt, after) }
}

/** @internal A database of a store: statements on `Tx`, and transactions that give one. */
export interface Transactional<Tx> {
  transaction<T>(fn: (tx: Tx) => Promise<T>): Promise<T>
}

/** @internal The usage counts of a store, on one database or transaction. */
export interface UsageLog<Tx> {
  record(db: Tx, counts: readonly UsageCount[]): Promise<void>
  read(db: Tx, query: UsageQuery): Promise<UsageBucket[]>
  compact(db: Tx, retention: UsageRetention, now: Date, limit: number): Promise<number>
}

/** @internal The audit log of a store, on one database or transaction. */
export interface AuditLog<Tx> {
  /** Appends rows in the caller's transaction, after the chain's head, which it locks. */
  append(tx: Tx, entries: readonly AuditEntry[]): Promise<AuditRecord[]>
  list(db: Tx, query: AuditQuery): Promise<AuditPage>
  read(db: Tx, afterSeq: number, limit: number): Promise<AuditRecord[]>
  head(db: Tx): Promise<AuditChainHead>
}

/** @internal A roll of a key, as {@link SqlStoreBase.rollKey} hands it to a store. */
export interface KeyRoll {
  readonly id: string
  readonly replacement: KeyRecord
  readonly previousExpiresAt: Date
  readonly now: Date
  readonly audit: AuditWrite | undefined
}

/**
 * @internal The part of a SQL key store that is the same on every database. A store
 * (`SqlKeyStore`, `PostgresKeyStore`) supplies the writes, and hears through
 * {@link SqlStoreBase.published} what each one changed, once it committed.
 */
export abstract class SqlStoreBase<Tx, Db extends Tx & Transactional<Tx> = Tx & Transactional<Tx>> {
  readonly #db: Db
  readonly #usage: UsageLog<Db>
  readonly #audit: AuditLog<Tx>

  constructor(db: Db, usage: UsageLog<Db>, audit: AuditLog<Tx>) {
    this.#db = db
    this.#usage = usage
    this.#audit = audit
  }

  async setKeyActive(
    id: string,
    active: boolean,
    activeLimit?: number,
    now: Date = new Date(),
    audit?: AuditWrite,
  ): Promise<KeyRecord | null> {
    if (!UUID.test(id)) return null
    // A deactivation is a revocation; an activation takes the owner's lock, as a creation does.
    if (!active) return this.#published(await this.deactivateKey(id, audit), true)
    return this.#published(await this.activateKey(id, activeLimit, now, audit), false)
  }

  // The old key's expiry changes: it stops working at the end of its grace (a revocation).
  async rollKey(
    id: string,
    replacement: KeyRecord,
    previousExpiresAt: Date,
    now: Date,
    audit?: AuditWrite,
  ): Promise<RolledRecords | null> {
    if (!UUID.test(id)) return null
    const rolled = await this.roll({ id, replacement, previousExpiresAt, now, audit })
    if (rolled) await this.published([rolled.previous, rolled.replacement], true, performance.now())
    return rolled
  }

  async changeCredits(
    id: string,
    change: CreditChange,
    now: Date,
    audit?: CreditAuditWrite,
  ): Promise<CreditChangeResult | null> {
    if (!UUID.test(id)) return null
    const result = await this.changeKeyCredits(id, change, now, audit)
    if (result) await this.published([result.record], false, performance.now())
    return result
  }

  async deactivateKeys(
    ids: readonly string[],
    reason: RevokedReason = 'revoked',
    audit?: AuditWrite,
  ): Promise<KeyRecord[]> {
    const uuids = [...new Set(ids)].filter((id) => UUID.test(id))
    if (uuids.length === 0) return []
    const records = await this.deactivateMany(uuids, reason, audit)
    await this.published(records, true, performance.now())
    return records
  }

  /** Adds usage counts, the batch at once. */
  async recordUsage(counts: readonly UsageCount[]): Promise<void> {
    await this.#usage.record(this.#db, counts)
  }

  /** An owner's usage by bucket. */
  async readUsage(query: UsageQuery): Promise<UsageBucket[]> {
    return this.#usage.read(this.#db, query)
  }

  /** One bounded step of compaction: at most `limit` rows a statement, no long lock. */
  async compactUsage(retention: UsageRetention, now: Date, limit: number): Promise<number> {
    return this.#usage.compact(this.#db, retention, now, limit)
  }

  /**
   * Appends rows to the audit log, in one transaction (or in yours, through `tx.store`), after
   * the chain's head, which it locks until the transaction ends: appends run one after the
   * other and the chain never forks.
   *
   * @example
   * ```ts
   * await store.transaction(async (tx) => {
   *   await tx.store.appendAudit([entry])
   * })
   * ```
   */
  async appendAudit(entries: readonly AuditEntry[]): Promise<AuditRecord[]> {
    if (entries.length === 0) return []
    return this.#db.transaction((tx) => this.#audit.append(tx, entries))
  }

  async listAudit(query: AuditQuery): Promise<AuditPage> {
    return this.#audit.list(this.#db, query)
  }

  async readAuditLog(afterSeq: number, limit: number): Promise<AuditRecord[]> {
    return this.#audit.read(this.#db, afterSeq, limit)
  }

  async auditChainHead(): Promise<AuditChainHead> {
    return this.#audit.head(this.#db)
  }

  /** Deactivates one key (an id that is a UUID), with its audit rows. */
  protected abstract deactivateKey(id: string, audit: AuditWrite | undefined): Promise<KeyRecord | null>

  /** Activates one key within the owner's limit, with its audit rows. */
  protected abstract activateKey(
    id: string,
    activeLimit: number | undefined,
    now: Date,
    audit: AuditWrite | undefined,
  ): Promise<KeyRecord | null>

  /** Rolls a key: the replacement inserted and the old key's expiry brought closer, at once. */
  protected abstract roll(roll: KeyRoll): Promise<RolledRecords | null>

  /** Changes a key's credits by core's rules, under its row's lock, with its audit rows. */
  protected abstract changeKeyCredits(
    id: string,
    change: CreditChange,
    now: Date,
    audit: CreditAuditWrite | undefined,
  ): Promise<CreditChangeResult | null>

  /** Deactivates the active keys among `ids` (unique UUIDs), with their audit rows. */
  protected abstract deactivateMany(
    ids: readonly string[],
    reason: RevokedReason,
    audit: AuditWrite | undefined,
  ): Promise<KeyRecord[]>

  /**
   * Told of what a committed write changed; `revocation` when it may have taken a right away,
   * committed at `committedAt` (`performance.now()`). Returns when the store acknowledges it.
   */
  protected abstract published(
    changes: readonly KeyChange[],
    revocation: boolean,
    committedAt: number,
  ): Promise<void>

  async #published(record: KeyRecord | null, revocation: boolean): Promise<KeyRecord | null> {
    if (record) await this.published([record], revocation, performance.now())
    return record
  }
}
