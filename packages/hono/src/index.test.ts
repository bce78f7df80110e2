import type { DeveloperAuth, ProjectAuth } from '@keyward/core'
import { createConformanceWorld } from '@keyward/testkit'
import { Hono } from 'hono'
import { HTTPException } from 'hono/http-exception'
import { describe, expect, expectTypeOf, it } from 'vitest'
import { keywardOnError, keywardRoutes, requireDeveloper, requireProject } from './index.js'

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
    // A string body without a type is text/plain to fetch: not JSON, so 415.
    const untyped = await app.request('/api/v1/projects/proj-1/api-keys', {
      method: 'POST',
      headers: { 'X-Developer-Key': keys.d1 },
      body: '{"name":"edge"}',
    })
    expect(untyped.status).toBe(415)
  })

  it('onError: HTTPException answers for itself, anything else is a bare internal_error', async () => {
    const app = new Hono()
    app.get('/http', () => {
      throw new HTTPException(418, { message: 'teapot' })
    })
    app.get('/boom', () => {
      throw new Error('secret detail')
    })
    app.onError(keywardOnError)
    const teapot = await app.request('/http')
    expect([teapot.status, await teapot.text()]).toEqual([418, 'teapot'])
    const boom = await app.request('/boom')
    expect(boom.status).toBe(500)
    expect(await boom.json()).toEqual({
      detail: [{ loc: [], msg: 'Internal error.', type: 'internal_error' }],
    })
  })
})
