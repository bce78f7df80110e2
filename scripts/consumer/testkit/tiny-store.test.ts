// A third party's store, as a user of @keyward/testkit writes one: records in a Map, and the
// conformance suite run against it with vitest. The consumer test runs this file from the
// installed tarballs, so the published suite is the one that checks it.
import { type KeyOwner, type KeyRecord, type KeyStore, limitExceededError } from '@keyward/core'
import { runStoreConformance } from '@keyward/testkit'

class TinyStore implements KeyStore {
  readonly rows = new Map<string, KeyRecord>()

  async insertKey(record: KeyRecord, activeLimit?: number): Promise<KeyRecord> {
    if (this.rows.has(record.id) || [...this.rows.values()].some((r) => r.hash === record.hash)) {
      throw new Error('duplicate key record')
    }
    if (record.active && activeLimit !== undefined) this.#checkLimit(record, activeLimit)
    this.rows.set(record.id, { ...record })
    return { ...record }
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

  async setKeyActive(id: string, active: boolean, activeLimit?: number): Promise<KeyRecord | null> {
    const current = this.rows.get(id)
    if (!current) return null
    if (current.active === active) return current
    if (active && activeLimit !== undefined) this.#checkLimit(current, activeLimit)
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

  // Nothing awaits between the count and the write: the limit is atomic in one process.
  #checkLimit(record: KeyRecord, activeLimit: number): void {
    const owner = { type: record.ownerType, id: record.ownerId }
    const isActive = (r: KeyRecord) => r.active && r.ownerType === owner.type && r.ownerId === owner.id
    if ([...this.rows.values()].filter(isActive).length >= activeLimit) {
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
