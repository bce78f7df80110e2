import { describe, expect, it } from 'vitest'
import { ErrorType } from '../errors/types.js'
import { KeyChangeHub } from '../store/feed.js'
import { MemoryKeyStore } from '../store/memory.js'
import type { KeyOwner, KeyRecord, KeyStore } from '../store/types.js'
import type { KeywardEvent } from './events.js'
import { createKeyward } from './keyward.js'

// The required methods of a store, from a memory store: no `deactivateOwnerKeys`, no feed.
function delegateTo(store: MemoryKeyStore): KeyStore {
  return {
    insertKey: (record, limit) => store.insertKey(record, limit),
    findKeyByHash: (hash) => store.findKeyByHash(hash),
    findKeyById: (id) => store.findKeyById(id),
    listKeysByOwner: (owner) => store.listKeysByOwner(owner),
    setKeyActive: (id, active, limit, now) => store.setKeyActive(id, active, limit, now),
    rollKey: (id, replacement, expiresAt, now) => store.rollKey(id, replacement, expiresAt, now),
    recordKeyUse: (uses) => store.recordKeyUse(uses),
    findKeysByHashes: (hashes) => store.findKeysByHashes(hashes),
    deactivateKeys: (ids) => store.deactivateKeys(ids),
  }
}

describe('keyward.deactivateOwnerKeys', () => {
  it('ends every active key of the owner, with key.deactivated for each, and refuses new ones with 404', async () => {
    const events: KeywardEvent[] = []
    const keyward = createKeyward({ store: new MemoryKeyStore(), onEvent: (event) => events.push(event) })
    const [first, second, inactive] = [
      await keyward.issueProjectKey('proj_a'),
      await keyward.issueProjectKey('proj_a'),
      await keyward.issueProjectKey('proj_a'),
    ]
    await keyward.deactivateKey(inactive!.record.id)
    const other = await keyward.issueProjectKey('proj_b')
    events.length = 0

    const deactivated = await keyward.deactivateOwnerKeys({ type: 'project', id: 'proj_a' })
    expect(deactivated.map((r) => [r.id, r.active])).toEqual([
      [first!.record.id, false],
      [second!.record.id, false],
    ])
    expect(events).toEqual(
      [first!, second!].map(({ record }) => ({
        type: 'key.deactivated',
        keyId: record.id,
        keyPrefix: record.keyPrefix,
        ownerType: 'project',
        ownerId: 'proj_a',
      })),
    )
    expect(JSON.stringify(events)).not.toContain(first!.key.slice(8))
    expect(await keyward.deactivateOwnerKeys({ type: 'project', id: 'proj_a' })).toEqual([])

    const refused = await keyward.issueProjectKey('proj_a').catch((error: unknown) => error)
    expect(refused).toMatchObject({
      type: ErrorType.notFound,
      status: 404,
      loc: ['path', 'project_id'],
      msg: 'Project "proj_a" was not found: it was deleted, and a deleted project gets no keys.',
    })
    await expect(keyward.activateKey(first!.record.id)).rejects.toMatchObject({ type: ErrorType.notFound })
    await expect(
      keyward.authenticate({ projectKey: first!.key }, { scope: 'project', projectId: 'proj_a' }),
    ).rejects.toMatchObject({ type: ErrorType.keyInvalid })
    const auth = await keyward.authenticate(
      { projectKey: other.key },
      { scope: 'project', projectId: 'proj_b' },
    )
    expect(auth.projectKey.id).toBe(other.record.id)
  })

  it('a cached verification ends with it', async () => {
    const keyward = createKeyward({ store: new MemoryKeyStore(), cache: {} })
    const { key } = await keyward.issueDeveloperKey('dev_a')
    const requirement = { scope: 'developer' } as const
    await keyward.authenticate({ developerKey: key }, requirement)
    await keyward.authenticate({ developerKey: key }, requirement)
    expect(keyward.cacheStats()?.hits).toBe(1)
    await keyward.deactivateOwnerKeys({ type: 'developer', id: 'dev_a' })
    await expect(keyward.authenticate({ developerKey: key }, requirement)).rejects.toMatchObject({
      type: ErrorType.keyInvalid,
    })
    await expect(keyward.issueDeveloperKey('dev_a')).rejects.toMatchObject({
      type: ErrorType.notFound,
      loc: [],
    })
  })

  it('empties the cache when the store fails (the write may still have committed), and answers 503', async () => {
    const inner = new MemoryKeyStore()
    // Its feed does not relay the inner store's writes: only the service's own bookkeeping clears the cache.
    const failing: KeyStore = {
      ...delegateTo(inner),
      changes: new KeyChangeHub({ connected: true }),
      deactivateOwnerKeys: async (owner: KeyOwner): Promise<KeyRecord[]> => {
        await inner.deactivateOwnerKeys(owner)
        throw new Error('the connection dropped after the commit')
      },
    }
    const events: KeywardEvent[] = []
    const keyward = createKeyward({ store: failing, cache: {}, onEvent: (event) => events.push(event) })
    const { key } = await keyward.issueProjectKey('proj_a')
    const requirement = { scope: 'project', projectId: 'proj_a' } as const
    await keyward.authenticate({ projectKey: key }, requirement)
    expect(keyward.cacheStats()?.entries).toBe(1)

    await expect(keyward.deactivateOwnerKeys({ type: 'project', id: 'proj_a' })).rejects.toMatchObject({
      type: ErrorType.storeUnavailable,
      status: 503,
    })
    expect(events.at(-1)).toMatchObject({ type: 'store.error', operation: 'deactivateOwnerKeys' })
    expect(keyward.cacheStats()?.entries).toBe(0)
    await expect(keyward.authenticate({ projectKey: key }, requirement)).rejects.toMatchObject({
      type: ErrorType.keyInvalid,
    })
  })

  it('checks the owner, and needs a store that can deactivate an owner', async () => {
    const keyward = createKeyward({ store: new MemoryKeyStore() })
    for (const owner of [null, { type: 'team', id: 'x' }, { type: 'project', id: '' }, { type: 'project' }]) {
      await expect(keyward.deactivateOwnerKeys(owner as never)).rejects.toThrow(
        "deactivateOwnerKeys: expected an owner { type: 'developer' | 'project', id }, the id a non-empty string.",
      )
    }
    const bare = createKeyward({ store: delegateTo(new MemoryKeyStore()) })
    await expect(bare.deactivateOwnerKeys({ type: 'project', id: 'p' })).rejects.toThrow(
      'This key store cannot deactivate an owner (no `deactivateOwnerKeys`).',
    )
  })
})
