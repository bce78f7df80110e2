import { describe, expect, it } from 'vitest'
import { createKeyward } from '../service/keyward.js'
import { MemoryKeyStore } from '../store/memory.js'
import { createExpiryNotices } from './expiry.js'

const DAY = 86_400_000
const T0 = new Date('2026-03-10T12:00:00Z')

describe('createExpiryNotices on the memory store', () => {
  it('lets one of two schedulers run a round at a time, and writes each event once', async () => {
    const store = new MemoryKeyStore()
    const keyward = createKeyward({ store, now: () => T0, projectOwner: async () => 'dev_1' })
    const { record } = await keyward.issueProjectKey('p1', { expiresAt: new Date(T0.getTime() + 3 * DAY) })
    let clock = T0
    let release: () => void = () => {}
    const held = new Promise<void>((resolve) => {
      release = resolve
    })
    // The first scheduler's owner lookup waits until released: it holds the round meanwhile.
    const slow = createExpiryNotices({
      store: store.webhooks,
      projectOwner: async () => {
        await held
        return 'dev_1'
      },
      now: () => clock,
    })
    const other = createExpiryNotices({
      store: store.webhooks,
      projectOwner: async () => 'dev_1',
      now: () => clock,
    })
    const first = slow.tick()
    expect(await other.tick()).toBeNull()
    release()
    expect(await first).toBe(1)
    expect(await other.tick()).toBe(0)
    clock = new Date(T0.getTime() + 2.5 * DAY)
    expect(await other.tick()).toBe(1)
    clock = new Date(T0.getTime() + 4 * DAY)
    expect(await slow.tick()).toBe(1)
    expect(await other.tick()).toBe(0)
    const expiry = store.webhooks.outbox.filter((event) => event.type !== 'key.created')
    expect(expiry.map((event) => [event.type, event.data.days_before ?? null])).toEqual([
      ['key.expiring', 7],
      ['key.expiring', 1],
      ['key.expired', null],
    ])
    expect(expiry[0]).toMatchObject({
      developerId: 'dev_1',
      projectId: 'p1',
      data: { key_id: record.id, key_prefix: record.keyPrefix, expires_at: record.expiresAt?.toISOString() },
    })
  })

  it('refuses thresholds past the 30 days the outbox keeps its record, naming the option', () => {
    const store = new MemoryKeyStore()
    expect(() => createExpiryNotices({ store: store.webhooks, thresholdsDays: [45] })).toThrow(
      /option `thresholdsDays` must be days from more than 0 to 30, got 45/,
    )
    expect(() => createExpiryNotices({ store: store.webhooks, lookbackDays: 0 })).toThrow(/`lookbackDays`/)
    expect(() => createExpiryNotices({ store: store.webhooks, thresholdsDays: [] })).toThrow(/is empty/)
  })
})
