import type { BearerAuth, DeveloperAuth, ElevatedAuth, KeywardContext, ProjectAuth } from '@keyward/core'
import { createConformanceWorld } from '@keyward/testkit'
import Fastify, { type FastifyRequest } from 'fastify'
import { describe, expect, expectTypeOf, it } from 'vitest'
import {
  type KeywardRouteConfig,
  keywardErrorHandler,
  keywardNotFoundHandler,
  keywardPlugin,
  requireBearer,
  requireDeveloper,
  requireElevated,
  requireKey,
  requireProject,
} from './index.js'

describe('@keyward/fastify', () => {
  it("types request.keyward by the requirement of the route's hook", async () => {
    const { keyward } = await createConformanceWorld('reject')
    type Claims = { readonly sub: string }
    const app = Fastify()
    app.get('/p/:project_id', { onRequest: requireProject(keyward) }, async (request) => {
      expectTypeOf(request.keyward).toEqualTypeOf<ProjectAuth>()
      return { projectId: request.keyward.projectId }
    })
    app.get('/me', { onRequest: requireDeveloper(keyward) }, async (request) => {
      expectTypeOf(request.keyward).toEqualTypeOf<DeveloperAuth>()
    })
    app.delete('/p/:project_id', { onRequest: [requireElevated(keyward)] }, async (request) => {
      expectTypeOf(request.keyward).toEqualTypeOf<ElevatedAuth>()
    })
    app.get('/t', { onRequest: requireBearer<Claims>({ verify: () => ({ sub: 'x' }) }) }, async (request) => {
      expectTypeOf(request.keyward).toEqualTypeOf<BearerAuth<Claims>>()
    })
    // With explicit route generics, the config generic names the context.
    app.get<{ Params: { project_id: string } }, KeywardRouteConfig<ProjectAuth>>(
      '/q/:project_id',
      { onRequest: requireProject(keyward) },
      async (request) => {
        expectTypeOf(request.keyward).toEqualTypeOf<ProjectAuth>()
        expectTypeOf(request.params.project_id).toEqualTypeOf<string>()
      },
    )
    // A route that no Keyward hook guards: nothing is known.
    app.get('/open', async (request) => expectTypeOf(request.keyward).toEqualTypeOf<KeywardContext | null>())
    expectTypeOf<FastifyRequest['keyward']>().toEqualTypeOf<KeywardContext | null>()
  })

  it("answers the body parser's errors and unmatched routes in the format", async () => {
    const app = Fastify({ bodyLimit: 10 })
    app.setErrorHandler(keywardErrorHandler)
    app.setNotFoundHandler(keywardNotFoundHandler)
    app.post('/echo', async (request) => request.body)
    const post = (payload: string, type = 'application/json') =>
      app.inject({ method: 'POST', url: '/echo', headers: { 'content-type': type }, payload })
    const bad = await post('{"a":')
    expect([bad.statusCode, bad.json()]).toEqual([
      422,
      { detail: [{ loc: ['body'], msg: 'The request body is not valid JSON.', type: 'json_invalid' }] },
    ])
    const large = await post(JSON.stringify({ a: 'x'.repeat(20) }))
    expect([large.statusCode, large.json().detail[0].type]).toEqual([413, 'payload_too_large'])
    const media = await post('a', 'application/x-unknown')
    expect([media.statusCode, media.json().detail[0].type]).toEqual([415, 'unsupported_media_type'])
    const missing = await app.inject({ url: '/nowhere' })
    expect([missing.statusCode, missing.json()]).toEqual([
      404,
      { detail: [{ loc: [], msg: 'Not found.', type: 'not_found' }] },
    ])
  })

  it('sets request.keyward on protected routes only, with typed route generics', async () => {
    const { keyward, keys } = await createConformanceWorld('reject')
    const app = Fastify()
    await app.register(keywardPlugin, { keyward })
    app.get<{ Params: { project_id: string } }>(
      '/api/v1/projects/:project_id/items',
      { onRequest: requireProject(keyward) },
      async (request) => ({ auth: request.keyward, param: request.params.project_id }),
    )
    app.get('/open', async (request) => ({ keyward: request.keyward }))
    const ok = await app.inject({ url: '/api/v1/projects/proj-1/items', headers: { 'x-api-key': keys.p1 } })
    expect(ok.json()).toMatchObject({ auth: { scope: 'project', projectId: 'proj-1' }, param: 'proj-1' })
    expect((await app.inject({ url: '/open' })).json()).toEqual({ keyward: null })
  })

  it("keeps the key routes' raw body parser inside their own context", async () => {
    const { keyward, keys } = await createConformanceWorld('reject')
    const app = Fastify()
    await app.register(keywardPlugin, { keyward })
    app.post('/echo', async (request) => ({ body: request.body }))
    const echoed = await app.inject({ method: 'POST', url: '/echo', payload: { a: 1 } })
    expect(echoed.json()).toEqual({ body: { a: 1 } })
    const created = await app.inject({
      method: 'POST',
      url: '/api/v1/auth/developer-keys',
      headers: { 'x-developer-key': keys.d1, 'content-type': 'application/json' },
      payload: '{"name":"ci"}',
    })
    expect([created.statusCode, created.json().name]).toEqual([201, 'ci'])
  })

  it('mounts no key routes with keyRoutes: false', async () => {
    const { keyward, keys } = await createConformanceWorld('reject')
    const app = Fastify()
    await app.register(keywardPlugin, { keyward, keyRoutes: false })
    const r = await app.inject({
      url: '/api/v1/auth/developer-keys',
      headers: { 'x-developer-key': keys.d1 },
    })
    expect(r.statusCode).toBe(404)
  })

  it('requireKey takes any active API key on a route without a project, and says whose', async () => {
    const { keyward, keys } = await createConformanceWorld('reject')
    const app = Fastify()
    await app.register(keywardPlugin, { keyward, keyRoutes: false })
    app.get('/reports', { onRequest: requireKey(keyward) }, async (request) => {
      expectTypeOf(request.keyward).toEqualTypeOf<ProjectAuth>()
      return { project: request.keyward.projectId }
    })
    app.get('/only-1', { onRequest: requireKey(keyward, { project: 'proj-1' }) }, async () => 'ok')
    const get = (url: string, key?: string) => app.inject({ url, headers: key ? { 'x-api-key': key } : {} })
    expect((await get('/reports', keys.p1)).json()).toEqual({ project: 'proj-1' })
    expect((await get('/reports', keys.p2)).json()).toEqual({ project: 'proj-2' })
    expect((await get('/reports')).statusCode).toBe(401)
    expect((await get('/only-1', keys.p2)).statusCode).toBe(403)
  })

  it('refuses, as the route is declared, a guard whose parameter the path lacks', async () => {
    const { keyward } = await createConformanceWorld('reject')
    const app = Fastify()
    await app.register(keywardPlugin, { keyward, keyRoutes: false })
    expect(() => app.get('/reports', { onRequest: requireProject(keyward) }, async () => 'never')).toThrow(
      /GET \/reports needs the path parameter `project_id`, and the route has none/,
    )
    expect(() =>
      app.get(
        '/me/:pid',
        { preHandler: [requireDeveloper(keyward, { projectParam: 'project' })] },
        async () => 0,
      ),
    ).toThrow(/`project`/)
    // The parameter present, another one with the name as its prefix, and guards reading none.
    app.get('/p/:project_id/x', { onRequest: requireProject(keyward) }, async () => 0)
    app.get('/q/:project_id2/:project_id', { onRequest: [requireElevated(keyward)] }, async () => 0)
    app.get('/k', { onRequest: [requireKey(keyward), requireDeveloper(keyward)] }, async () => 0)
    expect(() => app.get('/r/:project_idx', { onRequest: requireProject(keyward) }, async () => 0)).toThrow()
    await app.ready()
  })

  it('hands errors that are not KeywardErrors to the parent handler', async () => {
    const app = Fastify()
    app.setErrorHandler(keywardErrorHandler)
    app.get('/boom', async () => {
      throw Object.assign(new Error('teapot'), { statusCode: 418 })
    })
    const r = await app.inject({ url: '/boom' })
    expect(r.statusCode).toBe(418)
    expect(r.json()).toMatchObject({ statusCode: 418, message: 'teapot' })
  })
})
