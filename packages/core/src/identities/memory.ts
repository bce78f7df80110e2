import type { AuditEntry } from '../audit/types.js'
import { keptCreditsLowAt } from '../credits/low-at.js'
import { changedCredits, leasedCredits, refilled } from '../credits/model.js'
import type { CreditChange } from '../credits/types.js'
import type { CreditLease, KeyPagePosition, KeyPageQuery, KeyRecord } from '../store/record.js'
import { type RefilledCredits, refillInMemory } from '../webhooks/credit-refills.js'
import type { IdentityChange, IdentityRecord } from './model.js'
import type {
  IdentityAuditWrite,
  IdentityCreditChangeResult,
  IdentityDeletion,
  IdentityPage,
  IdentityPageQuery,
  IdentityStore,
} from './store.js'
import { matchesIdentitySearch } from './store.js'

/** What the memory store lends its identities: its key records, and its writes with their feed and audit. */
export interface MemoryKeyAccess {
  keys(): Iterable<KeyRecord>
  findKey(id: string): KeyRecord | undefined
  /** Writes a changed key and reports it on the change feed. */
  replace(record: KeyRecord): KeyRecord
  append(entries: readonly AuditEntry[]): Promise<unknown>
}

const newestFirst = (a: { createdAt: Date; id: string }, b: { createdAt: Date; id: string }) =>
  b.createdAt.getTime() - a.createdAt.getTime() || (a.id < b.id ? 1 : a.id > b.id ? -1 : 0)

/** @internal A page of records, newest first (`createdAt`, then `id`, descending). */
export function page<T extends { createdAt: Date; id: string }>(
  all: T[],
  { limit, after }: KeyPageQuery,
): { records: T[]; next: KeyPagePosition | null } {
  const sorted = all.sort(newestFirst)
  const start =
    after === undefined
      ? 0
      : sorted.findIndex(
          (item) => newestFirst(item, { createdAt: new Date(after.createdAt), id: after.id }) > 0,
        )
  const records = start < 0 ? [] : sorted.slice(start, start + limit)
  const last = records.at(-1)
  const more = start >= 0 && start + limit < sorted.length
  return { records, next: more && last ? { createdAt: last.createdAt, id: last.id } : null }
}

/**
 * The identities of a memory key store, beside its keys. Each method is atomic: nothing
 * awaits between its reads and its writes, and its audit rows are built before the write (a throw
 * writes nothing) and queued at once, as the store's own writes do.
 *
 * @example
 * ```ts
 * const store = new MemoryKeyStore()
 * await store.identities.findIdentityByExternalId('proj_1', 'customer_acme') // null
 * ```
 */
export class MemoryIdentities implements IdentityStore {
  readonly #byId = new Map<string, IdentityRecord>()
  readonly #byExternalId = new Map<string, IdentityRecord>()
  readonly #keys: MemoryKeyAccess
  // When the next refill of each pool with a rule is due, as the scheduler's last round saw it.
  readonly #refillDue = new Map<string, Date>()

  constructor(keys: MemoryKeyAccess) {
    this.#keys = keys
  }

  async insertIdentity(record: IdentityRecord, audit?: IdentityAuditWrite): Promise<IdentityRecord | null> {
    if (this.#byExternalId.has(externalKey(record))) return null
    return this.#commit(audit?.(record, [], null), () => this.#set(record))
  }

  async ensureIdentity(record: IdentityRecord, audit?: IdentityAuditWrite) {
    const found = this.#byExternalId.get(externalKey(record))
    if (found) return { identity: found, created: false }
    return { identity: await this.#commit(audit?.(record, [], null), () => this.#set(record)), created: true }
  }

  async findIdentity(id: string): Promise<IdentityRecord | null> {
    return this.#byId.get(id) ?? null
  }

  async findIdentityByExternalId(projectId: string, externalId: string): Promise<IdentityRecord | null> {
    return this.#byExternalId.get(externalKey({ projectId, externalId })) ?? null
  }

  async listIdentitiesPage(projectId: string, query: IdentityPageQuery): Promise<IdentityPage> {
    const { q } = query
    return page(
      [...this.#byId.values()].filter(
        (identity) =>
          identity.projectId === projectId && (q === undefined || matchesIdentitySearch(identity, q)),
      ),
      query,
    )
  }

  async updateIdentity(
    id: string,
    change: IdentityChange,
    updatedAt: Date,
    audit?: IdentityAuditWrite,
  ): Promise<IdentityRecord | null> {
    const current = this.#byId.get(id)
    if (!current) return null
    const updated: IdentityRecord = { ...current, ...change, updatedAt }
    return this.#commit(audit?.(updated, [], current), () => this.#changed(this.#set(updated)))
  }

  async deleteIdentity(
    id: string,
    revokeKeys: boolean,
    audit?: IdentityAuditWrite,
  ): Promise<IdentityDeletion | null> {
    const current = this.#byId.get(id)
    if (!current) return null
    const members = this.#members(id)
    if (members.length > 0 && !revokeKeys) return { kept: current, keys: members.length }
    // The keys leave the identity with it; the active ones are revoked.
    const changed = members.map(
      (key): KeyRecord => ({
        ...key,
        identityId: null,
        ...(key.active ? { active: false, revokedReason: 'revoked' } : {}),
      }),
    )
    const revoked = changed.filter((key, i) => members[i]!.active && !key.active)
    return this.#commit(audit?.(current, revoked, current), () => {
      this.#byId.delete(id)
      this.#byExternalId.delete(externalKey(current))
      for (const key of changed) this.#keys.replace(key)
      return { deleted: current, revoked }
    })
  }

