// credits.low, credits.exhausted and credits.refilled on a store with webhooks: the threshold
// stored and read back, the events seen on leases (one write per kind and period, never one per
// request), and the refills of one scheduler at a time, in the transaction of their events.
import {
  createCreditRefills,
  createKeyward,
  type KeyStore,
  projectGuard,
  type WebhookStore,
} from '@keyward/core'
import { describe, expect, it, vi } from 'vitest'

/** An event of the outbox as the credit cases read it. */
export interface OutboxEvent {
  readonly developer_id: string
  readonly project_id: string | null
  readonly data: Record<string, unknown>
}

/** What the credit-event cases run on: a store that keeps credits, identities and webhooks. */
export interface CreditEventHarness {
  readonly store: KeyStore & { readonly webhooks: WebhookStore }
  /** The events of a type in the store's outbox, oldest first, read from storage. */
  events(type: string): Promise<OutboxEvent[]>
}

const DEVELOPER = 'dev-credits'

const request = (key: string) => ({
  method: 'GET',
  url: '/api/v1/projects/p1/reports',
  params: { project_id: 'p1' },
  header: (name: string) => (name === 'x-api-key' ? key : undefined),
  address: '203.0.113.9',
})

/**
 * The cases of the webhook events of credits, for a store with `webhooks`, `leaseCredits` and
 * `identities`: one `credits.low` and one `credits.exhausted` for many requests (two writes in
 * all), the threshold kept, one scheduler's refills with one `credits.refilled` per period, and an
 * identity pool's events once.
 *
 * @example
 * ```ts
 * creditEventCases(async () => ({ store, events: (type) => readOutbox(type) }))
 * ```
 */
