import type {
  AuditChainHead,
  AuditEntry,
  AuditPage,
  AuditQuery,
  AuditRecord,
  AuditWrite,
  CreditAuditWrite,
} from '../audit/types.js'
import type { CreditChange } from '../credits/types.js'
import type { IdentityStore } from '../identities/store.js'
import type { KeyKind } from '../key/format.js'
import type { StoredKeyPolicies } from '../policy/policies.js'
import type { RoleStore } from '../roles/store.js'
import type { WebhookStore } from '../webhooks/types.js'
import type {
  CreditChangeResult,
  CreditLease,
  CreditLeaseRequest,
  KeyOwner,
  KeyPagePosition,
  KeyPageQuery,
  KeyRecord,
  RevokedReason,
} from './record.js'
import type { UsageBucket, UsageCount, UsageQuery, UsageRetention } from './usage.js'

// The records are part of the store's contract, named from here with it.
export type {
  CreditChangeResult,
  CreditLease,
  CreditLeaseRequest,
  KeyOwner,
  KeyPagePosition,
  KeyPageQuery,
  KeyRecord,
  RevokedReason,
} from './record.js'

/** One page of an owner's keys, newest first. */
export interface KeyPage {
  readonly records: KeyRecord[]
  /** Where the next page starts (the last record's position), or `null` on the last page. */
  readonly next: KeyPagePosition | null
}

/** One use of a key, for {@link KeyStore.recordKeyUse}. */
export interface KeyUse {
  readonly id: string
  readonly usedAt: Date
}

/** What {@link KeyStore.rollKey} wrote: the key it replaced and the new key. */
export interface RolledRecords {
  /** The old key, with `replacedBy` and its new `expiresAt`. */
  readonly previous: KeyRecord
  /** The new key, as stored. */
  readonly replacement: KeyRecord
}

/**
 * One owner of keys as {@link KeyStore.listOwners} reports it: its id and counts of its keys.
 *
 * @example
 * ```ts
 * for (const developer of await keyward.listOwners('developer')) {
 *   if (developer.activeKeys === 0) logger.warn({ developer: developer.id }, 'cannot sign in')
 * }
 * ```
 */
export interface KeyOwnerSummary {
  /** The `developer_id` or `project_id`. */
  readonly id: string
  /** How many keys it has, active or not. */
  readonly keys: number
  /** How many of them are active. */
  readonly activeKeys: number
  /** When its first key was issued. */
  readonly firstCreatedAt: Date
  /** When its latest key was issued. */
  readonly lastCreatedAt: Date
}

/**
 * Where Keyward keeps key records, and nothing else. Methods are async and return `null`
 * for "not found". A store never sees a full key. Records come back with `expiresAt`,
 * `lastUsedAt` and `replacedBy` set (`null` when absent).
 *
 * The limit rule: when `activeLimit` is given, `insertKey` (of an active record) and
 * `setKeyActive(id, true)` must, atomically, refuse to make the owner's counted keys more
 * than `activeLimit`, by throwing the error of {@link limitExceededError}. Two concurrent
 * calls can never make `activeLimit + 1`. A key counts when it is active, unexpired and not
 * in a grace window (`countsAgainstLimit`); "now" is the new record's `createdAt` for
 * an insert and the `now` argument for an activation.
 *
 * Every store proves itself with the conformance suite `runStoreConformance` of the
 * testkit, which third-party stores can run too.
 *
 * @example
 * ```ts
 * const keyward = createKeyward({ store: new MemoryKeyStore() })
 * ```
 */
