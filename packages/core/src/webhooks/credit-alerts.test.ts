// credits.low, credits.exhausted and credits.refilled on the memory store: detected on the
// result of a lease, never per request; each once per holder, kind and period.
import { describe, expect, it, vi } from 'vitest'
import { projectGuard } from '../http/guards.js'
import type { KeywardRequest } from '../http/types.js'
import { createKeyward } from '../service/keyward.js'
import { MemoryKeyStore } from '../store/memory.js'
import { createCreditRefills } from './credit-refills.js'

const request = (key: string): KeywardRequest => ({
  method: 'GET',
  url: '/api/v1/projects/p1/reports',
  params: { project_id: 'p1' },
  header: (name) => (name === 'x-api-key' ? key : undefined),
  address: '203.0.113.9',
})

function world(start = '2026-03-10T12:00:00Z') {
  const store = new MemoryKeyStore()
  const clock = { at: new Date(start) }
  const owners = async (id: string) => (id === 'p1' ? 'dev_1' : null)
  const keyward = createKeyward({ store, now: () => clock.at, projectOwner: owners, webhookAlerts: true })
  // Every write of the hot path into the outbox, and every lease, counted.
  const writes = { addEvents: 0, leases: 0 }
  const addEvents = store.webhooks.addEvents.bind(store.webhooks)
  store.webhooks.addEvents = (events) => {
    writes.addEvents += 1
    return addEvents(events)
  }
  const lease = store.leaseCredits.bind(store)
  store.leaseCredits = (...args) => {
    writes.leases += 1
    return lease(...args)
  }
  const events = (type: string) => store.webhooks.outbox.filter((event) => event.type === type)
  const refills = () =>
    createCreditRefills({ store: store.webhooks, projectOwner: owners, now: () => clock.at })
  return { store, clock, keyward, writes, events, refills, guard: projectGuard(keyward) }
}

