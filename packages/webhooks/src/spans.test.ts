import { createKeyward, MemoryKeyStore, WebhookEndpoints } from '@keyward/core'
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base'
import { afterEach, describe, expect, it } from 'vitest'
import { createWebhookDispatcher } from './dispatcher.js'
import { DELIVERY_SPAN } from './spans.js'
import { receiver } from './test/receiver.js'

function tracing() {
  const exporter = new InMemorySpanExporter()
  const tracerProvider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] })
  return { tracerProvider, spans: () => exporter.getFinishedSpans() }
}

describe('delivery spans', () => {
  const open: { close(): Promise<void> }[] = []
  afterEach(async () => {
    for (const item of open.splice(0)) await item.close()
  })

  it('trace each attempt with the HTTP client attributes and the event, never the path, query, secret or body', async () => {
    let clock = new Date('2030-01-01T00:00:00Z')
    const target = await receiver((_, i) => (i === 0 ? { status: 500, body: 'down' } : { status: 204 }))
    open.push(target)
    const store = new MemoryKeyStore()
    const keyward = createKeyward({ store })
    const endpoints = new WebhookEndpoints(store.webhooks, { allowHttp: true })
    const url = `${target.url}/receiver-token-5f2a?token=query-secret-9c1e`
    const endpoint = await endpoints.create('dev-1', { url })
    const { key, record } = await keyward.issueDeveloperKey('dev-1', { name: 'laptop' })
    const { tracerProvider, spans } = tracing()
    const dispatcher = createWebhookDispatcher({
      store: store.webhooks,
      allowHttp: true,
      allowPrivate: true,
      now: () => clock,
      random: () => 1,
      pollMs: 60_000,
      expiry: false,
      telemetry: { tracerProvider },
    })
    open.push({ close: () => dispatcher.stop() })
    await expect.poll(() => spans().length).toBe(1)
    clock = new Date(clock.getTime() + 5_000)
    expect(await dispatcher.runOnce()).toBe(1)

    const [failed, delivered] = spans()
    const eventId = String(target.received[0]?.headers['webhook-id'])
    const common = {
      'http.request.method': 'POST',
      'url.scheme': 'http',
      'server.address': '127.0.0.1',
      'server.port': target.port,
      'keyward.webhook.event.id': eventId,
      'keyward.webhook.event.type': 'key.created',
      'keyward.webhook.endpoint.id': endpoint.id,
    }
    expect([failed?.name, failed?.kind, failed?.parentSpanContext]).toEqual([DELIVERY_SPAN, 2, undefined])
    expect({ ...failed?.attributes }).toEqual({
      ...common,
      'keyward.webhook.attempt': 1,
      'http.response.status_code': 500,
      'error.type': '500',
      'keyward.webhook.outcome': 'retry',
    })
    expect(failed?.status.code).toBe(2)
    expect({ ...delivered?.attributes }).toEqual({
      ...common,
      'keyward.webhook.attempt': 2,
      'http.response.status_code': 204,
      'keyward.webhook.outcome': 'delivered',
    })
    expect(delivered?.status.code).toBe(0)
    // Nothing of the address past its host, of the secret, the body or the key.
    const text = JSON.stringify(spans().map((span) => [span.name, span.attributes, span.events]))
    for (const secret of [
      'receiver-token-5f2a',
      'query-secret-9c1e',
      endpoint.secret,
      key,
      record.hash,
      'laptop',
    ]) {
      expect(text).not.toContain(secret)
    }
  })

  it('say when no answer came: error.type no_answer, no status code', async () => {
    const store = new MemoryKeyStore()
    const keyward = createKeyward({ store })
    // Nothing listens on port 9 of this host: the connection is refused.
    await new WebhookEndpoints(store.webhooks, { allowHttp: true }).create('dev-1', {
      url: 'http://127.0.0.1:9/x',
    })
    await keyward.issueDeveloperKey('dev-1')
    const { tracerProvider, spans } = tracing()
    const dispatcher = createWebhookDispatcher({
      store: store.webhooks,
      allowHttp: true,
      allowPrivate: true,
      pollMs: 60_000,
      expiry: false,
      telemetry: { tracerProvider },
    })
    await expect.poll(() => spans().length).toBe(1)
    await dispatcher.stop()
    expect(spans()[0]?.attributes).toMatchObject({ 'error.type': 'no_answer', 'server.port': 9 })
    expect(spans()[0]?.attributes['http.response.status_code']).toBeUndefined()
  })
})
