import { once } from 'node:events'
import type { AddressInfo } from 'node:net'
import { serve } from '@hono/node-server'
import {
  type BearerAuth,
  type DeveloperAuth,
  ErrorType,
  type KeywardContext,
  KeywardError,
  type ProjectAuth,
} from '@keyward/core'
import { createConformanceWorld } from '@keyward/testkit'
import { Hono } from 'hono'
import { HTTPException } from 'hono/http-exception'
import { describe, expect, expectTypeOf, it } from 'vitest'
import {
  type KeywardEnv,
  keywardNotFound,
  keywardOnError,
  keywardRoutes,
  requireBearer,
  requireDeveloper,
  requireKey,
  requireProject,
  toKeywardRequest,
} from './index.js'

describe('@keyward/hono on @hono/node-server', () => {
  it("reads a route's body from the Node request, or through the Web Request once something built it", async () => {
    const { keyward, keys } = await createConformanceWorld('reject')
    const app = new Hono()
      // A middleware that builds the Web Request's body stream without reading it.
      .use('/peeked/*', async (c, next) => {
        expect(c.req.raw.body).not.toBeNull()
        await next()
      })
      .route('/', keywardRoutes(keyward))
      .route('/peeked', keywardRoutes(keyward))
    const server = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' })
    await once(server, 'listening')
    const { port } = server.address() as AddressInfo
    try {
      for (const prefix of ['', '/peeked']) {
        const r = await fetch(`http://127.0.0.1:${port}${prefix}/api/v1/projects/proj-1/api-keys`, {
          method: 'POST',
          headers: { 'X-Developer-Key': keys.d1, 'Content-Type': 'application/json' },
          body: JSON.stringify({ name: `node${prefix}` }),
        })
        expect([r.status, (await r.json()).name]).toEqual([201, `node${prefix}`])
      }
    } finally {
      // Idle keep-alive connections closed too, or a runtime whose fetch keeps one holds close().
      const closed = new Promise((resolve) => server.close(resolve))
      if ('closeAllConnections' in server) server.closeAllConnections()
      await closed
    }
  })
})

