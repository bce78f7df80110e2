import { createKeyward, MemoryKeyStore, WebhookEndpoints } from '@keyward/core'
import { Webhook } from 'standardwebhooks'
import { afterEach, describe, expect, it } from 'vitest'
import { createWebhookDispatcher, type WebhookDispatcherEvent } from './dispatcher.js'
import { type Answer, type Received, receiver } from './test/receiver.js'

const headersOf = (received: Received) => ({
  'webhook-id': String(received.headers['webhook-id']),
  'webhook-timestamp': String(received.headers['webhook-timestamp']),
  'webhook-signature': String(received.headers['webhook-signature']),
})

async function world(answer?: (request: Received, index: number) => Answer) {
  const target = await receiver(answer)
  const store = new MemoryKeyStore()
  const keyward = createKeyward({ store, projectOwner: (id) => (id === 'p1' ? 'dev-1' : null) })
  const endpoints = new WebhookEndpoints(store.webhooks, { allowHttp: true })
  const endpoint = await endpoints.create('dev-1', { url: target.url })
  const events: WebhookDispatcherEvent[] = []
  // A dispatcher on a clock the test moves, which never wakes by itself.
  const stepped = (clock: () => Date, random?: () => number) =>
    createWebhookDispatcher({
      store: store.webhooks,
      allowHttp: true,
      allowPrivate: true,
      now: clock,
      ...(random ? { random } : {}),
      onEvent: (event) => events.push(event),
      pollMs: 60_000,
    })
  return { target, store, keyward, endpoints, endpoint, events, stepped }
}

