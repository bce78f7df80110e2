import { chainAuditEntries } from '../audit/chain.js'
import { matchesAuditFilter } from '../audit/filter.js'
import {
  AUDIT_GENESIS_HASH,
  type AuditChainHead,
  type AuditEntry,
  type AuditPage,
  type AuditQuery,
  type AuditRecord,
  type AuditWrite,
  type CreditAuditWrite,
} from '../audit/types.js'
import { keptCreditsLowAt } from '../credits/low-at.js'
import { changedCredits, creditState, leasedCredits, refilled, withCredits } from '../credits/model.js'
import type { CreditChange } from '../credits/types.js'
import { MemoryIdentities, type MemoryKeyAccess } from '../identities/memory.js'
import type { KeyKind } from '../key/format.js'
import type { StoredKeyPolicies } from '../policy/policies.js'
import { MemoryRoles } from '../roles/memory.js'
import { type RefilledCredits, refillInMemory } from '../webhooks/credit-refills.js'
import { webhookEventsOf } from '../webhooks/events.js'
import { MemoryWebhooks } from '../webhooks/memory.js'
import { ownerClosedError } from './closed.js'
import { KeyChangeHub, ownerChangeHash } from './feed.js'
import { countsAgainstLimit, limitExceededError } from './limit.js'
import { MemoryUsage } from './memory-usage.js'
import { keyPage } from './page.js'
import type {
  CreditChangeResult,
  CreditLease,
  CreditLeaseRequest,
  KeyOwner,
  KeyOwnerSummary,
  KeyPage,
  KeyPageQuery,
  KeyRecord,
  KeyStore,
  KeyUse,
  RevokedReason,
  RolledRecords,
} from './types.js'
import type { UsageBucket, UsageCount, UsageQuery, UsageRetention } from './usage.js'

/** Options of {@link MemoryKeyStore}. */
export interface MemoryKeyStoreOptions {
  /**
   * The map that holds the records, by id. Pass your own to read what the store wrote
   * (tests do) or to start with records; by default the store makes one.
   */
  readonly records?: Map<string, KeyRecord>
  /**
   * The array that holds the audit log, oldest row first. Pass your own to read (or, in a test,
   * tamper with) what the store appended; by default the store makes one.
   */
  readonly auditLog?: AuditRecord[]
}

const ownerKey = (type: string, id: string) => `${type}:${id}`

// Records come back with every lifecycle field present, `null` when absent.
const complete = (record: KeyRecord): KeyRecord => ({
  ...record,
  expiresAt: record.expiresAt ?? null,
  lastUsedAt: record.lastUsedAt ?? null,
  replacedBy: record.replacedBy ?? null,
  ipAllowlist: record.ipAllowlist ?? null,
  permissions: record.permissions ?? null,
  metadata: record.metadata ?? null,
})

const deactivated = (record: KeyRecord, revokedReason: RevokedReason): KeyRecord => ({
  ...record,
  active: false,
  revokedReason,
})

/**
 * A {@link KeyStore} in process memory: for tests, examples and single-process apps that
 * can lose their keys on restart. Lookups by hash are one `Map` read. Its limit check and
 * its roll are atomic because nothing awaits between the check and the write. Its change
 * feed reports every write but a key's last use, so services that share one store keep
 * their caches right. `deactivateOwnerKeys` closes an owner in this process's memory only.
 * Its audit log is an array with the same hash chain as the PostgreSQL store's; a write appends
 * its rows in the same synchronous step, and appends are queued in the order of the writes.
 *
 * @example
 * ```ts
 * const keyward = createKeyward({ store: new MemoryKeyStore() })
 * const { key } = await keyward.issueDeveloperKey('dev_1')
 * ```
 */
