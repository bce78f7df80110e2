import type { KeywardContext } from '@keyward/core'
import { createConformanceWorld } from '@keyward/testkit'
import Fastify, { type FastifyRequest } from 'fastify'
import { describe, expect, expectTypeOf, it } from 'vitest'
import { keywardErrorHandler, keywardPlugin, requireProject } from './index.js'

describe('@keyward/fastify', () => {
  it('declares request.keyward through module augmentation', () => {
    expectTypeOf<FastifyRequest['keyward']>().toEqualTypeOf<KeywardContext | null>()
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