  async setKeyIdentity(
    keyId: string,
    identityId: string | null,
    audit?: IdentityAuditWrite,
  ): Promise<KeyRecord | null> {
    const key = this.#keys.findKey(keyId)
    if (!key) return null
    const identity = identityId === null ? null : this.#byId.get(identityId)
    if (identity === undefined) return null
    const updated: KeyRecord = { ...key, identityId }
    const rowsOf = identity ?? (key.identityId ? this.#byId.get(key.identityId) : undefined)
    return this.#commit(rowsOf ? audit?.(rowsOf, [updated], null) : undefined, () =>
      this.#keys.replace(updated),
    )
  }

  async listIdentityKeys(id: string, query: KeyPageQuery) {
    return page(this.#members(id), query)
  }

  // Nothing awaits between reading the pool and writing it: each call is atomic.
  async leaseIdentityCredits(id: string, want: number, need: number, now: Date): Promise<CreditLease | null> {
    const current = this.#byId.get(id)
    if (!current) return null
    const { lease, after } = leasedCredits(current, want, need, now)
    // Not a change the feed reports: the balance is not what a cache holds a key for.
    if (after) this.#set({ ...current, ...after })
    return { ...lease, lowAt: current.creditsLowAt ?? null }
  }

  async returnIdentityCredits(id: string, amount: number): Promise<void> {
    const current = this.#byId.get(id)
    if (current?.remaining == null) return
    this.#set({ ...current, remaining: current.remaining + amount })
  }

  async changeIdentityCredits(
    id: string,
    change: CreditChange,
    now: Date,
    audit?: IdentityAuditWrite,
  ): Promise<IdentityCreditChangeResult | null> {
    const current = this.#byId.get(id)
    if (!current) return null
    const before = refilled(current, now)
    const after = changedCredits(before, change, now, 'identity')
    if (change.op === 'set') this.#refillDue.delete(id)
    // A threshold the new pool could not have is cleared with the change (see keptCreditsLowAt).
    const creditsLowAt = keptCreditsLowAt(current.creditsLowAt, after)
    const identity: IdentityRecord = { ...current, ...after, creditsLowAt, updatedAt: now }
    const entries = audit?.(identity, [], { ...current, ...before })
    // Whether the identity has a pool is what verifications of its keys read: that goes on the feed.
    const pooled = (before.remaining === null) !== (after.remaining === null)
    await this.#commit(entries, () => (pooled ? this.#changed(this.#set(identity)) : this.#set(identity)))
    return {
      before: { remaining: before.remaining, refill: before.refill, refilledAt: before.refilledAt },
      identity,
    }
  }

  /** @internal The scheduler's round over the pools (see `WebhookStore.refillCredits`). */
  refill(now: Date, limit: number): RefilledCredits[] {
    return refillInMemory(
      this.#byId.values(),
      this.#refillDue,
      now,
      limit,
      (identity) => identity,
      (identity, after) => this.#set({ ...identity, ...after }),
      (identity, amount, remaining, periodStart) => ({
        holder: 'identity',
        id: identity.id,
        keyPrefix: null,
        name: null,
        externalId: identity.externalId,
        ownerType: 'project',
        ownerId: identity.projectId,
        amount,
        remaining,
        periodStart,
      }),
    )
  }

  /** @internal The identities that hold a role (the memory store's roles read them). */
  holdersOf(roleId: string): IdentityRecord[] {
    return [...this.#byId.values()].filter((identity) => identity.roleIds?.includes(roleId))
  }

  /** @internal Writes identities a role's deletion changed: each of their keys goes on the feed. */
  replaceAll(records: readonly IdentityRecord[]): void {
    for (const record of records) this.#changed(this.#set(record))
  }

  #members(id: string): KeyRecord[] {
    return [...this.#keys.keys()].filter((key) => key.identityId === id)
  }

  #set(record: IdentityRecord): IdentityRecord {
    this.#byId.set(record.id, record)
    this.#byExternalId.set(externalKey(record), record)
    return record
  }

  // What a verification answers of the identity's keys changed: each of them goes on the feed.
  #changed(record: IdentityRecord): IdentityRecord {
    for (const key of this.#members(record.id)) this.#keys.replace(key)
    return record
  }

  async #commit<T>(entries: readonly AuditEntry[] | undefined, write: () => T): Promise<T> {
    const written = write()
    if (entries && entries.length > 0) await this.#keys.append(entries)
    return written
  }
}

const externalKey = ({ projectId, externalId }: Pick<IdentityRecord, 'projectId' | 'externalId'>) =>
  `${projectId}\u0000${externalId}`