export class MemoryKeyStore implements KeyStore {
  /** Reports this store's own writes, always connected: services sharing the store hear each other. */
  readonly changes = new KeyChangeHub({ connected: true })
  readonly #records: Map<string, KeyRecord>
  readonly #byHash = new Map<string, KeyRecord>()
  readonly #byOwner = new Map<string, KeyRecord[]>()
  // Owners closed by `deactivateOwnerKeys`, by `ownerKey`.
  readonly #closed = new Set<string>()
  /** @internal The usage counts it was given, as PostgreSQL's `key_usage` would hold them (tests read them). */
  readonly usage = new MemoryUsage()
  // What the identities and roles beside the keys read and write of them.
  readonly #access: MemoryKeyAccess = {
    keys: () => this.#records.values(),
    findKey: (id) => this.#records.get(id),
    replace: (record) => this.#replace(record),
    append: (entries) => this.appendAudit(entries),
  }
  /** The identities of the project keys, beside them. */
  readonly identities: MemoryIdentities = new MemoryIdentities(this.#access)
  /** The roles of the project keys, beside them. */
  readonly roles: MemoryRoles = new MemoryRoles(this.#access, this.identities)
  /** Its webhook endpoints, outbox and delivery log: an audit append is an outbox write too. */
  readonly webhooks: MemoryWebhooks = new MemoryWebhooks({
    append: (entries) => this.appendAudit(entries),
    keys: () => this.#records.values(),
    refill: (now, limit) => {
      const keys = this.#refill(now, limit)
      return [...keys, ...this.identities.refill(now, limit - keys.length)]
    },
  })
  // When the next refill of each metered key with a rule is due, as the scheduler's last round saw it.
  readonly #refillDue = new Map<string, Date>()
  readonly #auditLog: AuditRecord[]
  // The chain's head, apart from the rows: a deleted last row shows against it.
  #auditHead: AuditChainHead
  // Appends run one after the other, in the order of the writes: the chain never forks.
  #auditTail: Promise<unknown> = Promise.resolve()

  constructor(options: MemoryKeyStoreOptions = {}) {
    this.#records = options.records ?? new Map()
    this.#auditLog = options.auditLog ?? []
    const last = this.#auditLog.at(-1)
    this.#auditHead = {
      seq: last?.seq ?? 0,
      hash: last?.hash ?? AUDIT_GENESIS_HASH,
      startSeq: 0,
      startHash: AUDIT_GENESIS_HASH,
    }
    for (const [id, record] of this.#records) {
      const stored = complete(record)
      this.#records.set(id, stored)
      this.#index(stored)
    }
  }

  async insertKey(record: KeyRecord, activeLimit?: number, audit?: AuditWrite): Promise<KeyRecord> {
    this.#checkNew(record)
    this.#checkOpen(record)
    if (record.active && activeLimit !== undefined)
      this.#checkLimit(record.ownerType, record.ownerId, activeLimit, record.createdAt)
    return this.#commit(audit, [record], () => this.#add(record))
  }

  // Nothing awaits between the checks and the writes: the batch is one step.
  async insertImportedKeys(records: readonly KeyRecord[], audit?: AuditWrite): Promise<KeyRecord[]> {
    const hashes = new Set<string>()
    const fresh = records.filter((record) => {
      const known = hashes.has(record.hash) || this.#byHash.has(record.hash) || this.#records.has(record.id)
      hashes.add(record.hash)
      return !known && !this.#closed.has(ownerKey(record.ownerType, record.ownerId))
    })
    return this.#commit(audit, fresh, () => fresh.map((record) => this.#add(record)))
  }

  async findKeyByHash(hash: string): Promise<KeyRecord | null> {
    return this.#byHash.get(hash) ?? null
  }

  async findKeyById(id: string): Promise<KeyRecord | null> {
    return this.#records.get(id) ?? null
  }

  async listKeysByOwner(owner: KeyOwner): Promise<KeyRecord[]> {
    return [...(this.#byOwner.get(ownerKey(owner.type, owner.id)) ?? [])]
  }

  async listKeysPage(owner: KeyOwner, query: KeyPageQuery): Promise<KeyPage> {
    return keyPage(this.#byOwner.get(ownerKey(owner.type, owner.id)) ?? [], query)
  }

  async setKeyActive(
    id: string,
    active: boolean,
    activeLimit?: number,
    now: Date = new Date(),
    audit?: AuditWrite,
  ): Promise<KeyRecord | null> {
    const current = this.#records.get(id)
    if (!current) return null
    if (current.active === active) return current
    if (active) this.#checkOpen(current)
    if (active && activeLimit !== undefined)
      this.#checkLimit(current.ownerType, current.ownerId, activeLimit, now)
    const { revokedReason: _reason, ...rest } = current
    const updated = active ? { ...rest, active } : deactivated(current, 'revoked')
    return this.#commit(audit, [updated], () => this.#replace(updated))
  }

  // Nothing awaits between the check of `replacedBy` and the write: a roll cannot come between.
  async setKeyExpiry(id: string, expiresAt: Date | null, audit?: AuditWrite): Promise<KeyRecord | null> {
    const current = this.#records.get(id)
    if (!current || current.replacedBy) return current ?? null
    const updated = { ...current, expiresAt }
    return this.#commit(audit, [updated], () => this.#replace(updated))
  }

  async setKeyPolicies(
    id: string,
    policies: StoredKeyPolicies,
    audit?: AuditWrite,
  ): Promise<KeyRecord | null> {
    const current = this.#records.get(id)
    if (!current) return null
    const changed: { -readonly [F in keyof StoredKeyPolicies]: StoredKeyPolicies[F] } = {}
    const fields = [
      'ipAllowlist',
      'permissions',
      'metadata',
      'ratelimits',
      'roleIds',
      'creditsLowAt',
    ] as const
    for (const field of fields) {
      if (policies[field] !== undefined) Object.assign(changed, { [field]: policies[field] })
    }
    const { ratelimits, ...rest } = { ...current, ...changed }
    // Stored rate limits are absent for none, as every store hands them back.
    const updated = ratelimits && ratelimits.length > 0 ? { ...rest, ratelimits } : rest
    return this.#commit(audit, [updated], () => this.#replace(updated))
  }

  // Nothing awaits between reading the balance and writing it: each call is atomic.
  async leaseCredits(id: string, want: number, need: number, now: Date): Promise<CreditLease | null> {
    const current = this.#records.get(id)
    if (!current) return null
    const { lease, after } = leasedCredits(creditState(current), want, need, now)
    // Not a change the feed reports: the balance is not what a cache holds a key for.
    if (after) this.#write(withCredits(current, after))
    return { ...lease, lowAt: current.creditsLowAt ?? null }
  }

  // Each lease in turn, with nothing awaited between them: the batch is atomic.
  async leaseCreditsMany(
    requests: readonly CreditLeaseRequest[],
    now: Date,
  ): Promise<(CreditLease | null)[]> {
    return Promise.all(requests.map(({ id, want, need }) => this.leaseCredits(id, want, need, now)))
  }

  // The scheduler's round over the keys: active ones only.
  #refill(now: Date, limit: number): RefilledCredits[] {
    const active = [...this.#records.values()].filter((key) => key.active && !key.replacedBy)
    return refillInMemory(
      active,
      this.#refillDue,
      now,
      limit,
      creditState,
      (key, after) => this.#write(withCredits(key, after)),
      (key, amount, remaining, periodStart) => ({
        holder: 'key',
        id: key.id,
        keyPrefix: key.keyPrefix,
        name: key.name,
        externalId: null,
        ownerType: key.ownerType,
        ownerId: key.ownerId,
        amount,
        remaining,
        periodStart,
      }),
    )
  }

  async returnCredits(id: string, amount: number): Promise<void> {
    const current = this.#records.get(id)
    if (current?.remaining == null) return
    this.#write(withCredits(current, { ...creditState(current), remaining: current.remaining + amount }))
  }

  // Nothing awaits between reading the balance and writing it; the audit rows are built before
  // the write (a throw writes nothing) and queued at once, as `#commit` does.
  async changeCredits(
    id: string,
    change: CreditChange,
    now: Date,
    audit?: CreditAuditWrite,
  ): Promise<CreditChangeResult | null> {
    const current = this.#records.get(id)
    if (!current) return null
    const before = refilled(creditState(current), now)
    const after = changedCredits(before, change, now)
    // A threshold the new credits could not have is cleared with the change (see keptCreditsLowAt).
    const lowAt = keptCreditsLowAt(current.creditsLowAt, after)
    const updated = withCredits(
      lowAt === (current.creditsLowAt ?? null) ? current : { ...current, creditsLowAt: lowAt },
      after,
    )
    // Credits set anew start a period that no `credits.refilled` tells of.
    if (change.op === 'set') this.#refillDue.delete(id)
    const entries = audit?.({ before, record: complete(updated) }) ?? []
    // Whether the key has a limit is what verifications read: that change goes on the feed, as
    // does a threshold cleared with it (a cached record's must be current).
    const record =
      (before.remaining === null) !== (after.remaining === null) ||
      updated.creditsLowAt !== current.creditsLowAt
        ? this.#replace(updated)
        : this.#write(updated)
    if (entries.length > 0) await this.appendAudit(entries)
    return { before, record }
  }

  // A verification with peppers calls this with a handful of hashes: an array, not a Map, keeps
  // it as cheap as a lookup of one (see bench/core.bench.mjs, the pepper's cost).
  async findKeysByHashes(hashes: readonly string[]): Promise<KeyRecord[]> {
    const found: KeyRecord[] = []
    for (const hash of hashes) {
      const record = this.#byHash.get(hash)
      if (record !== undefined && !found.includes(record)) found.push(record)
    }
    return found
  }

  async deactivateKeys(
    ids: readonly string[],
    reason: RevokedReason = 'revoked',
    audit?: AuditWrite,
  ): Promise<KeyRecord[]> {
    const changed: KeyRecord[] = []
    for (const id of new Set(ids)) {
      const current = this.#records.get(id)
      if (current?.active) changed.push(deactivated(current, reason))
    }
    return this.#commit(audit, changed, () => changed.map((record) => this.#replace(record)))
  }

  // Nothing awaits between closing and deactivating: no creation comes in between.
  async deactivateOwnerKeys(owner: KeyOwner, audit?: AuditWrite): Promise<KeyRecord[]> {
    const key = ownerKey(owner.type, owner.id)
    const changed = (this.#byOwner.get(key) ?? [])
      .filter((record) => record.active)
      .map((record) => deactivated(record, 'revoked'))
    return this.#commit(audit, changed, () => {
      this.#closed.add(key)
      const written = changed.map((record) => this.#replace(record))
      this.changes.publish({ type: 'changed', hash: ownerChangeHash(owner) })
      return written
    })
  }

  async rollKey(
    id: string,
    replacement: KeyRecord,
    previousExpiresAt: Date,
    now: Date,
    audit?: AuditWrite,
  ): Promise<RolledRecords | null> {
    const current = this.#records.get(id)
    if (
      !current ||
      !countsAgainstLimit(current, now) ||
      current.ownerType !== replacement.ownerType ||
      current.ownerId !== replacement.ownerId ||
      this.#closed.has(ownerKey(current.ownerType, current.ownerId))
    ) {
      return null
    }
    this.#checkNew(replacement)
    const expiresAt =
      current.expiresAt && current.expiresAt < previousExpiresAt ? current.expiresAt : previousExpiresAt
    const previous = { ...current, replacedBy: replacement.id, expiresAt }
    return this.#commit(audit, [previous, replacement], () => ({
      previous: this.#replace(previous),
      replacement: this.#add(replacement),
    }))
  }

  async recordUsage(counts: readonly UsageCount[]): Promise<void> {
    this.usage.add(counts)
  }

  async readUsage(query: UsageQuery): Promise<UsageBucket[]> {
    return this.usage.read(query)
  }

  async compactUsage(retention: UsageRetention, now: Date, limit: number): Promise<number> {
    return this.usage.compact(retention, now, limit)
  }

  async recordKeyUse(uses: readonly KeyUse[]): Promise<void> {
    for (const { id, usedAt } of uses) {
      const current = this.#records.get(id)
      if (!current?.active || (current.lastUsedAt && current.lastUsedAt >= usedAt)) continue
      // Not a change the feed reports: a key's last use never touches a cache.
      this.#write({ ...current, lastUsedAt: usedAt })
    }
  }

  async appendAudit(entries: readonly AuditEntry[]): Promise<AuditRecord[]> {
    const appended = this.#auditTail.then(async () => {
      const records = await chainAuditEntries(this.#auditHead, entries)
      const last = records.at(-1)
      this.webhooks.enqueue(webhookEventsOf(records))
      this.#auditLog.push(...records.map(({ subject: _, ...row }) => row))
      if (last) this.#auditHead = { ...this.#auditHead, seq: last.seq, hash: last.hash }
      return records
    })
    this.#auditTail = appended.catch(() => undefined)
    return appended
  }

  async listAudit(query: AuditQuery): Promise<AuditPage> {
    const { developerId, projectId, limit, beforeSeq } = query
    const rows = this.#auditLog
      .filter(
        (row) =>
          row.developerId === developerId &&
          (projectId === undefined || row.projectId === projectId) &&
          (beforeSeq === undefined || row.seq < beforeSeq) &&
          matchesAuditFilter(row, query),
      )
      .sort((a, b) => b.seq - a.seq)
    const records = rows.slice(0, limit)
    return { records, next: rows.length > limit ? records.at(-1)!.seq : null }
  }

  async readAuditLog(afterSeq: number, limit: number): Promise<AuditRecord[]> {
    return this.#auditLog
      .filter((row) => row.seq > afterSeq)
      .sort((a, b) => a.seq - b.seq)
      .slice(0, limit)
  }

  async auditChainHead(): Promise<AuditChainHead> {
    await this.#auditTail
    return this.#auditHead
  }

  // A write and its audit rows, as one step: the rows are built first (a throw writes nothing),
  // then the write is applied and its rows queued at once, so appends keep the order of the writes.
  async #commit<T>(audit: AuditWrite | undefined, records: readonly KeyRecord[], write: () => T): Promise<T> {
    const entries = audit?.(records.map(complete)) ?? []
    const written = write()
    if (entries.length > 0) await this.appendAudit(entries)
    return written
  }

  #checkNew(record: KeyRecord): void {
    if (this.#records.has(record.id) || this.#byHash.has(record.hash)) {
      throw new Error('A key record with this id or hash already exists.')
    }
  }

  #checkOpen(record: KeyRecord): void {
    if (this.#closed.has(ownerKey(record.ownerType, record.ownerId))) {
      throw ownerClosedError({ type: record.ownerType, id: record.ownerId })
    }
  }

  #add(record: KeyRecord): KeyRecord {
    const stored = complete(record)
    this.#records.set(stored.id, stored)
    this.#index(stored)
    return this.#changed(stored)
  }

  #replace(updated: KeyRecord): KeyRecord {
    return this.#changed(this.#write(updated))
  }

  #write(updated: KeyRecord): KeyRecord {
    this.#records.set(updated.id, updated)
    this.#byHash.set(updated.hash, updated)
    const list = this.#byOwner.get(ownerKey(updated.ownerType, updated.ownerId))!
    list[list.findIndex((r) => r.id === updated.id)] = updated
    return updated
  }

  #changed(record: KeyRecord): KeyRecord {
    this.changes.publish({ type: 'changed', hash: record.hash, id: record.id })
    return record
  }

  async listOwners(type: KeyKind): Promise<KeyOwnerSummary[]> {
    const owners: KeyOwnerSummary[] = []
    for (const [key, list] of this.#byOwner) {
      if (!key.startsWith(`${type}:`) || list.length === 0) continue
      const times = list.map((r) => r.createdAt.getTime())
      owners.push({
        id: key.slice(type.length + 1),
        keys: list.length,
        activeKeys: list.filter((r) => r.active).length,
        firstCreatedAt: new Date(Math.min(...times)),
        lastCreatedAt: new Date(Math.max(...times)),
      })
    }
    return owners.sort(
      (a, b) =>
        a.firstCreatedAt.getTime() - b.firstCreatedAt.getTime() || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0),
    )
  }

  #index(record: KeyRecord): void {
    this.#byHash.set(record.hash, record)
    const key = ownerKey(record.ownerType, record.ownerId)
    const list = this.#byOwner.get(key)
    if (list) list.push(record)
    else this.#byOwner.set(key, [record])
  }

  #checkLimit(type: KeyOwner['type'], id: string, activeLimit: number, now: Date): void {
    const list = this.#byOwner.get(ownerKey(type, id)) ?? []
    let counted = 0
    for (const r of list) if (countsAgainstLimit(r, now)) counted++
    if (counted >= activeLimit) throw limitExceededError({ type, id }, activeLimit)
  }
}
