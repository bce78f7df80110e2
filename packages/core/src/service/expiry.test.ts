import { describe, expect, it } from 'vitest'
import { MemoryKeyStore } from '../store/memory.js'
import type { KeywardEvent } from './events.js'
import { createKeyward } from './keyward.js'

const NOW = new Date('2025-01-02T03:04:05.000Z')

describe('keyward.setKeyExpiry', () => {
  it('reaches the verification cache at once: a key whose new expiry has passed is refused', async () => {
    let now = NOW
    const events: KeywardEvent[] = []
    const keyward = createKeyward({
      store: new MemoryKeyStore(),
      cache: {},
      now: () => now,
      onEvent: (event) => events.push(event),
    })
    const { key, record } = await keyward.issueDeveloperKey('dev_1')
    const verify = () => keyward.authenticate({ developerKey: key }, { scope: 'developer' })
    await verify()
    await verify()
    expect(keyward.cacheStats()?.entries).toBe(1)
    const expiresAt = new Date(NOW.getTime() + 1000)
    expect((await keyward.setKeyExpiry(record.id, { expiresAt }))?.expiresAt).toEqual(expiresAt)
    expect(events.at(-1)).toEqual({
      type: 'key.expiry_set',
      keyId: record.id,
      keyPrefix: record.keyPrefix,
      ownerType: 'developer',
      ownerId: 'dev_1',
      expiresAt,
    })
    now = new Date(NOW.getTime() + 2000)
    await expect(verify()).rejects.toMatchObject({ type: 'key_invalid' })
    expect(await keyward.setKeyExpiry(crypto.randomUUID(), { expiresAt: null })).toBeNull()
  })

  it('needs exactly one of expiresAt and expiresInDays, and a store with setKeyExpiry', async () => {
    const keyward = createKeyward({ store: new MemoryKeyStore(), now: () => NOW })
    const { record } = await keyward.issueProjectKey('p1')
    await expect(keyward.setKeyExpiry(record.id, {})).rejects.toMatchObject({
      type: 'missing',
      loc: ['body', 'expires_at'],
    })
    await expect(
      keyward.setKeyExpiry(record.id, { expiresAt: null, expiresInDays: 2 }),
    ).rejects.toMatchObject({ type: 'value_error', loc: ['body', 'expires_in_days'] })
    const bare = new MemoryKeyStore()
    Object.defineProperty(bare, 'setKeyExpiry', { value: undefined })
    const without = createKeyward({ store: bare })
    await expect(without.setKeyExpiry(record.id, { expiresInDays: 1 })).rejects.toThrow(
      "This key store cannot set a key's expiry (no `setKeyExpiry`).",
    )
  })
})

describe('keyward.listKeysPage', () => {
  it('pages a store without listKeysPage from listKeysByOwner, in the same order', async () => {
    const store = new MemoryKeyStore()
    const keyward = createKeyward({ store, now: () => NOW })
    for (let i = 0; i < 7; i++) await keyward.issueProjectKey('p1')
    const paged = await keyward.listKeysPage({ type: 'project', id: 'p1' }, { limit: 3 })
    const bare = new MemoryKeyStore({
      records: new Map((await keyward.listKeys({ type: 'project', id: 'p1' })).map((r) => [r.id, r])),
    })
    Object.defineProperty(bare, 'listKeysPage', { value: undefined })
    const fallback = createKeyward({ store: bare })
    const owner = { type: 'project', id: 'p1' } as const
    expect(await fallback.listKeysPage(owner, { limit: 3 })).toEqual(paged)
    const ids: string[] = []
    let page = await fallback.listKeysPage(owner, { limit: 3 })
    ids.push(...page.records.map((r) => r.id))
    while (page.next) {
      page = await fallback.listKeysPage(owner, { limit: 3, after: page.next })
      ids.push(...page.records.map((r) => r.id))
    }
    expect(ids).toEqual(
      (await keyward.listKeys(owner))
        .map((r) => r.id)
        .sort()
        .reverse(),
    )
    await expect(keyward.listKeysPage(owner, { limit: 201 })).rejects.toThrow(TypeError)
    await expect(keyward.listKeysPage(owner, { limit: 0 })).rejects.toThrow(TypeError)
  })
})
