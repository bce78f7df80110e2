import { describe, expect, it } from 'vitest'
import type { MemoryKeyStore } from '../store/memory.js'
import { NOW, world } from '../test/key-routes-world.js'

const BASE = '/api/v1/webhooks/endpoints'

// The routes with webhooks mounted; `checkAddress` refuses the host `internal.example`.
async function hooks() {
  const w = await world({
    webhooks: {
      now: () => NOW,
      checkAddress: async (url) => {
        if (new URL(url).hostname === 'internal.example') throw new Error('10.0.0.1 is a private address')
      },
    },
  })
  const create = async (body: object, key = w.d1) => {
    const r = await w.call('POST', BASE, { key, body: JSON.stringify(body) })
    expect(r.status, JSON.stringify(r.json)).toBe(201)
    return r.json
  }
  return { ...w, create, store: w.keyward.store as MemoryKeyStore }
}

describe('webhook endpoint routes', () => {
  it('register an endpoint with its secret shown once, list and read it without the secret', async () => {
    const { call, d1, create } = await hooks()
    const created = await create({ url: 'https://hooks.example.com/keyward', event_types: ['key.revoked'] })
    expect(created).toEqual({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      url: 'https://hooks.example.com/keyward',
      description: null,
      project_ids: null,
      event_types: ['key.revoked'],
      previous_secret_expires_at: null,
      failing_since: null,
      disabled_at: null,
      created_at: NOW.toISOString(),
      updated_at: NOW.toISOString(),
      secret: expect.stringMatching(/^whsec_[A-Za-z0-9+/]{32}$/),
    })
    const { secret, ...shown } = created
    const listed = await call('GET', BASE, { key: d1 })
    expect(listed).toMatchObject({ status: 200, json: { endpoints: [shown] } })
    expect(JSON.stringify(listed.json)).not.toContain(secret)
    expect(await call('GET', `${BASE}/${created.id}`, { key: d1 })).toMatchObject({
      status: 200,
      json: shown,
    })
  })

  it('refuse http://, credentials, an internal host, unknown event types and the 11th endpoint, writing nothing', async () => {
    const { call, d1, create, store } = await hooks()
    const cases: [object, string, string[]][] = [
      [{ url: 'http://hooks.example.com/' }, 'value_error', ['body', 'url']],
      [{ url: 'not a url' }, 'value_error', ['body', 'url']],
      [{ url: 'https://user:pw@hooks.example.com/' }, 'value_error', ['body', 'url']],
      [{ url: 'https://internal.example/' }, 'value_error', ['body', 'url']],
      [
        { url: 'https://hooks.example.com/', event_types: ['key.nope'] },
        'value_error',
        ['body', 'event_types', '0'],
      ],
      [{ url: 'https://hooks.example.com/', extra: 1 }, 'extra_forbidden', ['body', 'extra']],
    ]
    for (const [body, type, loc] of cases) {
      const r = await call('POST', BASE, { key: d1, body: JSON.stringify(body) })
      expect(r.status, JSON.stringify(body)).toBe(422)
      expect(r.json.detail[0]).toMatchObject({ type, loc })
    }
    expect(await store.webhooks.listEndpoints('d1')).toEqual([])
    for (let i = 0; i < 10; i++) await create({ url: `https://hooks.example.com/${i}` })
    const eleventh = await call('POST', BASE, {
      key: d1,
      body: JSON.stringify({ url: 'https://hooks.example.com/x' }),
    })
    expect(eleventh.status).toBe(409)
    expect(eleventh.json.detail[0].type).toBe('limit_exceeded')
  })

  it("change, roll the secret of, and delete an endpoint; another developer's is 404", async () => {
    const { call, d1, d2, create } = await hooks()
    const created = await create({ url: 'https://hooks.example.com/a' })
    const path = `${BASE}/${created.id}`
    const changed = await call('PATCH', path, { key: d1, body: JSON.stringify({ project_ids: ['p1'] }) })
    expect(changed).toMatchObject({
      status: 200,
      json: { project_ids: ['p1'], url: 'https://hooks.example.com/a' },
    })
    const rolled = await call('POST', `${path}/roll-secret`, {
      key: d1,
      body: JSON.stringify({ grace_seconds: 60 }),
    })
    expect(rolled.status).toBe(200)
    expect(rolled.json.secret).not.toBe(created.secret)
    expect(rolled.json.previous_secret_expires_at).toBe(new Date(NOW.getTime() + 60_000).toISOString())
    for (const [method, suffix] of [
      ['GET', ''],
      ['PATCH', ''],
      ['DELETE', ''],
      ['POST', '/roll-secret'],
      ['GET', '/attempts'],
    ] as const) {
      const r = await call(method, `${path}${suffix}`, {
        key: d2,
        body: method === 'PATCH' ? '{}' : undefined,
      })
      expect(r.status, `${method} ${suffix}`).toBe(404)
      expect(r.json.detail[0]).toMatchObject({ type: 'not_found', loc: ['path', 'endpoint_id'] })
    }
    expect(await call('GET', `${path}/attempts`, { key: d1 })).toMatchObject({
      status: 200,
      json: { attempts: [] },
    })
    expect(await call('DELETE', path, { key: d1 })).toMatchObject({
      status: 200,
      json: { id: created.id, deleted: true },
    })
    expect((await call('GET', path, { key: d1 })).status).toBe(404)
  })

  it('a revocation puts key.revoked in the outbox with its audit row: the name and prefix, never the key', async () => {
    const { keyward, store } = await hooks()
    const { key, record } = await keyward.issueProjectKey('p1', { name: 'ci' })
    await keyward.deactivateKey(record.id)
    const events = store.webhooks.outbox.filter((event) => event.projectId === 'p1')
    expect(events.map((event) => [event.type, event.developerId])).toEqual([
      ['key.created', 'd1'],
      ['key.revoked', 'd1'],
    ])
    expect(events[1]?.data).toEqual({
      key_id: record.id,
      key_prefix: record.keyPrefix,
      name: 'ci',
      developer_id: 'd1',
      project_id: 'p1',
      revoked_reason: 'revoked',
      actor: 'system',
    })
    expect(JSON.stringify(store.webhooks.outbox)).not.toContain(key)
    expect(JSON.stringify(store.webhooks.outbox)).not.toContain(record.hash)
    // The audit log keeps its rows as before: the event's subject is not part of them.
    expect((await keyward.listAudit('d1')).records.every((row) => !('subject' in row))).toBe(true)
  })

  it('audit every change of an endpoint by the developer and their key prefix, never its secret', async () => {
    const { call, d1, create, keyward } = await hooks()
    const created = await create({ url: 'https://hooks.example.com/a', description: 'billing' })
    const path = `${BASE}/${created.id}`
    await call('PATCH', path, { key: d1, body: JSON.stringify({ event_types: ['key.leaked'] }) })
    const rolled = await call('POST', `${path}/roll-secret`, { key: d1, body: '{}' })
    await call('DELETE', path, { key: d1 })
    const rows = (await keyward.listAudit('d1')).records.filter(
      (row) => row.targetType === 'webhook_endpoint',
    )
    expect(rows.map((row) => row.action).reverse()).toEqual([
      'webhook_endpoint.created',
      'webhook_endpoint.updated',
      'webhook_endpoint.secret_rolled',
      'webhook_endpoint.deleted',
    ])
    const [deleted, roll, updated, made] = rows
    expect(made).toMatchObject({
      targetId: created.id,
      developerId: 'd1',
      actor: { type: 'developer', developerId: 'd1', keyPrefix: d1.slice(0, 8) },
      before: null,
      after: { url: 'https://hooks.example.com/a', description: 'billing', event_types: null },
    })
    expect(updated).toMatchObject({ before: { event_types: null }, after: { event_types: ['key.leaked'] } })
    expect(roll).toMatchObject({
      before: null,
      after: { previous_secret_expires_at: rolled.json.previous_secret_expires_at },
    })
    expect(deleted).toMatchObject({ before: { url: 'https://hooks.example.com/a' }, after: null })
    const text = JSON.stringify(rows)
    expect(text).not.toContain(created.secret)
    expect(text).not.toContain(rolled.json.secret)
  })

  it('send a test event to one endpoint through the outbox, whatever its filters; another developer gets 404', async () => {
    const { call, d1, d2, create, store } = await hooks()
    const target = await create({ url: 'https://hooks.example.com/a', event_types: ['key.revoked'] })
    await create({ url: 'https://hooks.example.com/b' })
    const sent = await call('POST', `${BASE}/${target.id}/test`, { key: d1 })
    expect(sent).toMatchObject({
      status: 202,
      json: { event_id: expect.stringMatching(/^msg_[0-9a-f]{32}$/), type: 'webhook.test' },
    })
    const claimed = await store.webhooks.claimDeliveries(10, NOW, 1000)
    expect(claimed.map((delivery) => [delivery.endpoint.id, delivery.event.id, delivery.event.type])).toEqual(
      [[target.id, sent.json.event_id, 'webhook.test']],
    )
    expect(claimed[0]?.event.data).toEqual({
      endpoint_id: target.id,
      developer_id: 'd1',
      url: 'https://hooks.example.com/a',
      actor: 'developer',
    })
    expect((await call('POST', `${BASE}/${target.id}/test`, { key: d2 })).status).toBe(404)
  })

  it('redeliver one event or a time range, with attempts counted again; bad bodies are 422 and change nothing', async () => {
    const { call, d1, create, store, keyward } = await hooks()
    const hook = await create({ url: 'https://hooks.example.com/a', project_ids: ['p1'] })
    const { record } = await keyward.issueProjectKey('p1', { name: 'ci' })
    await keyward.deactivateKey(record.id)
    await store.webhooks.fanOutEvents(100, NOW)
    const first = await store.webhooks.claimDeliveries(10, NOW, 1000)
    expect(first.map((delivery) => delivery.event.type).sort()).toEqual(['key.created', 'key.revoked'])
    for (const delivery of first) {
      await store.webhooks.finishDelivery(
        delivery,
        { at: NOW, status: 200, durationMs: 5, response: 'ok' },
        { state: 'delivered' },
      )
    }
    const path = `${BASE}/${hook.id}/redeliver`
    const revoked = first.find((delivery) => delivery.event.type === 'key.revoked')!
    const bad: [object, string, string[]][] = [
      [{}, 'value_error', ['body']],
      [{ event_id: revoked.event.id, from: NOW.toISOString() }, 'value_error', ['body']],
      [{ from: NOW.toISOString() }, 'missing', ['body', 'to']],
      [{ from: NOW.toISOString(), to: NOW.toISOString() }, 'value_error', ['body', 'to']],
      [{ from: '2026-01-01T00:00:00Z', to: '2026-03-01T00:00:00Z' }, 'value_error', ['body', 'to']],
      [{ event_id: 'msg_nope' }, 'not_found', ['body', 'event_id']],
    ]
    for (const [body, type, loc] of bad) {
      const r = await call('POST', path, { key: d1, body: JSON.stringify(body) })
      expect(r.status, JSON.stringify(body)).toBe(type === 'not_found' ? 404 : 422)
      expect(r.json.detail[0]).toMatchObject({ type, loc })
    }
    expect(await store.webhooks.claimDeliveries(10, NOW, 1000)).toEqual([])
    const one = await call('POST', path, { key: d1, body: JSON.stringify({ event_id: revoked.event.id }) })
    expect(one).toMatchObject({ status: 202, json: { redelivered: 1 } })
    const again = await store.webhooks.claimDeliveries(10, NOW, 1000)
    expect(again.map((delivery) => [delivery.event.id, delivery.attempts])).toEqual([[revoked.event.id, 0]])
    const range = {
      from: new Date(NOW.getTime() - 60_000).toISOString(),
      to: new Date(NOW.getTime() + 60_000).toISOString(),
    }
    expect(await call('POST', path, { key: d1, body: JSON.stringify(range) })).toMatchObject({
      status: 202,
      json: { redelivered: 2 },
    })
    expect(await store.webhooks.claimDeliveries(10, NOW, 1000)).toHaveLength(2)
  })
})