describe('the webhook dispatcher', () => {
  const open: { close(): Promise<void> }[] = []
  afterEach(async () => {
    for (const item of open.splice(0)) await item.close()
  })

  it('delivers key.revoked signed per Standard Webhooks: the standardwebhooks library verifies it with the secret', async () => {
    const { target, keyward, endpoint, store } = await world()
    open.push(target)
    const { record, key } = await keyward.issueProjectKey('p1', { name: 'ci' })
    await keyward.deactivateKey(record.id)
    const dispatcher = createWebhookDispatcher({ store: store.webhooks, allowHttp: true, allowPrivate: true })
    open.push({ close: () => dispatcher.stop() })
    await expect.poll(() => target.received.length).toBe(2)
    const revoked = target.received.find((received) => JSON.parse(received.body).type === 'key.revoked')!
    const verified = new Webhook(endpoint.secret).verify(revoked.body, headersOf(revoked))
    expect(verified).toEqual({
      type: 'key.revoked',
      timestamp: expect.any(String),
      data: expect.objectContaining({
        key_id: record.id,
        key_prefix: record.keyPrefix,
        name: 'ci',
        project_id: 'p1',
      }),
    })
    expect(revoked.headers['webhook-id']).toMatch(/^msg_[0-9a-f]{32}$/)
    expect(revoked.body).not.toContain(key)
    expect(revoked.body).not.toContain(record.hash)
    // Tampered, or signed by another secret: refused.
    expect(() =>
      new Webhook(endpoint.secret).verify(revoked.body.replace('ci', 'cj'), headersOf(revoked)),
    ).toThrow()
    expect(() =>
      new Webhook('whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw').verify(revoked.body, headersOf(revoked)),
    ).toThrow()
  })

  it('sends key.expiring and key.expired once each, looking for them once a minute', async () => {
    const { target, keyward, endpoint } = await world()
    open.push(target)
    const t0 = new Date()
    const { record } = await keyward.issueProjectKey('p1', { expiresAt: new Date(t0.getTime() + 86_400_000) })
    let clock = t0
    const dispatcher = createWebhookDispatcher({
      store: keyward.store.webhooks!,
      allowHttp: true,
      allowPrivate: true,
      now: () => clock,
      expiry: { projectOwner: async (id) => (id === 'p1' ? 'dev-1' : null) },
      pollMs: 60_000,
    })
    open.push({ close: () => dispatcher.stop() })
    const types = () => target.received.map((received) => JSON.parse(received.body).type).sort()
    await expect.poll(types).toEqual(['key.created', 'key.expiring'])
    clock = new Date(t0.getTime() + 86_400_000 + 1_000)
    await dispatcher.runOnce()
    await dispatcher.runOnce()
    // A minute later, looked for again: nothing new.
    clock = new Date(clock.getTime() + 60_000)
    await dispatcher.runOnce()
    await dispatcher.runOnce()
    expect(types()).toEqual(['key.created', 'key.expired', 'key.expiring'])
    const expiring = target.received.find((received) => JSON.parse(received.body).type === 'key.expiring')!
    expect(new Webhook(endpoint.secret).verify(expiring.body, headersOf(expiring))).toMatchObject({
      data: { key_id: record.id, key_prefix: record.keyPrefix, days_before: 1, developer_id: 'dev-1' },
    })
  })

  it('signs with both secrets in a roll’s grace window: a receiver with either verifies', async () => {
    const { target, keyward, endpoints, endpoint, store } = await world()
    open.push(target)
    const rolled = await endpoints.rollSecret('dev-1', endpoint.id, 3600)
    await keyward.issueProjectKey('p1')
    await createWebhookDispatcher({ store: store.webhooks, allowHttp: true, allowPrivate: true }).stop()
    const dispatcher = createWebhookDispatcher({ store: store.webhooks, allowHttp: true, allowPrivate: true })
    await dispatcher.runOnce()
    await dispatcher.stop()
    const [received] = target.received
    expect(String(received?.headers['webhook-signature']).split(' ')).toHaveLength(2)
    for (const secret of [endpoint.secret, rolled.secret]) {
      expect(() => new Webhook(secret).verify(received!.body, headersOf(received!))).not.toThrow()
    }
  })

  it('retries a failed attempt with backoff, the same webhook-id, and logs each attempt', async () => {
    let clock = new Date('2030-01-01T00:00:00Z')
    const { target, keyward, endpoint, store, events, stepped } = await world((_, i) =>
      i === 0 ? { status: 500, body: 'down for maintenance' } : { status: 200, body: 'ok' },
    )
    open.push(target)
    await keyward.issueProjectKey('p1')
    const dispatcher = stepped(
      () => clock,
      () => 1,
    )
    open.push({ close: () => dispatcher.stop() })
    await expect.poll(() => target.received.length).toBe(1)
    expect(await dispatcher.runOnce()).toBe(0)
    clock = new Date(clock.getTime() + 5_000)
    expect(await dispatcher.runOnce()).toBe(1)
    expect(target.received.map((received) => received.headers['webhook-id'])).toEqual([
      target.received[0]?.headers['webhook-id'],
      target.received[0]?.headers['webhook-id'],
    ])
    const attempts = await store.webhooks.listAttempts(endpoint.id, 10)
    expect(attempts.map((attempt) => [attempt.status, attempt.response])).toEqual([
      [200, 'ok'],
      [500, 'down for maintenance'],
    ])
    expect(events.map((event) => (event.type === 'webhook.attempted' ? event.outcome : event.type))).toEqual([
      'retry',
      'delivered',
    ])
  })

  it('gives up after the retry window, and disables an endpoint failing for 5 days, with endpoint.disabled to the others', async () => {
    let clock = new Date('2030-01-01T00:00:00Z')
    const { target, keyward, endpoints, endpoint, store, events, stepped } = await world(() => ({
      status: 503,
    }))
    open.push(target)
    const healthy = await receiver()
    open.push(healthy)
    const other = await endpoints.create('dev-1', { url: healthy.url })
    await keyward.issueProjectKey('p1')
    const dispatcher = stepped(() => clock)
    open.push({ close: () => dispatcher.stop() })
    await expect.poll(() => healthy.received.length).toBe(1)
    // Every hour for 6 days, the failing endpoint keeps failing (new events keep it busy).
    for (let hour = 1; hour <= 6 * 24; hour++) {
      clock = new Date(clock.getTime() + 3_600_000)
      if (hour % 12 === 0) await keyward.issueProjectKey('p1')
      await dispatcher.runOnce()
    }
    const disabled = await store.webhooks.findEndpoint(endpoint.id)
    expect(disabled?.disabledAt).not.toBeNull()
    expect(events.filter((event) => event.type === 'webhook.endpoint_disabled')).toHaveLength(1)
    expect(events.some((event) => event.type === 'webhook.attempted' && event.outcome === 'failed')).toBe(
      true,
    )
    const rows = (await keyward.listAudit('dev-1', { limit: 200 })).records
    expect(rows.filter((row) => row.action === 'webhook_endpoint.disabled')).toMatchObject([
      {
        action: 'webhook_endpoint.disabled',
        targetId: endpoint.id,
      },
    ])
    await dispatcher.runOnce()
    const notice = healthy.received
      .map((received) => JSON.parse(received.body))
      .find((body) => body.type === 'endpoint.disabled')
    expect(notice?.data).toMatchObject({ endpoint_id: endpoint.id, url: target.url })
    expect((await store.webhooks.findEndpoint(other.id))?.disabledAt).toBeNull()
  })
})