export function creditEventCases(make: () => Promise<CreditEventHarness>): void {
  describe('credit events', () => {
    const world = async (start: string) => {
      const harness = await make()
      const clock = { at: new Date(start) }
      const projectOwner = async (id: string) => (id === 'p1' ? DEVELOPER : null)
      const keyward = createKeyward({
        store: harness.store,
        now: () => clock.at,
        projectOwner,
        webhookAlerts: true,
      })
      const counted = { addEvents: 0, leases: 0 }
      const { webhooks } = harness.store
      const addEvents = webhooks.addEvents.bind(webhooks)
      webhooks.addEvents = (events) => {
        counted.addEvents += 1
        return addEvents(events)
      }
      const lease = harness.store.leaseCredits!.bind(harness.store)
      harness.store.leaseCredits = (...args) => {
        counted.leases += 1
        return lease(...args)
      }
      const guard = projectGuard(keyward)
      return { ...harness, keyward, clock, counted, guard, projectOwner }
    }

    it('stores the threshold of a key and of an identity, and reads it back', async () => {
      const { keyward, store } = await world('2026-03-10T12:00:00Z')
      const { record } = await keyward.issueProjectKey('p1', {
        remaining: 100,
        refill: { amount: 100, interval: 'monthly', day: 1 },
        creditsLowAt: { percent: 20 },
      })
      expect((await store.findKeyById(record.id))?.creditsLowAt).toEqual({ percent: 20 })
      const plain = await keyward.issueProjectKey('p1', { remaining: 5 })
      expect((await store.findKeyById(plain.record.id))?.creditsLowAt).toBeUndefined()
      const identity = await keyward.createIdentity('p1', {
        externalId: 'customer_acme',
        remaining: 50,
        creditsLowAt: { remaining: 5 },
      })
      expect((await store.identities!.findIdentity(identity.id))?.creditsLowAt).toEqual({ remaining: 5 })
    })

    it('writes one credits.low and one credits.exhausted from the leases of 60 requests, never a key or a hash', async () => {
      const { keyward, guard, counted, events } = await world('2026-03-10T12:00:00Z')
      const { key, record } = await keyward.issueProjectKey('p1', {
        name: 'ci',
        remaining: 40,
        creditsLowAt: { remaining: 10 },
      })
      const outcomes: boolean[] = []
      for (let i = 0; i < 60; i++) outcomes.push((await guard(request(key))).ok)
      expect(outcomes.filter(Boolean)).toHaveLength(40)
      await keyward.close()
      const low = await events('credits.low')
      const exhausted = await events('credits.exhausted')
      expect(low).toHaveLength(1)
      expect(exhausted).toHaveLength(1)
      expect(low[0]).toMatchObject({
        developer_id: DEVELOPER,
        project_id: 'p1',
        data: {
          holder: 'key',
          key_id: record.id,
          key_prefix: record.keyPrefix,
          name: 'ci',
          threshold: 10,
          credits_low_at: { remaining: 10 },
          period_start: '2026-03-10T00:00:00.000Z',
        },
      })
      expect(exhausted[0]!.data.remaining).toBe(0)
      // 30 requests at or below the threshold and 20 refused: two writes in all, on two leases.
      expect(counted.addEvents).toBe(2)
      expect(counted.leases).toBeLessThan(40)
      const text = JSON.stringify([...low, ...exhausted])
      expect(text).not.toContain(key)
      expect(text).not.toContain(record.hash)
    })

    it("refills from one scheduler at a time, with one credits.refilled per period, and a new period's credits.low", async () => {
      const { keyward, guard, clock, events, store, projectOwner } = await world('2026-03-10T08:00:00Z')
      const { key, record } = await keyward.issueProjectKey('p1', {
        remaining: 20,
        refill: { amount: 20, interval: 'daily' },
        creditsLowAt: { percent: 25 },
      })
      const identity = await keyward.createIdentity('p1', {
        externalId: 'customer_acme',
        remaining: 8,
        refill: { amount: 8, interval: 'daily' },
      })
      // The owner lookup is slow: the first scheduler holds the lock while the second tries.
      const scheduler = () =>
        createCreditRefills({
          store: store.webhooks,
          projectOwner: async (id) => {
            await new Promise((resolve) => setTimeout(resolve, 200))
            return projectOwner(id)
          },
          now: () => clock.at,
        })
      const [a, b] = [scheduler(), scheduler()]
      // The first round sees the first periods, which no event tells of.
      expect(await a.tick()).toBe(0)
      for (let i = 0; i < 20; i++) await guard(request(key))
      await vi.waitFor(async () => expect(await events('credits.low')).toHaveLength(1))
      clock.at = new Date('2026-03-11T00:00:30Z')
      // The second finds the lock held (null), or, on a store that runs the two rounds in turn
      // (PGlite's one connection), nothing due (0). Never both write.
      const round = await Promise.all([a.tick(), b.tick()])
      expect(round.filter((count) => count === 2)).toHaveLength(1)
      expect([null, 0]).toContain(round.find((count) => count !== 2))
      expect(await b.tick()).toBe(0)
      const refilled = await events('credits.refilled')
      expect(
        refilled.map((event) => event.data).sort((x, y) => String(x.holder).localeCompare(String(y.holder))),
      ).toEqual([
        expect.objectContaining({
          holder: 'identity',
          identity_id: identity.id,
          external_id: 'customer_acme',
          refill_amount: 8,
          remaining: 8,
        }),
        expect.objectContaining({
          holder: 'key',
          key_id: record.id,
          key_prefix: record.keyPrefix,
          refill_amount: 20,
          remaining: 20,
          period_start: '2026-03-11T00:00:00.000Z',
        }),
      ])
      // Applied by the round, in its transaction: the balance is back before any lease.
      expect((await store.findKeyById(record.id))?.remaining).toBe(20)
      for (let i = 0; i < 20; i++) await guard(request(key))
      await keyward.close()
      expect((await events('credits.low')).map((event) => event.data.period_start)).toEqual([
        '2026-03-10T00:00:00.000Z',
        '2026-03-11T00:00:00.000Z',
      ])
    })

    it("writes an identity pool's credits.low and credits.exhausted once, whichever of its keys spends", async () => {
      const { keyward, guard, events } = await world('2026-03-10T12:00:00Z')
      const identity = await keyward.createIdentity('p1', {
        externalId: 'customer_pool',
        remaining: 12,
        creditsLowAt: { remaining: 4 },
      })
      const keys = [
        await keyward.issueProjectKey('p1', { identityId: identity.id }),
        await keyward.issueProjectKey('p1', { identityId: identity.id }),
      ]
      for (let i = 0; i < 16; i++) await guard(request(keys[i % 2]!.key))
      await keyward.close()
      expect((await events('credits.low')).map((event) => event.data)).toEqual([
        expect.objectContaining({ holder: 'identity', identity_id: identity.id, threshold: 4 }),
      ])
      expect((await events('credits.exhausted')).map((event) => event.data.identity_id)).toEqual([
        identity.id,
      ])
    })
  })
}
