import { createKeyward, hashKey, KEY_ALPHABET, type KeyRecord, keyPrefix } from '@keyward/core'
import { expect, it } from 'vitest'
import type { StoreHarness } from './store-conformance.js'
import { byId, connectedFeed, until } from './store-record.js'

let counter = 0
const uniqueOwner = (label: string) => `${label}-batch-${Date.now().toString(36)}-${(counter++).toString(36)}`

function newKey(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(32))
  return `ak_${Array.from(bytes, (b) => KEY_ALPHABET[b & 63]).join('')}`
}

async function insertKeys(harness: StoreHarness, count: number, ownerId: string): Promise<KeyRecord[]> {
  const records: KeyRecord[] = []
  for (let i = 0; i < count; i++) {
    const key = newKey()
    const record: KeyRecord = {
      id: crypto.randomUUID(),
      hash: await hashKey(key),
      keyPrefix: keyPrefix(key),
      ownerType: 'project',
      ownerId,
      name: null,
      active: true,
      createdAt: new Date(Math.floor(Date.now() / 1000) * 1000),
    }
    records.push(await harness.store.insertKey(record))
  }
  return records
}

/**
 * @internal The conformance cases of the batch methods, `findKeysByHashes` and `deactivateKeys`,
 * registered inside the suite's `describe`.
 */
export function batchCases(make: () => Promise<StoreHarness>): void {
  it('finds a batch of records by hash, each once, leaving unknown hashes out', async () => {
    const harness = await make()
    const records = await insertKeys(harness, 5, uniqueOwner('proj'))
    const unknown = await hashKey(newKey())
    const hashes = [records[0]!.hash, unknown, ...records.slice(1, 4).map((r) => r.hash), records[0]!.hash]
    expect(byId(await harness.store.findKeysByHashes(hashes))).toEqual(byId(records.slice(0, 4)))
    expect(await harness.store.findKeysByHashes([])).toEqual([])
    expect(await harness.store.findKeysByHashes([unknown])).toEqual([])
  })

  it("keeps a key's pepper id as inserted, finds it among its candidate hashes, and a plain key names none", async () => {
    const harness = await make()
    const [plain] = await insertKeys(harness, 1, uniqueOwner('proj'))
    expect(plain).not.toHaveProperty('pepperId')
    const key = newKey()
    // What a service with peppers stores: an HMAC of the key's SHA-256, and the pepper's id.
    const record: KeyRecord = {
      ...plain!,
      id: crypto.randomUUID(),
      hash: await hashKey(key),
      keyPrefix: keyPrefix(key),
      pepperId: 'p2',
    }
    expect(await harness.store.insertKey(record)).toEqual(record)
    expect(await harness.store.findKeyById(record.id)).toEqual(record)
    expect(await harness.store.findKeyByHash(record.hash)).toEqual(record)
    const found = await harness.store.findKeysByHashes([await hashKey(newKey()), record.hash, plain!.hash])
    expect(byId(found)).toEqual(byId([record, plain!]))
  })

  it('a service with peppers over the store verifies keys stored under each pepper and under none', async () => {
    const { store } = await make()
    const projectId = uniqueOwner('proj')
    const P1 = { id: 'p1', secret: 'the first pepper of the conformance suite' }
    const P2 = { id: 'p2', secret: 'the second pepper of the conformance suite' }
    const issued = [
      await createKeyward({ store, trackLastUsed: false }).issueProjectKey(projectId),
      await createKeyward({ store, trackLastUsed: false, hashing: { pepper: [P1] } }).issueProjectKey(
        projectId,
      ),
    ]
    const keyward = createKeyward({ store, trackLastUsed: false, hashing: { pepper: [P1, P2] } })
    issued.push(await keyward.issueProjectKey(projectId))
    expect(issued.map(({ record }) => record.pepperId ?? null)).toEqual([null, 'p1', 'p2'])
    for (const { key, record } of issued) {
      const auth = await keyward.authenticate({ projectKey: key }, { scope: 'project', projectId })
      expect(auth.projectKey.id).toBe(record.id)
    }
  })

  it('a change feed reports a peppered key revoked past the service: a cache over it refuses the key', async (context) => {
    const { store } = await make()
    await connectedFeed(store, context)
    const pepper = [{ id: 'p1', secret: 'the pepper of the change feed conformance case' }]
    const keyward = createKeyward({ store, cache: {}, trackLastUsed: false, hashing: { pepper } })
    const { key, record } = await keyward.issueProjectKey(uniqueOwner('proj'))
    const outcome = () =>
      keyward.authenticate({ projectKey: key }, { scope: 'project', projectId: record.ownerId }).then(
        () => 'accepted',
        (error: { type: string }) => error.type,
      )
    await until(async () => (await outcome()) === 'accepted' && keyward.cacheStats()?.entries === 1)
    await store.setKeyActive(record.id, false) // past the service: the feed names the stored hash
    await until(async () => (await outcome()) === 'key_invalid')
  })

  it('finds inactive records in a batch too, as they are', async () => {
    const harness = await make()
    const [first, second] = await insertKeys(harness, 2, uniqueOwner('proj'))
    await harness.store.setKeyActive(first!.id, false)
    const found = byId(await harness.store.findKeysByHashes([first!.hash, second!.hash]))
    expect(found).toEqual(byId([{ ...first!, active: false }, second!]))
  })

  it('deactivates a batch once: the active ones come back, a second call returns none', async () => {
    const harness = await make()
    const owner = uniqueOwner('proj')
    const records = await insertKeys(harness, 4, owner)
    await harness.store.setKeyActive(records[3]!.id, false)
    const ids = [...records.map((r) => r.id), crypto.randomUUID(), 'not-a-uuid', records[0]!.id]
    const changed = await harness.store.deactivateKeys(ids)
    expect(byId(changed)).toEqual(byId(records.slice(0, 3).map((r) => ({ ...r, active: false }))))
    expect(await harness.store.deactivateKeys(ids)).toEqual([])
    expect(await harness.store.deactivateKeys([])).toEqual([])
    const listed = await harness.store.listKeysByOwner({ type: 'project', id: owner })
    expect(listed.map((r) => r.active)).toEqual([false, false, false, false])
    expect((await harness.store.findKeyByHash(records[0]!.hash))?.active).toBe(false)
  })

  it('concurrent batch deactivations of the same records return each record exactly once', async () => {
    const harness = await make()
    const records = await insertKeys(harness, 20, uniqueOwner('proj'))
    const ids = records.map((r) => r.id)
    const results = await Promise.all(
      Array.from({ length: 5 }, (_, i) => harness.store.deactivateKeys(i % 2 ? [...ids].reverse() : ids)),
    )
    const returned = results.flat().map((r) => r.id)
    expect(returned.sort()).toEqual([...ids].sort())
  })

  it('looks up 1,000 hashes in one call', async () => {
    const harness = await make()
    const owner = uniqueOwner('proj')
    const records = await insertKeys(harness, 1000, owner)
    const found = await harness.store.findKeysByHashes(records.map((r) => r.hash))
    expect(found).toHaveLength(1000)
    expect(new Set(found.map((r) => r.id))).toEqual(new Set(records.map((r) => r.id)))
  })
}