describe('credit events', () => {
  it('writes one credits.low and one credits.exhausted for many requests, from the leases, never a key or a hash', async () => {
    const { keyward, guard, writes, events } = world()
    const { key, record } = await keyward.issueProjectKey('p1', {
      name: 'ci',
      remaining: 40,
      creditsLowAt: { remaining: 10 },
    })
    const outcomes: boolean[] = []
    for (let i = 0; i < 60; i++) outcomes.push((await guard(request(key))).ok)
    expect(outcomes.filter(Boolean)).toHaveLength(40)
    await keyward.close()
    expect(events('credits.low')).toHaveLength(1)
    expect(events('credits.exhausted')).toHaveLength(1)
    expect(events('credits.low')[0]).toMatchObject({
      developerId: 'dev_1',
      projectId: 'p1',
      data: {
        holder: 'key',
        key_id: record.id,
        key_prefix: record.keyPrefix,
        name: 'ci',
        credits_low_at: { remaining: 10 },
        threshold: 10,
        refill_amount: null,
        period_start: '2026-03-10T00:00:00.000Z',
      },
    })
    expect(events('credits.low')[0]!.data.remaining).toBeLessThanOrEqual(10)
    expect(events('credits.exhausted')[0]!.data.remaining).toBe(0)
    // Below the threshold for 30 requests, refused for 20: one write per kind, not one per request.
    expect(writes.addEvents).toBe(2)
    expect(writes.leases).toBeLessThan(40)
    const text = JSON.stringify([...events('credits.low'), ...events('credits.exhausted')])
    expect(text).not.toContain(key)
    expect(text).not.toContain(record.hash)
  })

  it('writes credits.low once per refill period, and credits.refilled from one scheduler at a time', async () => {
    const { keyward, guard, clock, events, refills } = world('2026-03-10T08:00:00Z')
    const { key, record } = await keyward.issueProjectKey('p1', {
      remaining: 20,
      refill: { amount: 20, interval: 'daily' },
      creditsLowAt: { percent: 25 },
    })
    const [a, b] = [refills(), refills()]
    // The first round sees the key's first period, which no event tells of.
    expect(await a.tick()).toBe(0)
    for (let i = 0; i < 17; i++) expect((await guard(request(key))).ok).toBe(true)
    // Credits given back and spent again in the same period: still one credits.low.
    await keyward.changeCredits(record.id, { op: 'add', amount: 10 })
    for (let i = 0; i < 12; i++) await guard(request(key))
    // Written in the background after the lease that found the balance low.
    await vi.waitFor(() =>
      expect(events('credits.low').map((event) => event.data.period_start)).toEqual([
        '2026-03-10T00:00:00.000Z',
      ]),
    )
    expect(events('credits.low')[0]!.data.threshold).toBe(5)
    clock.at = new Date('2026-03-11T00:00:30Z')
    // Two schedulers at once: one round, the other finds the lock held.
    const round = await Promise.all([a.tick(), b.tick()])
    expect(round.sort()).toEqual([1, null].sort())
    expect(await b.tick()).toBe(0)
    expect(events('credits.refilled')).toHaveLength(1)
    expect(events('credits.refilled')[0]).toMatchObject({
      developerId: 'dev_1',
      data: {
        holder: 'key',
        key_id: record.id,
        key_prefix: record.keyPrefix,
        refill_amount: 20,
        remaining: 20,
        period_start: '2026-03-11T00:00:00.000Z',
      },
    })
    expect((await keyward.findKey(record.id))?.remaining).toBe(20)
    for (let i = 0; i < 20; i++) await guard(request(key))
    await keyward.close()
    expect(events('credits.low').map((event) => event.data.period_start)).toEqual([
      '2026-03-10T00:00:00.000Z',
      '2026-03-11T00:00:00.000Z',
    ])
  })

  it("tells of a refill a lease applied before the scheduler's round", async () => {
    const { keyward, guard, clock, events, refills } = world('2026-03-10T08:00:00Z')
    const { key } = await keyward.issueProjectKey('p1', {
      remaining: 5,
      refill: { amount: 5, interval: 'daily' },
    })
    const scheduler = refills()
    await scheduler.tick()
    clock.at = new Date('2026-03-11T00:00:30Z')
    expect((await guard(request(key))).ok).toBe(true)
    expect(await scheduler.tick()).toBe(1)
    expect(events('credits.refilled')[0]!.data.period_start).toBe('2026-03-11T00:00:00.000Z')
    await keyward.close()
  })

  it("writes an identity pool's events once, whichever of its keys spends", async () => {
    const { keyward, guard, events } = world()
    const identity = await keyward.createIdentity('p1', {
      externalId: 'customer_acme',
      remaining: 12,
      creditsLowAt: { remaining: 4 },
    })
    const keys = [
      await keyward.issueProjectKey('p1', { identityId: identity.id }),
      await keyward.issueProjectKey('p1', { identityId: identity.id }),
    ]
    for (let i = 0; i < 16; i++) await guard(request(keys[i % 2]!.key))
    await keyward.close()
    expect(events('credits.low').map((event) => event.data)).toEqual([
      expect.objectContaining({ holder: 'identity', identity_id: identity.id, threshold: 4 }),
    ])
    expect(events('credits.exhausted').map((event) => event.data.identity_id)).toEqual([identity.id])
  })

  it('refuses a threshold that is not an integer in range, or without the credits it needs, and stores nothing', async () => {
    const { keyward, store } = world()
    const refusals = [
      [{ remaining: 10, creditsLowAt: { percent: 0 } }, 'greater_than_equal', 'percent'],
      [{ remaining: 10, creditsLowAt: { percent: 100 } }, 'less_than_equal', 'percent'],
      [{ remaining: 10, creditsLowAt: { remaining: 1.5 } }, 'int_type', 'remaining'],
      [{ remaining: 10, creditsLowAt: { percent: 10 } }, 'value_error', 'percent'],
      [{ creditsLowAt: { remaining: 5 } }, 'value_error', null],
      [{ remaining: 10, creditsLowAt: { remaining: 5, percent: 5 } }, 'value_error', null],
    ] as const
    for (const [options, type, field] of refusals) {
      await expect(keyward.issueProjectKey('p1', options as never)).rejects.toMatchObject({
        type,
        status: 422,
        loc: field === null ? ['body', 'credits_low_at'] : ['body', 'credits_low_at', field],
      })
    }
    await expect(
      keyward.createIdentity('p1', { externalId: 'x', remaining: 5, creditsLowAt: { percent: 50 } }),
    ).rejects.toMatchObject({ type: 'value_error', status: 422 })
    expect([...store.webhooks.outbox]).toEqual([])
    expect(await keyward.listKeys({ type: 'project', id: 'p1' })).toEqual([])
  })

  it('writes nothing, and hooks nothing into the leases, without webhook alerts', async () => {
    const store = new MemoryKeyStore()
    const keyward = createKeyward({ store, projectOwner: async () => 'dev_1' })
    const { key } = await keyward.issueProjectKey('p1', { remaining: 3, creditsLowAt: { remaining: 2 } })
    for (let i = 0; i < 5; i++) await projectGuard(keyward)(request(key))
    await keyward.close()
    expect(store.webhooks.outbox.filter((event) => event.type.startsWith('credits.'))).toEqual([])
  })
})
