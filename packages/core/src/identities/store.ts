import type { AuditEntry } from '../audit/types.js'
import type { CreditChange, CreditState } from '../credits/types.js'
import type { CreditLease, KeyPagePosition, KeyPageQuery, KeyRecord } from '../store/record.js'
import type { IdentityChange, IdentityRecord } from './model.js'

/**
 * Which of a project's identities a page holds, newest first: every one, or, with `q`, those
 * whose `externalId` contains it in any case ({@link matchesIdentitySearch}).
 */
export interface IdentityPageQuery extends Omit<KeyPageQuery, 'filter'> {
  readonly q?: string
}

/**
 * Whether an identity is one that a search `q` keeps: its `externalId` contains `q`, in any case.
 * The rule every store applies (in SQL, or here in memory).
 *
 * @example
 * ```ts
 * matchesIdentitySearch({ externalId: 'customer_Acme' }, 'acme') // true
 * ```
 */
export const matchesIdentitySearch = (identity: Pick<IdentityRecord, 'externalId'>, q: string): boolean =>
  identity.externalId.toLowerCase().includes(q.toLowerCase())

/** A page of a project's identities, newest first, and where the next one starts. */
export interface IdentityPage {
  readonly records: IdentityRecord[]
  readonly next: KeyPagePosition | null
}

/**
 * The audit rows of an identity's write: the store calls it with the identity as written (or as
 * it was, for a deletion) and the keys the write changed, and appends the rows in the same
 * transaction. A throw rolls the write back.
 */
export type IdentityAuditWrite = (
  identity: IdentityRecord,
  keys: readonly KeyRecord[],
  before: IdentityRecord | null,
) => readonly AuditEntry[]

/** What `deleteIdentity` did: deleted it (revoking its keys when asked), or found keys and kept it. */
export type IdentityDeletion =
  | { readonly deleted: IdentityRecord; readonly revoked: readonly KeyRecord[] }
  | { readonly kept: IdentityRecord; readonly keys: number }

/** What {@link IdentityStore.changeIdentityCredits} did: the pool before the change (after a due refill) and the identity after. */
export interface IdentityCreditChangeResult {
  readonly before: CreditState
  readonly identity: IdentityRecord
}

/**
 * Where identities live (`store.identities` of a key store that keeps them). Each write is
 * one transaction with its audit rows, and a write that changes what a verification answers of a
 * key (its identity's limits, pool or metadata) reaches the change feed for every key of the
 * identity, as a write of the key itself would.
 */
export interface IdentityStore {
  /** Inserts a new identity; `null` when the project has one with its `externalId` already. */
  insertIdentity(record: IdentityRecord, audit?: IdentityAuditWrite): Promise<IdentityRecord | null>
  /**
   * The identity of `externalId` in the project, inserted from `record` when there is none:
   * two concurrent calls give the same identity. `created` says which.
   */
  ensureIdentity(
    record: IdentityRecord,
    audit?: IdentityAuditWrite,
  ): Promise<{ readonly identity: IdentityRecord; readonly created: boolean }>
  findIdentity(id: string): Promise<IdentityRecord | null>
  findIdentityByExternalId(projectId: string, externalId: string): Promise<IdentityRecord | null>
  /**
   * A project's identities, newest first (`createdAt`, then `id`, descending); with `query.q`,
   * only those {@link matchesIdentitySearch} keeps.
   */
  listIdentitiesPage(projectId: string, query: IdentityPageQuery): Promise<IdentityPage>
  /** Changes what `change` holds; `null` when there is no such identity. */
  updateIdentity(
    id: string,
    change: IdentityChange,
    updatedAt: Date,
    audit?: IdentityAuditWrite,
  ): Promise<IdentityRecord | null>
  /**
   * Deletes an identity that has no key, or, with `revokeKeys`, deactivates its active keys and
   * deletes it in one transaction; `null` when there is no such identity.
   */
  deleteIdentity(
    id: string,
    revokeKeys: boolean,
    audit?: IdentityAuditWrite,
  ): Promise<IdentityDeletion | null>
  /** Joins a key to an identity, or takes it out (`null`); `null` when there is no such key. */
  setKeyIdentity(
    keyId: string,
    identityId: string | null,
    audit?: IdentityAuditWrite,
  ): Promise<KeyRecord | null>
  /** The keys of an identity, newest first. */
  listIdentityKeys(
    id: string,
    query: KeyPageQuery,
  ): Promise<{ records: KeyRecord[]; next: KeyPagePosition | null }>
  /**
   * Leases credits of an identity's pool to this process, atomically (one conditional write), by
   * the rule of a key's `leaseCredits`: the refill due at `now` first, then `min(want, balance)`
   * when the pool holds at least `need`, else nothing. An identity without a pool grants `want`
   * and writes nothing. `null` if there is no such identity.
   *
   * @example
   * ```ts
   * const lease = await store.identities.leaseIdentityCredits(identityId, 100, 3, new Date())
   * ```
   */
  leaseIdentityCredits(id: string, want: number, need: number, now: Date): Promise<CreditLease | null>
  /**
   * Gives back pool credits a process leased and did not spend (at its clean stop), atomically.
   * Nothing for an identity without a pool or an unknown id.
   *
   * @example
   * ```ts
   * await store.identities.returnIdentityCredits(identityId, 42)
   * ```
   */
  returnIdentityCredits(id: string, amount: number): Promise<void>
  /**
   * Changes an identity's pool, atomically, after the refill due at `now` (`changedCredits` with
   * the holder `'identity'` is the rule), and sets `updatedAt` to `now`. A change between no pool
   * and a pool reaches the change feed for every key of the identity (verifications must start or
   * stop spending from it); a change of the balance does not. `null` if there is no such identity.
   * With `audit`, its rows (called with the identity after, no key, and the identity before with
   * its credits as read under the lock, after the due refill) are appended in the same
   * transaction: a throw, or a failed append, changes nothing.
   *
   * @example
   * ```ts
   * const { before, identity } = (await store.identities.changeIdentityCredits(id, { op: 'add', amount: 500 }, new Date()))!
   * ```
   */
  changeIdentityCredits(
    id: string,
    change: CreditChange,
    now: Date,
    audit?: IdentityAuditWrite,
  ): Promise<IdentityCreditChangeResult | null>
}
