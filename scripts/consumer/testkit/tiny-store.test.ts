// A third party's store, as a user of @keyward/testkit writes one: records in a Map, and the
// conformance suite run against it with vitest. The consumer test runs this file from the
// installed tarballs, so the published suite is the one that checks it.
import {
  countsAgainstLimit,
  type KeyOwner,
  type KeyRecord,
  type KeyStore,
  type KeyUse,
  limitExceededError,
  ownerClosedError,
  type RolledRecords,
} from '@keyward/core'
import { runStoreConformance } from '@keyward/testkit'

const ownerOf = (record: KeyRecord) => `${record.ownerType}:${record.ownerId}`

class TinyStore implements KeyStore {
  readonly rows = new Map<string, KeyRecord>()
  // Deleted owners: they get no keys again.
  readonly closed = new Set<string>()

  async insertKey(record: KeyRecord, activeLimit?: number): Promise<KeyRecord> {
    if (this.rows.has(record.id) || [...this.rows.values()].some((r) => r.hash === record.hash)) {
      throw new Error('duplicate key record')
    }
    this.#checkOpen(record)
    if (record.active && activeLimit !== undefined) this.#checkLimit(record, activeLimit, record.createdAt)
    const stored = { expiresAt: null, lastUsedAt: null, replacedBy: null, ...record }
    this.rows.set(record.id, stored)
    return { ...stored }
  }

  async findKeyByHash(hash: string): Promise<KeyRecord | null> {
    return [...this.rows.values()].find((r) => r.hash === hash) ?? null
  }

  async findKeyById(id: string): Promise<KeyRecord | null> {
    return this.rows.get(id) ?? null
  }

  async listKeysByOwner(owner: KeyOwner): Promise<KeyRecord[]> {
    return [...this.rows.values()]
      .filter((r) => r.ownerType === owner.type && r.ownerId === owner.id)
      .sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime())
  }

  async setKeyActive(
    id: string,
    active: boolean,
    activeLimit?: number,
    now = new Date(),
  ): Promise<KeyRecord | null> {
    const current = this.rows.get(id)
    if (!current) return null
    if (current.active === active) return current
    if (active) this.#checkOpen(current)
    if (active && activeLimit !== undefined) this.#checkLimit(current, activeLimit, now)
    const updated = { ...current, active }
    this.rows.set(id, updated)
    return updated
  }

  async findKeysByHashes(hashes: readonly string[]): Promise<KeyRecord[]> {
    const wanted = new Set(hashes)
    return [...this.rows.values()].filter((r) => wanted.has(r.hash))
  }

  // Nothing awaits between the check and the write: each record is deactivated by one call only.
  async deactivateKeys(ids: readonly string[]): Promise<KeyRecord[]> {
    const changed: KeyRecord[] = []
    for (const id of new Set(ids)) {
      const current = this.rows.get(id)
      if (!current?.active) continue
      const updated = { ...current, active: false }
      this.rows.set(id, updated)
      changed.push(updated)
    }
    return changed
  }

  // Nothing awaits between the check and the writes: of concurrent rolls of one key, one wins.
  async rollKey(
    id: string,
    replacement: KeyRecord,
    previousExpiresAt: Date,
    now: Date,
  ): Promise<RolledRecords | null> {
    const current = this.rows.get(id)
    if (!current || !countsAgainstLimit(current, now) || this.closed.has(ownerOf(current))) return null
    if (current.ownerType !== replacement.ownerType || current.ownerId !== replacement.ownerId) return null
    const expiresAt =
      current.expiresAt && current.expiresAt < previousExpiresAt ? current.expiresAt : previousExpiresAt
    const previous = { ...current, replacedBy: replacement.id, expiresAt }
    const stored = { expiresAt: null, lastUsedAt: null, replacedBy: null, ...replacement }
    this.rows.set(id, previous)
    this.rows.set(stored.id, stored)
    return { previous, replacement: stored }
  }

  async recordKeyUse(uses: readonly KeyUse[]): Promise<void> {
    for (const { id, usedAt } of uses) {
      const current = this.rows.get(id)
      if (!current?.active || (current.lastUsedAt && current.lastUsedAt >= usedAt)) continue
      this.rows.set(id, { ...current, lastUsedAt: usedAt })
    }
  }

  // Nothing awaits between closing the owner and deactivating its keys: no creation comes between.
  async deactivateOwnerKeys(owner: KeyOwner): Promise<KeyRecord[]> {
    this.closed.add(`${owner.type}:${owner.id}`)
    const ids = [...this.rows.values()]
      .filter((r) => r.active && r.ownerType === owner.type && r.ownerId === owner.id)
      .map((r) => r.id)
    return this.deactivateKeys(ids)
  }

  #checkOpen(record: KeyRecord): void {
    if (this.closed.has(ownerOf(record)))
      throw ownerClosedError({ type: record.ownerType, id: record.ownerId })
  }

  // Nothing awaits between the count and the write: the limit is atomic in one process.
  #checkLimit(record: KeyRecord, activeLimit: number, now: Date): void {
    const owner = { type: record.ownerType, id: record.ownerId }
    const counts = (r: KeyRecord) =>
      r.ownerType === owner.type && r.ownerId === owner.id && countsAgainstLimit(r, now)
    if ([...this.rows.values()].filter(counts).length >= activeLimit) {
      throw limitExceededError(owner, activeLimit)
    }
  }
}

runStoreConformance({
  name: 'TinyStore',
  makeStore: () => {
    const store = new TinyStore()
    return { store, readRaw: async () => [...store.rows.values()].map((r) => ({ ...r })) }
  },
})