// These run through app.request: Web Request and Response only, no server, as on Bun, Deno or Workers.
describe('@keyward/hono', () => {
  it('types c.get("keyward") by the middleware of the route', async () => {
    const { keyward, keys } = await createConformanceWorld('reject')
    const app = new Hono()
    app.get('/projects/:project_id', requireProject(keyward), (c) => {
      expectTypeOf(c.get('keyward')).toEqualTypeOf<ProjectAuth>()
      return c.json({ projectId: c.get('keyward').projectId })
    })
    app.get('/me', requireDeveloper(keyward), (c) => {
      expectTypeOf(c.get('keyward')).toEqualTypeOf<DeveloperAuth>()
      return c.json({ developerId: c.get('keyward').developerId })
    })
    const r = await app.request('/projects/proj-1', { headers: { 'X-API-Key': keys.p1 } })
    expect(await r.json()).toEqual({ projectId: 'proj-1' })
    const refused = await app.request('/projects/proj-1', {
      headers: { 'X-API-Key': `${keys.p1}, ${keys.p1}` },
    })
    expect(refused.status).toBe(401)
    expect((await refused.json()).detail[0].type).toBe('key_malformed')
  })

  it('types c.get("keyward") as possibly absent on a route no Keyward middleware guards', () => {
    const app = new Hono()
    app.get('/open', (c) => {
      expectTypeOf(c.get('keyward')).toEqualTypeOf<KeywardContext | undefined>()
      return c.text('open')
    })
    const guarded = new Hono<KeywardEnv<ProjectAuth>>()
    guarded.get('/x', (c) => {
      expectTypeOf(c.get('keyward')).toEqualTypeOf<ProjectAuth>()
      return c.text(c.get('keyward').projectId)
    })
  })

  it('requireKey takes any active API key on a route without a project; a misplaced guard reaches onError', async () => {
    const { keyward, keys, events } = await createConformanceWorld('reject')
    const app = new Hono()
    app.get('/reports', requireKey(keyward), (c) => {
      expectTypeOf(c.get('keyward')).toEqualTypeOf<ProjectAuth>()
      return c.json({ project: c.get('keyward').projectId })
    })
    app.get('/misplaced', requireProject(keyward), (c) => c.text('never'))
    const seen: string[] = []
    app.onError((error, c) => {
      seen.push(error.message)
      return c.json({ handledByHost: true }, 500)
    })
    const get = (path: string, key?: string) =>
      app.request(path, { headers: key ? { 'x-api-key': key } : {} })
    expect(await (await get('/reports', keys.p1)).json()).toEqual({ project: 'proj-1' })
    expect(await (await get('/reports', keys.p2)).json()).toEqual({ project: 'proj-2' })
    expect((await get('/reports')).status).toBe(401)
    const r = await get('/misplaced', keys.p1)
    expect([r.status, await r.json()]).toEqual([500, { handledByHost: true }])
    expect(seen).toEqual([expect.stringMatching(/GET \/misplaced has none/)])
    expect(events.filter((event) => event.type === 'guard.misconfigured')).toHaveLength(1)
  })

  it('serves the key routes from a Web Request body', async () => {
    const { keyward, keys } = await createConformanceWorld('reject')
    const app = new Hono().route('/', keywardRoutes(keyward))
    const r = await app.request('/api/v1/projects/proj-1/api-keys', {
      method: 'POST',
      headers: { 'X-Developer-Key': keys.d1, 'Content-Type': 'application/json' },
      body: '{"name":"edge"}',
    })
    expect(r.status).toBe(201)
    expect(await r.json()).toMatchObject({ name: 'edge', project_id: 'proj-1' })
    // A body of another type is not JSON: 415. (The type is given: runtimes differ on what a
    // string body without one is sent as.)
    const untyped = await app.request('/api/v1/projects/proj-1/api-keys', {
      method: 'POST',
      headers: { 'X-Developer-Key': keys.d1, 'Content-Type': 'text/plain;charset=UTF-8' },
      body: '{"name":"edge"}',
    })
    expect(untyped.status).toBe(415)
  })

  it("onError: Keyward's errors in the format, HTTPException answers for itself, the host's own errors go on untouched", async () => {
    const { keyward } = await createConformanceWorld('reject')
    const hostError = new Error('secret detail')
    const api = new Hono()
    api.get('/http', () => {
      throw new HTTPException(418, { message: 'teapot' })
    })
    api.get('/boom', () => {
      throw hostError
    })
    api.get('/keyward', requireDeveloper(keyward), (c) => c.json({}))
    api.get('/invalid', () => {
      throw new KeywardError(ErrorType.notFound, 'No such thing.', ['path', 'thing'])
    })
    api.onError(keywardOnError)
    const seen: unknown[] = []
    const app = new Hono().route('/', api).onError((error, c) => {
      seen.push(error)
      return c.json({ host: true }, 500)
    })
    const teapot = await app.request('/http')
    expect([teapot.status, await teapot.text()]).toEqual([418, 'teapot'])
    const boom = await app.request('/boom')
    expect([boom.status, await boom.json()]).toEqual([500, { host: true }])
    expect(seen).toEqual([hostError])
    const thrown = await app.request('/invalid')
    expect([thrown.status, await thrown.json()]).toEqual([
      404,
      { detail: [{ loc: ['path', 'thing'], msg: 'No such thing.', type: 'not_found' }] },
    ])
    expect((await app.request('/keyward')).status).toBe(401)
    // Without a parent, the host's error reaches the caller as it was thrown.
    await expect(async () => api.request('/boom')).rejects.toBe(hostError)
  })

  it('gives the guards one path parameter at a time (param), decoded as Hono decodes it', async () => {
    const app = new Hono()
    app.get('/p/:project_id/:other', (c) => {
      const request = toKeywardRequest(c)
      return c.json({
        one: request.param?.('project_id'),
        all: request.params,
        header: request.header('x-api-key'),
      })
    })
    const response = await app.request('/p/proj%2D1/x', { headers: { 'x-api-key': 'k' } })
    expect(await response.json()).toEqual({
      one: 'proj-1',
      all: { project_id: 'proj-1', other: 'x' },
      header: 'k',
    })
  })

  it('keywardNotFound answers 404 not_found in the format', async () => {
    const app = new Hono().notFound(keywardNotFound)
    const answer = await app.request('/nowhere')
    expect([answer.status, await answer.json()]).toEqual([
      404,
      { detail: [{ loc: [], msg: 'Not found.', type: 'not_found' }] },
    ])
  })

  it('types a bearer context by its claims', () => {
    type Claims = { readonly sub: string }
    const app = new Hono()
    app.get('/bearer', requireBearer<Claims>({ verify: () => ({ sub: 'x' }) }), (c) => {
      expectTypeOf(c.get('keyward')).toEqualTypeOf<BearerAuth<Claims>>()
      return c.json({ sub: c.get('keyward').claims.sub })
    })
  })
})
