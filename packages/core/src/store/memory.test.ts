import { runStoreConformance } from '@keyward/testkit'
import { describe, expect, it } from 'vitest'
import type { AuditRecord } from '../audit/types.js'
import type { KeyRecord } from '../store/types.js'
import { MemoryKeyStore } from './memory.js'

runStoreConformance({
  name: 'MemoryKeyStore',
  makeStore: () => {
    const records = new Map<string, KeyRecord>()
    const auditLog: AuditRecord[] = []
    return {
      store: new MemoryKeyStore({ records, auditLog }),
      readRaw: async () => [...records.values()].map((r) => ({ ...r })),
      readRawAudit: async () => auditLog.map((r) => ({ ...r })),
    }
  },
})

// The conformance cases of the optional parts skip a store without them: this one has them all.
describe('MemoryKeyStore', () => {
  it('pages, sets expiries and keeps why a key was deactivated', async () => {
    const store = new MemoryKeyStore()
    const record = await store.insertKey({
      id: crypto.randomUUID(),
      hash: 'a'.repeat(64),
      keyPrefix: 'ak_Ab3xY',
      ownerType: 'project',
      ownerId: 'p1',
      name: null,
      active: true,
      createdAt: new Date(),
    })
    expect((await store.listKeysPage({ type: 'project', id: 'p1' }, { limit: 1 })).records).toEqual([record])
    expect((await store.setKeyExpiry(record.id, null))?.expiresAt).toBeNull()
    expect((await store.deactivateKeys([record.id], 'leaked'))[0]?.revokedReason).toBe('leaked')
    expect(await store.setKeyActive(record.id, true)).not.toHaveProperty('revokedReason')
  })
})
