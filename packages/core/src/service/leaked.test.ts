import { describe, expect, it } from 'vitest'
import { hashKey } from '../hash/digest.js'
import { MemoryKeyStore } from '../store/memory.js'
import type { KeywardEvent } from './events.js'
import { createKeyward } from './keyward.js'

function service(store = new MemoryKeyStore()) {
  const events: KeywardEvent[] = []
  return { events, store, keyward: createKeyward({ store, onEvent: (e) => events.push(e) }) }
}

describe('revokeLeakedKeys', () => {
  it('deactivates each known key once, reports every sighting, and answers in the order given', async () => {
    const { keyward, events } = service()
    const a = await keyward.issueProjectKey('proj-1')
    const b = await keyward.issueDeveloperKey('dev-1')
    await keyward.deactivateKey(b.record.id)
    events.length = 0
    const unknown = await hashKey('ak_unknown')
    const results = await keyward.revokeLeakedKeys([
      { hash: a.record.hash, url: 'https://example.com/1', source: 'commit' },
      { hash: unknown },
      { hash: a.record.hash, url: 'https://example.com/2', source: 'npm' },
      { hash: b.record.hash },
    ])
    expect(results.map((r) => [r.hash, r.record?.id ?? null, r.record?.active ?? null, r.revoked])).toEqual([
      [a.record.hash, a.record.id, false, true],
      [unknown, null, null, false],
      [a.record.hash, a.record.id, false, false],
      [b.record.hash, b.record.id, false, false],
    ])
    expect(events.map((e) => [e.type, 'url' in e ? e.url : '', 'revoked' in e ? e.revoked : ''])).toEqual([
      ['key.deactivated', '', ''],
      ['key.leaked', 'https://example.com/1', true],
      ['key.leaked', 'https://example.com/2', false],
      ['key.leaked', '', false],
    ])
  })

  it('of concurrent reports of the same keys, exactly one deactivates each key', async () => {
    const { keyward, events } = service()
    const issued = await Promise.all(Array.from({ length: 30 }, () => keyward.issueProjectKey('proj-1')))
    events.length = 0
    const leaks = issued.map((k) => ({ hash: k.record.hash }))
    const runs = await Promise.all(Array.from({ length: 4 }, () => keyward.revokeLeakedKeys(leaks)))
    const revoked = runs.flat().filter((r) => r.revoked)
    expect(revoked).toHaveLength(30)
    expect(new Set(revoked.map((r) => r.record?.id)).size).toBe(30)
    expect(events.filter((e) => e.type === 'key.deactivated')).toHaveLength(30)
    expect(runs.flat().every((r) => r.record?.active === false)).toBe(true)
  })

  it('makes no store call for an empty batch, and refuses what is not a list of hashes', async () => {
    const { keyward } = service()
    expect(await keyward.revokeLeakedKeys([])).toEqual([])
    await expect(keyward.revokeLeakedKeys([{ hash: 'ak_not_a_hash' }])).rejects.toThrow(TypeError)
    await expect(keyward.revokeLeakedKeys('x' as never)).rejects.toThrow(TypeError)
  })

  it('fails closed with 503 store_unavailable when the store is down', async () => {
    const store = new MemoryKeyStore()
    store.findKeysByHashes = () => Promise.reject(new Error('ECONNREFUSED'))
    const { keyward, events } = service(store)
    await expect(keyward.revokeLeakedKeys([{ hash: await hashKey('x') }])).rejects.toMatchObject({
      type: 'store_unavailable',
      status: 503,
    })
    expect(events).toMatchObject([{ type: 'store.error', operation: 'findKeysByHashes' }])
  })
})
