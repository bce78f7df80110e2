import type { KeyKind } from '../key/format.js'
import { KeyChangeHub } from './feed.js'
import { limitExceededError } from './limit.js'
import type { KeyOwner, KeyOwnerSummary, KeyRecord, KeyStore } from './types.js'

/** Options of {@link MemoryKeyStore}. */
export interface MemoryKeyStoreOptions {
  /**
   * The map that holds the records, by id. Pass your own to read what the store wrote
   * (tests do) or to start with records; by default the store makes one.
   */
  readonly records?: Map<string, KeyRecord>
}

const ownerKey = (type: string, id: string) => `${type}:${id}`

/**
 * A {@link KeyStore} in process memory: for tests, examples and single-process apps that
 * can lose their keys on restart. Lookups by hash are one `Map` read. Its limit check is
 * atomic because nothing awaits between the count and the write. Its change feed reports
 * every write, so services that share one store keep their caches right.
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

  constructor(options: MemoryKeyStoreOptions = {}) {
    this.#records = options.records ?? new Map()
    for (const record of this.#records.values()) this.#index(record)
  }

  async insertKey(record: KeyRecord, activeLimit?: number): Promise<KeyRecord> {
    if (this.#records.has(record.id) || this.#byHash.has(record.hash)) {
      throw new Error('A key record with this id or hash already exists.')
    }
    if (record.active && activeLimit !== undefined)
      this.#checkLimit(record.ownerType, record.ownerId, activeLimit)
    const stored = { ...record }
    this.#records.set(stored.id, stored)
    this.#index(stored)
    this.#changed(stored)
    return stored
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

  async setKeyActive(id: string, active: boolean, activeLimit?: number): Promise<KeyRecord | null> {
    const current = this.#records.get(id)
    if (!current) return null
    if (current.active === active) return current
    if (active && activeLimit !== undefined) this.#checkLimit(current.ownerType, current.ownerId, activeLimit)
    const updated = { ...current, active }
    this.#records.set(id, updated)
    this.#byHash.set(updated.hash, updated)
    const list = this.#byOwner.get(ownerKey(updated.ownerType, updated.ownerId))!
    list[list.findIndex((r) => r.id === id)] = updated
    this.#changed(updated)
    return updated
  }

  #changed(record: KeyRecord): void {
    this.changes.publish({ type: 'changed', hash: record.hash, id: record.id })
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

  #checkLimit(type: KeyOwner['type'], id: string, activeLimit: number): void {
    const list = this.#byOwner.get(ownerKey(type, id)) ?? []
    let active = 0
    for (const r of list) if (r.active) active++
    if (active >= activeLimit) throw limitExceededError({ type, id }, activeLimit)
  }
}