export interface KeyStore {
  /** Inserts a new record and returns it. Throws `limit_exceeded` when the limit refuses it. */
  insertKey(record: KeyRecord, activeLimit?: number, audit?: AuditWrite): Promise<KeyRecord>
  /**
   * Writes records of keys imported from another system, in one transaction: inserts those whose
   * hash is not stored yet and whose owner is not closed, and returns them as stored, in no given
   * order. A record whose hash is stored already (or that repeats the hash of an earlier one in `records`) is
   * left out, so that
   * importing the same records again changes nothing. No limit of active keys applies. With
   * `audit`, its rows of the inserted records are appended in the same transaction. Optional: the
   * service's `importKeys` needs it.
   *
   * @example
   * ```ts
   * const inserted = await store.insertImportedKeys?.(records)
   * ```
   */
  insertImportedKeys?(records: readonly KeyRecord[], audit?: AuditWrite): Promise<KeyRecord[]>
  /** The record with this hash, or `null`. Must be O(1) or indexed: it is the hot path. */
  findKeyByHash(hash: string): Promise<KeyRecord | null>
  /** The record with this id, or `null`. */
  findKeyById(id: string): Promise<KeyRecord | null>
  /** The owner's records, active or not, oldest first. */
  listKeysByOwner(owner: KeyOwner): Promise<KeyRecord[]>
  /**
   * One page of the owner's records, active or not, newest first (`createdAt` descending, then
   * `id` descending, so that records created in the same millisecond keep one order): at most
   * `limit` records after `after`, and the position of the last one when more follow (`next`,
   * else `null`). Walking the pages gives every record once, even while keys are created
   * (a key created meanwhile is newer than the first page: it is not in a later one).
   * Optional: without it, the service sorts and slices `listKeysByOwner`; a store that holds
   * many keys per owner answers it with an index (PostgreSQL: a keyset query).
   *
   * @example
   * ```ts
   * const first = await store.listKeysPage?.(owner, { limit: 100 })
   * const second = first?.next && (await store.listKeysPage?.(owner, { limit: 100, after: first.next }))
   * ```
   */
  listKeysPage?(owner: KeyOwner, query: KeyPageQuery): Promise<KeyPage>
  /**
   * Sets a record active or not and returns it, or `null` if there is no such record.
   * Activating respects `activeLimit` like `insertKey`; setting the current state is a no-op.
   * A store that keeps `revokedReason` sets it to `'revoked'` on deactivation and clears it on
   * activation.
   */
  setKeyActive(
    id: string,
    active: boolean,
    activeLimit?: number,
    now?: Date,
    audit?: AuditWrite,
  ): Promise<KeyRecord | null>
  /**
   * Sets a key's expiry (`null`: never) and returns the record, or `null` if there is no such
   * record. Atomically, only while the key is not in a roll's grace window (`replacedBy` set):
   * a rolled key comes back unchanged, so that a roll racing this call keeps its grace expiry.
   * A change the change feed reports, like a deactivation: an earlier expiry is a revocation.
   * Optional: the service's `setKeyExpiry` (`PATCH` of a key) needs it.
   *
   * @example
   * ```ts
   * await store.setKeyExpiry?.(keyId, new Date('2027-01-31T00:00:00Z'))
   * ```
   */
  setKeyExpiry?(id: string, expiresAt: Date | null, audit?: AuditWrite): Promise<KeyRecord | null>
  /**
   * Sets a key's access policies and returns the record, or `null` if there is no such record.
   * A field that is `undefined` stays as it is; `null` clears it. A change the change feed
   * reports, like a deactivation: a narrower allowlist or fewer permissions is a revocation.
   * Optional: the service's `setKeyPolicies` (`PATCH` of a key with policies) needs it.
   *
   * @example
   * ```ts
   * await store.setKeyPolicies?.(keyId, { permissions: ['reports:read'], ipAllowlist: null })
   * ```
   */
  setKeyPolicies?(id: string, policies: StoredKeyPolicies, audit?: AuditWrite): Promise<KeyRecord | null>
  /**
   * Leases credits of a key to this process, atomically (one conditional write): first applies
   * the refill due at `now` (`refilled`: once per period, whichever process asks first), then, if
   * the balance holds at least `need`, takes `min(want, balance)` from it; else takes nothing.
   * A key without a limit grants `want` and writes nothing. `null` if there is no such key.
   * Optional, with {@link KeyStore.returnCredits} and {@link KeyStore.changeCredits}: keys with
   * credits need all three.
   *
   * @example
   * ```ts
   * const lease = await store.leaseCredits?.(keyId, 100, 3, new Date()) // { granted: 100, remaining: 900, refill: null }
   * ```
   */
  leaseCredits?(id: string, want: number, need: number, now: Date): Promise<CreditLease | null>
  /**
   * Leases credits of several keys at once, each as {@link KeyStore.leaseCredits} would, in one
   * transaction (one commit for the batch): answers a lease, or `null` for an unknown id, per
   * request and in its order. The ids of one batch are distinct. Optional: without it, a process
   * leases each key's credits with its own call; with it, the leases that fall due in the same
   * turn of the event loop go to the store together.
   *
   * @example
   * ```ts
   * const [a, b] = await store.leaseCreditsMany?.([{ id: keyA, want: 100, need: 1 }, { id: keyB, want: 50, need: 3 }], new Date())
   * ```
   */
  leaseCreditsMany?(requests: readonly CreditLeaseRequest[], now: Date): Promise<(CreditLease | null)[]>
  /**
   * Gives back credits a process leased and did not spend (at its clean stop), atomically:
   * the balance grows by `amount`. Nothing for a key without a limit or an unknown id.
   *
   * @example
   * ```ts
   * await store.returnCredits?.(keyId, 42)
   * ```
   */
  returnCredits?(id: string, amount: number): Promise<void>
  /**
   * Changes a key's credits, atomically, after the refill due at `now` (`changedCredits` is the
   * rule): `set`, `add`, or `subtract`, which throws `creditsTooFewError` (422) when the balance
   * holds less, and changes nothing. `add` and `subtract` on a key without a limit throw
   * `creditsUnlimitedError`. A change from unlimited to limited, or back, is a change the feed
   * reports (verifications must start or stop spending); a change of the balance is not.
   * `null` if there is no such key. With `audit` (an auditing store), its rows are appended in
   * the same transaction: a failed append changes nothing.
   *
   * @example
   * ```ts
   * const { before, record } = (await store.changeCredits?.(keyId, { op: 'add', amount: 500 }, new Date()))!
   * ```
   */
  changeCredits?(
    id: string,
    change: CreditChange,
    now: Date,
    audit?: CreditAuditWrite,
  ): Promise<CreditChangeResult | null>
  /**
   * Rolls a key, atomically: only if the record `id` still counts against the limit at `now`
   * (`countsAgainstLimit`) and has the owner of `replacement`, inserts `replacement`
   * and gives the old record `replacedBy = replacement.id` and `expiresAt` = the earlier of its
   * own expiry and `previousExpiresAt`. Returns both, or `null` when the key is not (or no
   * longer) rollable: of 50 concurrent rolls of one key, exactly one succeeds.
   */
  rollKey(
    id: string,
    replacement: KeyRecord,
    previousExpiresAt: Date,
    now: Date,
    audit?: AuditWrite,
  ): Promise<RolledRecords | null>
  /**
   * Records uses of keys (`lastUsedAt`), in one batch: only for active keys, and never moving
   * `lastUsedAt` back in time. Ids that name no record are ignored.
   */
  recordKeyUse(uses: readonly KeyUse[]): Promise<void>
  /**
   * The records whose hash is among `hashes`, each once, in no given order; unknown hashes
   * are left out. One round trip for the whole batch (a leaked-key alert may name thousands).
   */
  findKeysByHashes(hashes: readonly string[]): Promise<KeyRecord[]>
  /**
   * Deactivates, atomically, those of the records with these ids that are active, and returns
   * them as they are now. Records already inactive, and unknown ids, are left out: of two
   * concurrent calls with the same ids, each record comes back from one of them only.
   * `reason` (default `'revoked'`) is kept as their `revokedReason` by a store that keeps it.
   */
  deactivateKeys(ids: readonly string[], reason?: RevokedReason, audit?: AuditWrite): Promise<KeyRecord[]>
  /**
   * Closes an owner and deactivates its active keys, atomically, and returns the records it
   * deactivated (as they are now); a second call returns none. Optional: the service's
   * `deactivateOwnerKeys` (deleting a project or a developer) needs it.
   *
   * The owner stays closed: from then on `insertKey`, `setKeyActive(id, true)` for its keys
   * throw `ownerClosedError(owner)` (404 `not_found`) and `rollKey` of its keys returns `null`.
   * It is serialized with those writes, so that a key created or re-activated concurrently
   * with the closing is either refused or deactivated by it, never left active.
   *
   * @example
   * ```ts
   * const deactivated = await store.deactivateOwnerKeys?.({ type: 'project', id: projectId })
   * ```
   */
  deactivateOwnerKeys?(owner: KeyOwner, audit?: AuditWrite): Promise<KeyRecord[]>
  /**
   * Every owner of this type that has keys, with counts, oldest first (by first key, then id).
   * Optional: operators' listings (`keyward developers list`) need it; the service does not.
   */
  listOwners?(type: KeyKind): Promise<KeyOwnerSummary[]>
  /**
   * Adds usage counts (per minute, key or route and address, and outcome) to what is stored, in
   * one statement for the whole batch: a count for a minute already stored adds to it, so that
   * many processes may write the same minute. Optional: without it, the service counts no usage.
   *
   * @example
   * ```ts
   * await store.recordUsage?.([{ minute, key: { id, ownerType: 'project', ownerId }, outcome: 'accepted', count: 3, route: '', address: '' }])
   * ```
   */
  recordUsage?(counts: readonly UsageCount[]): Promise<void>
  /**
   * The usage of an owner's keys (or of one of them) from `from` to `to`, summed per bucket of
   * `granularity`, key and outcome, oldest first. Counts not yet rolled into coarser buckets are
   * summed into them: an hour holds its minutes. Optional: the usage endpoints need it.
   *
   * @example
   * ```ts
   * const rows = await store.readUsage?.({ owner: { type: 'project', id: projectId }, granularity: 'hour', from, to })
   * ```
   */
  readUsage?(query: UsageQuery): Promise<UsageBucket[]>
  /**
   * One bounded step of compaction at `now`: rolls at most `limit` minute counts older than the
   * minute retention into hours, as many hour counts older than the hour retention into days, and
   * deletes as many day counts older than the day retention; returns how many rows it touched (0
   * when nothing is left to do). Totals never change by rolling. Optional.
   *
   * @example
   * ```ts
   * while ((await store.compactUsage?.(DEFAULT_USAGE_RETENTION, new Date(), 1000)) ?? 0 > 0) {}
   * ```
   */
  compactUsage?(retention: UsageRetention, now: Date, limit: number): Promise<number>
  /**
   * Appends rows to the audit log, chained after its last row (`chainAuditEntries`), and returns
   * them. Appends are serialized, so that the chain never forks. A store that has it is an
   * auditing store: every write method above then takes an `audit` argument (`AuditWrite`)
   * and appends its rows in the same transaction as the write, so that neither commits without
   * the other. The log is append-only: rows are never updated or deleted. Optional: without it,
   * nothing is audited.
   *
   * @example
   * ```ts
   * await tx.store.appendAudit?.([entry]) // in the transaction of the change it records
   * ```
   */
  appendAudit?(entries: readonly AuditEntry[]): Promise<AuditRecord[]>
  /** One developer's audit rows (of one project with `projectId`), newest first. With `appendAudit`. */
  listAudit?(query: AuditQuery): Promise<AuditPage>
  /** Up to `limit` audit rows after the row `afterSeq`, oldest first: what `verifyAuditChain` reads. With `appendAudit`. */
  readAuditLog?(afterSeq: number, limit: number): Promise<AuditRecord[]>
  /** The audit chain's head (its last row and where it starts). With `appendAudit`. */
  auditChainHead?(): Promise<AuditChainHead>
  /**
   * The store's change feed, when it has one: how a verification cache in this process hears
   * of writes made by other processes (or other services in this one). See `KeyChangeFeed`.
   */
  readonly changes?: KeyChangeFeed
  /**
   * The store's identities, when it keeps them: customers of the host whose API keys share rate
   * limits and a credit pool (see `IdentityStore`). A key's `identityId` names one.
   */
  readonly identities?: IdentityStore
  /**
   * The store's roles, when it keeps them: named sets of permissions given to API keys (see
   * `RoleStore`). A key's `roleIds` names them.
   */
  readonly roles?: RoleStore
  /**
   * The store's webhooks, when it keeps them: endpoints, the outbox and the delivery log (see
   * `WebhookStore`). Its outbox is written by `appendAudit`, in the transaction of the write.
   */
  readonly webhooks?: WebhookStore
}

