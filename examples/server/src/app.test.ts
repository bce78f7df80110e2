import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createApp } from './app.js'
import { keywardOver } from './service.js'
import { describeBackends } from './test/databases.js'
import { openTestApp, openTestStore, type TestApp } from './test/harness.js'
import type { AccessTokens } from './tokens.js'

describeBackends('the app (%s)', (backend) => {
  let t: TestApp
  beforeAll(async () => {
    t = await openTestApp(backend)
  })
  afterAll(() => t.close())

  it('GET /healthz answers ok while the database answers', async () => {
    const answer = await t.call('GET', '/healthz')
    expect([answer.status, answer.body]).toEqual([200, { status: 'ok' }])
    expect((await t.call('HEAD', '/healthz')).status).toBe(200)
  })

  it('GET /openapi.json serves the OpenAPI 3.1 document of every endpoint', async () => {
    const answer = await t.call('GET', '/openapi.json')
    expect(answer.status).toBe(200)
    expect(answer.headers.get('content-type')).toBe('application/json; charset=utf-8')
    // The one JSON answer that may be cached: it changes only with the server's version.
    expect(answer.headers.get('cache-control')).toBe('public, max-age=300')
    expect(answer.body.openapi).toBe('3.1.0')
    expect(Object.keys(answer.body.paths)).toContain('/api/v1/generation/generations-v2/{generation_id}')
  })

  it('answers an unknown path 404 not_found, in the specification’s format', async () => {
    for (const path of ['/', '/api/v1', '/api/v1/projects/x/unknown', '/healthz/']) {
      const answer = await t.call('GET', path)
      expect([answer.status, answer.body]).toEqual([
        404,
        { detail: [{ loc: [], msg: 'Not found.', type: 'not_found' }] },
      ])
      expect(answer.headers.get('content-type')).toBe('application/json; charset=utf-8')
    }
  })

  it('answers a known path with another method 405 method_not_allowed, with Allow', async () => {
    const cases: Array<[string, string, string]> = [
      ['PUT', '/api/v1/projects', 'POST, GET, HEAD'],
      ['PUT', '/api/v1/auth/developer-keys/k1', 'GET, DELETE, PATCH, HEAD'],
      ['GET', '/api/v1/projects/p1', 'DELETE'],
      ['PATCH', '/api/v1/auth/developer-keys', 'POST, GET, HEAD'],
      ['GET', '/api/v1/generation/generations-v2/abc', 'DELETE'],
      ['POST', '/healthz', 'GET, HEAD'],
    ]
    for (const [method, path, allow] of cases) {
      const answer = await t.call(method, path)
      expect([answer.status, answer.headers.get('allow'), answer.body.detail[0].type]).toEqual([
        405,
        allow,
        'method_not_allowed',
      ])
      expect(answer.body.detail[0]).toEqual({
        loc: [],
        msg: `This path allows ${allow} only.`,
        type: 'method_not_allowed',
      })
    }
  })

  it('never puts a full key in an event', async () => {
    const { apiKey } = await t.project()
    const events = JSON.stringify(t.events)
    expect(events).toContain(t.developerKey.slice(0, 8))
    expect(events).not.toContain(t.developerKey)
    expect(events).not.toContain(apiKey)
  })
})

describe('failures', () => {
  it('answers any thrown error 500 internal_error, saying nothing of it', async () => {
    const { store, drop } = await openTestStore('pglite')
    try {
      const failing: AccessTokens = {
        expiresIn: 900,
        issue: () => Promise.reject(new Error('secret detail')),
        verify: () => Promise.resolve(null),
      }
      const app = createApp({ store, tokens: failing })
      const { key } = await keywardOver(store).issueDeveloperKey('dev_1')
      const project = await app.request('/api/v1/projects', {
        method: 'POST',
        headers: { 'x-developer-key': key, 'content-type': 'application/json' },
        body: '{"name":"p"}',
      })
      const { api_key } = await project.json()
      const answer = await app.request(`/api/v1/projects/${api_key.project_id}/access-tokens`, {
        method: 'POST',
        headers: { 'x-api-key': api_key.key },
      })
      expect(answer.status).toBe(500)
      expect(await answer.text()).toBe(
        '{"detail":[{"loc":[],"msg":"Internal error.","type":"internal_error"}]}',
      )
    } finally {
      await drop()
    }
  })

  it('answers 503 store_unavailable when the database is gone, and reports it', async () => {
    const { store, drop } = await openTestStore('pglite')
    const events: unknown[] = []
    const app = createApp({ store, tokens: {} as AccessTokens, onEvent: (event) => events.push(event) })
    await drop()
    const health = await app.request('/healthz')
    expect([health.status, await health.json()]).toEqual([
      503,
      {
        detail: [
          { loc: [], msg: 'The database is unavailable. Try again later.', type: 'store_unavailable' },
        ],
      },
    ])
    // Closing the database closes the change feed first: the cache is bypassed from then on.
    expect(events).toEqual([
      { type: 'cache.bypassed', reason: 'feed_disconnected', error: undefined },
      { type: 'store.error', operation: 'healthz', error: expect.any(Error) },
    ])
    const keys = await app.request('/api/v1/auth/developer-keys', {
      headers: { 'x-developer-key': `ak_${'a'.repeat(32)}` },
    })
    expect([keys.status, (await keys.json()).detail[0].type]).toEqual([503, 'store_unavailable'])
  })
})
