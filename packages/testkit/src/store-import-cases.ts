import type { AuditEntry, KeyRecord } from '@keyward/core'
import { expect, it } from 'vitest'
import type { StoreHarness } from './store-conformance.js'
import { byId, randomPart, recordFor } from './store-record.js'

let counter = 0
const uniqueOwner = (label: string) =>
  `${label}-import-${Date.now().toString(36)}-${(counter++).toString(36)}`

// A key of another system, as an import writes it: a foreign prefix padded to 8, its credits,
// permissions, metadata, and no limit.
async function importedRecord(ownerId: string, fields: Partial<KeyRecord> = {}): Promise<KeyRecord> {
  const base = await recordFor(`ba_${randomPart(40)}`, 'project', ownerId)
  return {
    ...base,
    keyPrefix: 'ba_xy***',
    remaining: 40,
    refill: { amount: 100, interval: 'monthly', day: 1 },
    refilledAt: new Date(Math.floor(Date.now() / 1000) * 1000),
    permissions: ['files:read'],
    metadata: { plan: 'pro' },
    expiresAt: new Date(Math.floor(Date.now() / 1000) * 1000 + 86_400_000),
    ...fields,
  }
}

/**
 * @internal The conformance cases of `insertImportedKeys`, registered inside the suite's
 * `describe`: skipped by name for a store without it (it is optional).
 */
export function importCases(make: () => Promise<StoreHarness>): void {
  it('imports a batch of keys once: a stored or repeated hash is left out, and importing again changes nothing', async (context) => {
    const { store } = await make()
    if (!store.insertImportedKeys) return context.skip('the store has no insertImportedKeys (it is optional)')
    const owner = uniqueOwner('proj')
    const records = [
      await importedRecord(owner),
      await importedRecord(owner, {
        active: false,
        revokedReason: 'revoked',
        remaining: null,
        refill: null,
        refilledAt: null,
      }),
      await importedRecord(owner, { permissions: null, metadata: null, expiresAt: null }),
    ]
    const repeated = { ...records[0]!, id: crypto.randomUUID(), name: 'again' }
    const inserted = await store.insertImportedKeys([records[0]!, repeated, ...records.slice(1)])
    expect(byId(inserted)).toEqual(byId(records).map((r) => expect.objectContaining(withoutAbsent(r))))
    for (const record of records) {
      expect(await store.findKeyByHash(record.hash)).toMatchObject(withoutAbsent(record))
    }
    const again = await store.insertImportedKeys(
      records.map((r) => ({ ...r, id: crypto.randomUUID(), name: 'x' })),
    )
    expect(again).toEqual([])
    expect(byId(await store.listKeysByOwner({ type: 'project', id: owner }))).toEqual(byId(inserted))
    expect(await store.insertImportedKeys([])).toEqual([])
  })

  it('imports no key of a closed owner', async (context) => {
    const { store } = await make()
    if (!store.insertImportedKeys) return context.skip('the store has no insertImportedKeys (it is optional)')
    if (!store.deactivateOwnerKeys)
      return context.skip('the store has no deactivateOwnerKeys (it is optional)')
    const closed = uniqueOwner('proj')
    const open = uniqueOwner('proj')
    await store.deactivateOwnerKeys({ type: 'project', id: closed })
    const kept = await importedRecord(open)
    const inserted = await store.insertImportedKeys([await importedRecord(closed), kept])
    expect(inserted.map((r) => r.id)).toEqual([kept.id])
  })

  it("appends the import's audit rows of the inserted keys only, in its transaction", async (context) => {
    const { store } = await make()
    if (!store.insertImportedKeys) return context.skip('the store has no insertImportedKeys (it is optional)')
    if (!store.appendAudit || !store.auditChainHead)
      return context.skip('the store has no audit log (appendAudit)')
    const owner = uniqueOwner('proj')
    const first = await importedRecord(owner)
    await store.insertImportedKeys([first])
    const second = await importedRecord(owner)
    const seen: string[][] = []
    const row = (record: KeyRecord): AuditEntry => ({
      at: new Date(),
      action: 'key.issued',
      actor: { type: 'system' },
      clientAddress: null,
      requestId: null,
      developerId: null,
      projectId: owner,
      targetType: 'key',
      targetId: record.id,
      before: null,
      after: { imported: true },
    })
    const before = await store.auditChainHead()
    await store.insertImportedKeys([{ ...first, id: crypto.randomUUID() }, second], (written) => {
      seen.push(written.map((r) => r.id))
      return written.map(row)
    })
    expect(seen).toEqual([[second.id]])
    expect((await store.auditChainHead()).seq).toBe(before.seq + 1)
    // A throw of the audit rolls the batch back.
    const third = await importedRecord(owner)
    await expect(
      store.insertImportedKeys([third], () => {
        throw new Error('audit failed')
      }),
    ).rejects.toThrow('audit failed')
    expect(await store.findKeyByHash(third.hash)).toBeNull()
  })
}

// The fields a store hands back as given; `revokedReason` only where the store keeps it.
function withoutAbsent(record: KeyRecord): Partial<KeyRecord> {
  const { revokedReason: _, ...rest } = record
  return Object.fromEntries(Object.entries(rest).filter(([, v]) => v !== null && v !== undefined))
}