/**
 * What a {@link KeyChangeFeed} tells its listeners.
 *
 * - `changed`: a key record was inserted, updated or deleted, by any writer. The event names
 *   the record by its `hash` (and `id` when the store knows it), never by a key. It is sent
 *   after the write is committed, so a lookup made after it sees the write. An owner closed by
 *   `deactivateOwnerKeys` is a change too, even when it had no active key: its `hash` is then
 *   `ownerChangeHash` of the owner, which names no key.
 * - `connected`: the feed now hears every change. What was cached before must be dropped:
 *   changes made while it was not connected were not heard.
 * - `disconnected`: the feed may miss changes from now on, until the next `connected`.
 *
 * @example
 * ```ts
 * const stop = store.changes?.subscribe((event) => {
 *   if (event.type === 'changed') cache.delete(event.hash)
 *   else cache.clear()
 * })
 * ```
 */
export type KeyChangeEvent =
  | {
      readonly type: 'changed'
      /** SHA-256 (hex) of the key whose record changed, or `ownerChangeHash` of a closed owner. */
      readonly hash: string
      /** The id of the record, when the store knows it. */
      readonly id?: string
      /**
       * Where the change sits in the database's log, when the store has one. On PostgreSQL: the
       * WAL insert position (`pg_current_wal_insert_lsn()`, text such as `0/16B3748`) taken by the
       * writing transaction when it made the change. The commit record comes after it, so a
       * standby whose replay position is past `position` may still lack the commit: a reader
       * that must see the commit compares with a position read after the event arrived.
       * Stores without a log (memory, or a feed in process) leave it out.
       */
      readonly position?: string
    }
  | { readonly type: 'connected' }
  | {
      readonly type: 'disconnected'
      /** Why, when known (the connection's error). */
      readonly error?: unknown
    }

/**
 * A store's feed of writes to key records, for caches that must forget what changed.
 *
 * The contract: while `connected` is true, every committed write to a key record, by any
 * writer, is reported as a `changed` event (usually within milliseconds). While it is false,
 * changes may be missed, so a cache must hold nothing and be bypassed. A feed reconnects by
 * itself and reports `connected` again; nothing heard before that may be trusted.
 *
 * The PostgreSQL store sends a notification from a trigger, in the writing transaction, and
 * listens on a session connection of its own; the memory store reports its own writes.
 *
 * @example
 * ```ts
 * const feed: KeyChangeFeed = store.changes!
 * const unsubscribe = feed.subscribe((event) => {
 *   if (event.type === 'changed') logger.debug({ changed: event.hash.slice(0, 8), position: event.position })
 * })
 * feed.connected // true once the feed hears changes
 * unsubscribe()
 * ```
 */
export interface KeyChangeFeed {
  /** Whether every change is heard now. */
  readonly connected: boolean
  /** Calls `listener` for every event from now on; returns the function that stops it. */
  subscribe(listener: (event: KeyChangeEvent) => void): () => void
}
