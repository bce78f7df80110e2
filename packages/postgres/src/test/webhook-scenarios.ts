// Webhooks on every driver: the outbox written with its change or not at all (a fault injected
// in the database), at most 10 endpoints a developer under concurrency, deliveries claimed once
// (SKIP LOCKED) and leased (a claimer that dies leaves them due again), and an endpoint disabled
// with its audit row and an `endpoint.disabled` event to the developer's other endpoints.
import {
  createExpiryNotices,
  createKeyward,
  ErrorType,
  endpointDisabledRows,
  MAX_WEBHOOK_ENDPOINTS,
  WebhookEndpoints,
} from '@keyward/core'
import { describe, expect, it } from 'vitest'
import type { Harness } from './harness.js'

const DEVELOPER = 'dev-hooks'

export function webhookScenarios(make: () => Promise<Harness>): void {
  describe('webhooks', () => {
    const world = async () => {
      const harness = await make()
      const projects = new Map([['p1', DEVELOPER]])
      const keyward = createKeyward({ store: harness.store, projectOwner: (id) => projects.get(id) ?? null })
      const endpoints = new WebhookEndpoints(harness.store.webhooks)
      const events = () =>
        harness.sql<{
          type: string
          developer_id: string
          project_id: string | null
          data: Record<string, unknown>
        }>(
          `SELECT type, developer_id, project_id, data FROM "${harness.schema}".webhook_events ORDER BY created_at, id`,
        )
      return { ...harness, keyward, endpoints, events }
    }

    it('writes key.created, key.rolled and key.revoked with their audit rows: ids, prefixes and names, never a key or a hash', async () => {
      const { keyward, events } = await world()
      const { key, record } = await keyward.issueProjectKey('p1', { name: 'ci' })
      const rolled = await keyward.rollKey(record.id)
      await keyward.deactivateKey(rolled!.record.id)
      const written = await events()
      // The roll's two rows share one time: their events, one order or the other.
      expect(written.map((event) => event.type).sort()).toEqual([
        'key.created',
        'key.created',
        'key.revoked',
        'key.rolled',
      ])
      expect(
        written.find((event) => event.data.key_id === record.id && event.type === 'key.created'),
      ).toMatchObject({
        developer_id: DEVELOPER,
        project_id: 'p1',
        data: {
          key_id: record.id,
          key_prefix: record.keyPrefix,
          name: 'ci',
          project_id: 'p1',
          actor: 'system',
        },
      })
      expect(written.find((event) => event.type === 'key.revoked')?.data).toMatchObject({
        key_id: rolled!.record.id,
        name: 'ci',
        revoked_reason: 'revoked',
      })
      const text = JSON.stringify(written)
      expect(text).not.toContain(key)
      expect(text).not.toContain(record.hash)
      expect(text).not.toContain(rolled!.key)
    })

    it('a revocation whose event fails in the database is rolled back with its audit row (fault injected by a trigger)', async () => {
      const { keyward, sql, schema, store, events } = await world()
      const { record } = await keyward.issueProjectKey('p1', { name: 'ci' })
      const head = await store.auditChainHead()
      await sql(`CREATE FUNCTION "${schema}".fail_event() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN RAISE EXCEPTION 'injected: outbox insert fails'; END $$`)
      await sql(`CREATE TRIGGER fail_event BEFORE INSERT ON "${schema}".webhook_events
        FOR EACH ROW EXECUTE FUNCTION "${schema}".fail_event()`)
      await expect(keyward.deactivateKey(record.id)).rejects.toMatchObject({
        type: ErrorType.storeUnavailable,
      })
      expect((await store.findKeyById(record.id))?.active).toBe(true)
      expect(await store.auditChainHead()).toEqual(head)
      expect((await events()).map((event) => event.type)).toEqual(['key.created'])
      // And the other way: the audit row fails, and no event is written.
      await sql(`DROP TRIGGER fail_event ON "${schema}".webhook_events`)
      await sql(`CREATE TRIGGER fail_audit BEFORE INSERT ON "${schema}".audit_log
        FOR EACH ROW EXECUTE FUNCTION "${schema}".fail_event()`)
      await expect(keyward.deactivateKey(record.id)).rejects.toMatchObject({
        type: ErrorType.storeUnavailable,
      })
      expect((await store.findKeyById(record.id))?.active).toBe(true)
      expect((await events()).map((event) => event.type)).toEqual(['key.created'])
    })

    it(`registers at most ${MAX_WEBHOOK_ENDPOINTS} endpoints a developer, also when 14 race`, async () => {
      const { endpoints } = await world()
      const results = await Promise.allSettled(
        Array.from({ length: 14 }, (_, i) =>
          endpoints.create(DEVELOPER, { url: `https://hooks.example.com/${i}` }),
        ),
      )
      expect(results.filter((result) => result.status === 'fulfilled')).toHaveLength(MAX_WEBHOOK_ENDPOINTS)
      for (const result of results.filter((result) => result.status === 'rejected')) {
        expect(result.reason).toMatchObject({ type: ErrorType.limitExceeded, status: 409 })
      }
      const listed = await endpoints.list(DEVELOPER)
      expect(listed).toHaveLength(MAX_WEBHOOK_ENDPOINTS)
      expect(listed[0]?.secret).toMatch(/^whsec_[A-Za-z0-9+/]{32}$/)
      expect(await endpoints.list('dev-other')).toEqual([])
    })

    it('rolls a secret: both sign in the grace window, the new one alone after it', async () => {
      const { endpoints, store } = await world()
      const created = await endpoints.create(DEVELOPER, { url: 'https://hooks.example.com/a' })
      const rolled = await endpoints.rollSecret(DEVELOPER, created.id, 60)
      expect(rolled.secret).not.toBe(created.secret)
      expect(rolled.previousSecret).toBe(created.secret)
      const now = new Date()
      const { signingSecrets } = await import('@keyward/core')
      expect(signingSecrets(rolled, now)).toEqual([rolled.secret, created.secret])
      expect(signingSecrets(rolled, new Date(now.getTime() + 61_000))).toEqual([rolled.secret])
      expect(await store.webhooks.findEndpoint(created.id)).toEqual(rolled)
    })

    it('fans an event out to the endpoints whose filters take it, and claims each delivery once, leased', async () => {
      const { keyward, endpoints, store } = await world()
      const all = await endpoints.create(DEVELOPER, { url: 'https://hooks.example.com/all' })
      const onlyP2 = await endpoints.create(DEVELOPER, {
        url: 'https://hooks.example.com/p2',
        projectIds: ['p2'],
      })
      const onlyRevoked = await endpoints.create(DEVELOPER, {
        url: 'https://hooks.example.com/revoked',
        eventTypes: ['key.revoked'],
      })
      await endpoints.create('dev-other', { url: 'https://hooks.example.com/other' })
      const { record } = await keyward.issueProjectKey('p1', { name: 'ci' })
      await keyward.deactivateKey(record.id)
      const now = new Date()
      expect(await store.webhooks.fanOutEvents(100, now)).toBe(2)
      expect(await store.webhooks.fanOutEvents(100, now)).toBe(0)
      // Two claimers at once: each delivery goes to one of them.
      const [a, b] = await Promise.all([
        store.webhooks.claimDeliveries(2, now, 30_000),
        store.webhooks.claimDeliveries(2, now, 30_000),
      ])
      const claimed = [...a!, ...b!]
      expect(claimed.map((delivery) => `${delivery.endpoint.id} ${delivery.event.type}`).sort()).toEqual(
        [`${all.id} key.created`, `${all.id} key.revoked`, `${onlyRevoked.id} key.revoked`].sort(),
      )
      expect(new Set(claimed.map((delivery) => delivery.id)).size).toBe(3)
      expect(claimed.some((delivery) => delivery.endpoint.id === onlyP2.id)).toBe(false)
      expect(claimed[0]?.endpoint.secrets).toHaveLength(1)
      // Leased: nobody claims them again until the lease ends; then they are due again (a claimer died).
      expect(await store.webhooks.claimDeliveries(10, new Date(now.getTime() + 29_000), 30_000)).toEqual([])
      const again = await store.webhooks.claimDeliveries(10, new Date(now.getTime() + 30_000), 30_000)
      expect(again.map((delivery) => delivery.id).sort()).toEqual(
        claimed.map((delivery) => delivery.id).sort(),
      )
      expect(again.every((delivery) => delivery.attempts === 1)).toBe(true)
    })

    it('logs attempts, retries, and disables an endpoint with its audit row and an endpoint.disabled event to the others', async () => {
      const { keyward, endpoints, store, events } = await world()
      const failing = await endpoints.create(DEVELOPER, { url: 'https://hooks.example.com/down' })
      const healthy = await endpoints.create(DEVELOPER, { url: 'https://hooks.example.com/up' })
      await keyward.issueProjectKey('p1', { name: 'ci' })
      const t0 = new Date()
      await store.webhooks.fanOutEvents(10, t0)
      const [first, second] = await store.webhooks.claimDeliveries(10, t0, 30_000)
      const down = first!.endpoint.id === failing.id ? first! : second!
      const up = first!.endpoint.id === failing.id ? second! : first!
      const attempt = { at: t0, durationMs: 12, status: 500, response: 'boom' }
      await store.webhooks.finishDelivery(down, attempt, {
        state: 'retry',
        retryAt: new Date(t0.getTime() + 5_000),
      })
      await store.webhooks.finishDelivery(
        up,
        { ...attempt, status: 204, response: '' },
        { state: 'delivered' },
      )
      expect((await store.webhooks.findEndpoint(failing.id))?.failingSince).toEqual(t0)
      expect((await store.webhooks.findEndpoint(healthy.id))?.failingSince).toBeNull()
      expect(await store.webhooks.listAttempts(failing.id, 10)).toEqual([
        expect.objectContaining({ status: 500, durationMs: 12, response: 'boom', eventType: 'key.created' }),
      ])
      // Five days later it fails again: disabled, with its row and an event for the healthy one.
      const later = new Date(t0.getTime() + 5 * 86_400_000)
      const [retried] = await store.webhooks.claimDeliveries(10, later, 30_000)
      expect(retried?.id).toBe(down.id)
      await store.webhooks.finishDelivery(
        retried!,
        { ...attempt, at: later },
        { state: 'failed' },
        endpointDisabledRows(later),
      )
      expect((await store.webhooks.findEndpoint(failing.id))?.disabledAt).toEqual(later)
      const page = await keyward.listAudit(DEVELOPER)
      expect(page.records[0]).toMatchObject({ action: 'webhook_endpoint.disabled', targetId: failing.id })
      expect((await events()).at(-1)).toMatchObject({
        type: 'endpoint.disabled',
        data: { endpoint_id: failing.id, url: 'https://hooks.example.com/down' },
      })
      await store.webhooks.fanOutEvents(10, later)
      const disabledEvent = await store.webhooks.claimDeliveries(10, later, 30_000)
      expect(disabledEvent.map((delivery) => [delivery.endpoint.id, delivery.event.type])).toEqual([
        [healthy.id, 'endpoint.disabled'],
      ])
      expect(await endpoints.update(DEVELOPER, failing.id, { disabled: false })).toMatchObject({
        disabledAt: null,
        failingSince: null,
      })
      await expect(endpoints.get('dev-other', failing.id)).rejects.toMatchObject({ type: ErrorType.notFound })
      await endpoints.delete(DEVELOPER, failing.id)
      expect(await store.webhooks.findEndpoint(failing.id)).toBeNull()
    })

    it("audits an endpoint's writes in their transaction: a failing audit row leaves no endpoint (fault injected)", async () => {
      const { keyward, endpoints, sql, schema, store } = await world()
      const operator = { actor: { type: 'operator' as const, name: 'ops' } }
      const created = await endpoints.create(DEVELOPER, { url: 'https://hooks.example.com/a' }, operator)
      await endpoints.update(DEVELOPER, created.id, { description: 'billing' }, operator)
      const rolled = await endpoints.rollSecret(DEVELOPER, created.id, 60, operator)
      await endpoints.delete(DEVELOPER, created.id, operator)
      const rows = (await keyward.listAudit(DEVELOPER)).records
      expect(rows.map((row) => [row.action, row.targetId, row.actor])).toEqual(
        ['deleted', 'secret_rolled', 'updated', 'created'].map((action) => [
          `webhook_endpoint.${action}`,
          created.id,
          operator.actor,
        ]),
      )
      expect(rows[2]).toMatchObject({ before: { description: null }, after: { description: 'billing' } })
      expect(JSON.stringify(rows)).not.toContain(rolled.secret)
      expect(JSON.stringify(rows)).not.toContain(created.secret)
      await sql(`CREATE FUNCTION "${schema}".fail_audit() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN RAISE EXCEPTION 'injected: audit insert fails'; END $$`)
      await sql(`CREATE TRIGGER fail_audit BEFORE INSERT ON "${schema}".audit_log
        FOR EACH ROW EXECUTE FUNCTION "${schema}".fail_audit()`)
      await expect(endpoints.create(DEVELOPER, { url: 'https://hooks.example.com/b' })).rejects.toThrow(
        /injected/,
      )
      expect(await store.webhooks.listEndpoints(DEVELOPER)).toEqual([])
    })

    it('redelivers one event or a time range to one endpoint, and sends a test event to it alone', async () => {
      const { keyward, endpoints, store } = await world()
      const hook = await endpoints.create(DEVELOPER, {
        url: 'https://hooks.example.com/a',
        eventTypes: ['key.revoked'],
      })
      const other = await endpoints.create(DEVELOPER, { url: 'https://hooks.example.com/b' })
      const { record } = await keyward.issueProjectKey('p1', { name: 'ci' })
      await keyward.deactivateKey(record.id)
      const now = new Date()
      await store.webhooks.fanOutEvents(10, now)
      for (const delivery of await store.webhooks.claimDeliveries(10, now, 30_000)) {
        const attempt = { at: now, status: 200, durationMs: 3, response: 'ok' }
        await store.webhooks.finishDelivery(delivery, attempt, { state: 'delivered' })
      }
      const sent = await endpoints.attempts(DEVELOPER, hook.id)
      expect(sent.map((attempt) => attempt.eventType)).toEqual(['key.revoked'])
      expect(await endpoints.redeliver(DEVELOPER, hook.id, { eventId: sent[0]!.eventId })).toBe(1)
      // key.created is not one the endpoint takes: not found for it.
      const created = (await endpoints.attempts(DEVELOPER, other.id)).find(
        (attempt) => attempt.eventType === 'key.created',
      )!
      await expect(
        endpoints.redeliver(DEVELOPER, hook.id, { eventId: created.eventId }),
      ).rejects.toMatchObject({
        type: ErrorType.notFound,
      })
      const again = await store.webhooks.claimDeliveries(10, new Date(), 30_000)
      expect(again.map((delivery) => [delivery.endpoint.id, delivery.event.type, delivery.attempts])).toEqual(
        [[hook.id, 'key.revoked', 0]],
      )
      const range = { from: new Date(now.getTime() - 60_000), to: new Date(now.getTime() + 60_000) }
      expect(await endpoints.redeliver(DEVELOPER, other.id, range)).toBe(2)
      const test = await endpoints.sendTest(DEVELOPER, hook.id)
      const due = await store.webhooks.claimDeliveries(10, new Date(), 30_000)
      expect(due.map((delivery) => `${delivery.endpoint.id} ${delivery.event.type}`).sort()).toEqual(
        [`${other.id} key.created`, `${other.id} key.revoked`, `${hook.id} webhook.test`].sort(),
      )
      expect(due.find((delivery) => delivery.event.id === test.id)?.event.data).toMatchObject({
        endpoint_id: hook.id,
      })
      // A range sends the test event again only to the endpoint it was for.
      expect(await endpoints.redeliver(DEVELOPER, other.id, range)).toBe(2)
      expect(await endpoints.redeliver(DEVELOPER, hook.id, range)).toBe(2)
    })

    it('sends key.expiring and key.expired from one scheduler at a time, each once per key and threshold, also after a restart', async () => {
      const { keyward, store, events } = await world()
      const t0 = new Date()
      const at = (days: number) => new Date(t0.getTime() + days * 86_400_000)
      const soon = await keyward.issueProjectKey('p1', { name: 'ci', expiresAt: at(10) })
      const today = await keyward.issueDeveloperKey(DEVELOPER, { expiresAt: at(0.5) })
      const week = await keyward.issueProjectKey('p1', { expiresAt: at(5) })
      const revoked = await keyward.issueProjectKey('p1', { expiresAt: at(2) })
      await keyward.deactivateKey(revoked.record.id)
      await keyward.issueProjectKey('p1', { expiresAt: at(40) })
      // Two schedulers (two processes' worth) share the store; the owner lookup is slow, so the
      // first holds the lock while the second tries.
      let clock = t0
      const scheduler = () =>
        createExpiryNotices({
          store: store.webhooks,
          projectOwner: async (id) => {
            await new Promise((resolve) => setTimeout(resolve, 300))
            return id === 'p1' ? DEVELOPER : null
          },
          now: () => clock,
        })
      const [a, b] = [scheduler(), scheduler()]
      const expiry = async () =>
        (await events())
          .filter((event) => event.type === 'key.expiring' || event.type === 'key.expired')
          .map((event) => [event.type, event.data.key_id, event.data.days_before ?? null])
      // On PostgreSQL the second finds the lock held (null); PGlite's one connection runs the two
      // rounds in turn, and the second finds the events written (0). Never both write.
      const round = await Promise.all([a.tick(), b.tick()])
      expect(round.filter((count) => count === 2)).toHaveLength(1)
      expect([null, 0]).toContain(round.find((count) => count !== 2))
      expect((await expiry()).map((row) => row.join(' ')).sort()).toEqual(
        [`key.expiring ${today.record.id} 1`, `key.expiring ${week.record.id} 7`].sort(),
      )
      // The same time again, and a restarted scheduler: nothing new.
      expect(await a.tick()).toBe(0)
      expect(await scheduler().tick()).toBe(0)
      clock = at(3.5)
      expect(await b.tick()).toBe(2)
      clock = at(9.5)
      expect(await scheduler().tick()).toBe(2)
      expect(await a.tick()).toBe(0)
      clock = at(10.5)
      expect(await b.tick()).toBe(1)
      expect((await expiry()).map((row) => row.join(' ')).sort()).toEqual(
        [
          `key.expiring ${today.record.id} 1`,
          `key.expired ${today.record.id} `,
          `key.expiring ${week.record.id} 7`,
          `key.expired ${week.record.id} `,
          `key.expiring ${soon.record.id} 7`,
          `key.expiring ${soon.record.id} 1`,
          `key.expired ${soon.record.id} `,
        ].sort(),
      )
      const written = (await events()).find(
        (event) => event.type === 'key.expired' && event.data.key_id === soon.record.id,
      )
      expect(written).toMatchObject({
        developer_id: DEVELOPER,
        project_id: 'p1',
        data: {
          key_prefix: soon.record.keyPrefix,
          name: 'ci',
          developer_id: DEVELOPER,
          project_id: 'p1',
          expires_at: at(10).toISOString(),
          actor: 'system',
        },
      })
      expect(JSON.stringify(await events())).not.toContain(soon.key)
      expect(JSON.stringify(await events())).not.toContain(soon.record.hash)
    })
  })
}
