// credits.low, credits.exhausted and credits.refilled on the memory store: the testkit's cases,
// then a refill a lease applied first, the threshold's refusals, and no hook without alerts.
import { creditEventCases } from '@keyward/testkit'
import { describe, expect, it } from 'vitest'
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

// The cases every store with webhooks runs, on the memory store: its outbox is what it stored.
creditEventCases(async () => {
  const store = new MemoryKeyStore()
  return {
    store,
    events: async (type) =>
      store.webhooks.outbox
        .filter((event) => event.type === type)
        .map((event) => ({
          developer_id: event.developerId,
          project_id: event.projectId,
          data: { ...event.data },
        })),
  }
})

describe('credit events on the memory store', () => {
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

  it('writes credits.low for a change of credits that leaves the balance low (credits.exhausted at 0), once per period, without a lease', async () => {
    const { keyward, events, writes } = world()
    const { record } = await keyward.issueProjectKey('p1', {
      remaining: 100,
      creditsLowAt: { remaining: 20 },
    })
    await keyward.changeCredits(record.id, { op: 'subtract', amount: 85 })
    await keyward.changeCredits(record.id, { op: 'subtract', amount: 5 })
    await keyward.close()
    expect(events('credits.low').map((event) => event.data.remaining)).toEqual([15])
    expect(events('credits.exhausted')).toEqual([])
    expect(writes.leases).toBe(0)
    const { record: spent } = await keyward.issueProjectKey('p1', {
      remaining: 5,
      creditsLowAt: { remaining: 1 },
    })
    await keyward.changeCredits(spent.id, { op: 'set', remaining: 0 })
    await keyward.close()
    expect(events('credits.exhausted').map((event) => event.data.key_id)).toEqual([spent.id])
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
