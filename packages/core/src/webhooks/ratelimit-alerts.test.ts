import { describe, expect, it } from 'vitest'
import { projectGuard } from '../http/guards.js'
import type { KeywardRequest } from '../http/types.js'
import { createKeyward } from '../service/keyward.js'
import { MemoryKeyStore } from '../store/memory.js'
import type { KeyRecord } from '../store/types.js'
import { rateLimitAlerts } from './ratelimit-alerts.js'

const request = (key: string): KeywardRequest => ({
  method: 'GET',
  url: '/api/v1/projects/p1/reports',
  params: { project_id: 'p1' },
  header: (name) => (name === 'x-api-key' ? key : undefined),
  address: '203.0.113.9',
})

describe('ratelimit.exceeded from the stored rate limits', () => {
  it('counts refusals in memory and writes one event per key, limit and minute, with the count, after the minute', async () => {
    const store = new MemoryKeyStore()
    let clock = new Date('2026-03-10T12:00:10Z')
    const keyward = createKeyward({
      store,
      now: () => clock,
      projectOwner: async (id) => (id === 'p1' ? 'dev_1' : null),
      webhookAlerts: true,
    })
    const { key, record } = await keyward.issueProjectKey('p1', {
      name: 'ci',
      ratelimits: [{ name: 'requests', limit: 2, duration: 60_000 }],
    })
    const guard = projectGuard(keyward)
    const outcomes = []
    for (let i = 0; i < 6; i++) outcomes.push((await guard(request(key))).ok)
    expect(outcomes).toEqual([true, true, false, false, false, false])
    const alerts = () => store.webhooks.outbox.filter((event) => event.type === 'ratelimit.exceeded')
    // Nothing written per request: the minute is not over.
    expect(alerts()).toEqual([])
    clock = new Date('2026-03-10T12:01:30Z')
    const next = []
    for (let i = 0; i < 3; i++) next.push((await guard(request(key))).ok)
    expect(next).toEqual([true, true, false])
    // A clean stop writes what is counted (a running process, a second after each minute).
    await keyward.close()
    expect(alerts().map((event) => [event.data.window_start, event.data.count])).toEqual([
      ['2026-03-10T12:00:00.000Z', 4],
      ['2026-03-10T12:01:00.000Z', 1],
    ])
    expect(alerts()[0]).toMatchObject({
      developerId: 'dev_1',
      projectId: 'p1',
      data: {
        key_id: record.id,
        key_prefix: record.keyPrefix,
        name: 'ci',
        limit_name: 'requests',
        limit: 2,
        duration_ms: 60_000,
        developer_id: 'dev_1',
      },
    })
    expect(JSON.stringify(alerts())).not.toContain(key)
    expect(JSON.stringify(alerts())).not.toContain(record.hash)
    // Written again (another process's minute, or a retry): taken once.
    expect(await store.webhooks.addEvents(alerts())).toBe(0)
  })

  it('writes nothing without the option', async () => {
    const store = new MemoryKeyStore()
    const keyward = createKeyward({ store, projectOwner: async () => 'dev_1' })
    const { key } = await keyward.issueProjectKey('p1', {
      ratelimits: [{ name: 'requests', limit: 1, duration: 60_000 }],
    })
    const guard = projectGuard(keyward)
    for (let i = 0; i < 3; i++) await guard(request(key))
    await keyward.close()
    expect(store.webhooks.outbox.filter((event) => event.type === 'ratelimit.exceeded')).toEqual([])
  })
  it('writes only the minutes that are over, until a clean stop writes the rest', async () => {
    const store = new MemoryKeyStore()
    let now = Date.parse('2026-03-10T12:00:10Z')
    const alerts = rateLimitAlerts(
      store.webhooks,
      async () => () => 'dev_1',
      () => now,
      (error) => {
        throw error
      },
    )
    const key = {
      id: 'k1',
      keyPrefix: 'ak_Ab3xY',
      name: null,
      ownerType: 'developer',
      ownerId: 'dev_1',
    } as KeyRecord
    const limit = { name: 'requests', limit: 1, duration: 1000 }
    alerts.note(key, 'key', limit)
    now += 60_000
    alerts.note(key, 'key', limit)
    alerts.note(key, 'key', limit)
    await alerts.flush()
    expect(store.webhooks.outbox.map((event) => event.data.count)).toEqual([1])
    await alerts.flush(true)
    expect(store.webhooks.outbox.map((event) => event.data.count)).toEqual([1, 2])
  })
})
