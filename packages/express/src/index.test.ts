import type { AddressInfo } from 'node:net'
import type { BearerAuth, DeveloperAuth, ElevatedAuth, KeywardContext, ProjectAuth } from '@keyward/core'
import { createConformanceWorld } from '@keyward/testkit'
import express from 'express'
import { afterEach, describe, expect, expectTypeOf, it } from 'vitest'
import {
  keywardErrorHandler,
  keywardNotFound,
  keywardRouter,
  requireBearer,
  requireDeveloper,
  requireElevated,
  requireKey,
  requireProject,
} from './index.js'

const servers: import('node:http').Server[] = []
afterEach(() => {
  for (const server of servers.splice(0)) server.close()
})

async function start(app: express.Express): Promise<string> {
  const server = app.listen(0, '127.0.0.1')
  servers.push(server)
  await new Promise((resolve) => server.once('listening', resolve))
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`
}

describe('@keyward/express', () => {
  it('types req.keyward by the requirement of the middleware before the handler', async () => {
    const { keyward } = await createConformanceWorld('reject')
    type Claims = { readonly sub: string }
    const app = express()
    app.get('/p/:project_id', requireProject(keyward), (req, res) => {
      expectTypeOf(req.keyward).toEqualTypeOf<ProjectAuth>()
      expectTypeOf(res.locals.keyward).toEqualTypeOf<ProjectAuth>()
      res.json({ projectId: req.keyward.projectId })
    })
    app.get('/me', requireDeveloper(keyward), (req) =>
      expectTypeOf(req.keyward).toEqualTypeOf<DeveloperAuth>(),
    )
    app.delete('/p/:project_id', requireElevated(keyward), express.json(), (req) =>
      expectTypeOf(req.keyward).toEqualTypeOf<ElevatedAuth>(),
    )
    const router = express.Router()
    router.get('/t', requireBearer<Claims>({ verify: () => ({ sub: 'x' }) }), (req) => {
      expectTypeOf(req.keyward).toEqualTypeOf<BearerAuth<Claims>>()
      expectTypeOf(req.keyward.claims.sub).toEqualTypeOf<string>()
    })
    // A handler that no Keyward middleware guards: nothing is known.
    app.get('/open', (req) => expectTypeOf(req.keyward).toEqualTypeOf<KeywardContext | undefined>())
    expectTypeOf<express.Request['keyward']>().toEqualTypeOf<KeywardContext | undefined>()
  })

  it("answers body-parser's errors (bad JSON, too large) and unmatched routes in the format", async () => {
    const app = express()
    app.use(express.json({ limit: 10 }))
    app.post('/echo', (req, res) => res.json(req.body))
    app.use(keywardNotFound())
    app.use(keywardErrorHandler())
    const origin = await start(app)
    const post = (body: string) =>
      fetch(`${origin}/echo`, { method: 'POST', headers: { 'content-type': 'application/json' }, body })
    const bad = await post('{"a":')
    expect([bad.status, bad.headers.get('content-type'), await bad.json()]).toEqual([
      422,
      'application/json; charset=utf-8',
      { detail: [{ loc: ['body'], msg: 'The request body is not valid JSON.', type: 'json_invalid' }] },
    ])
    const large = await post(JSON.stringify({ a: 'x'.repeat(20) }))
    expect([large.status, await large.json()]).toEqual([
      413,
      {
        detail: [
          { loc: ['body'], msg: 'The request body is larger than 10 bytes.', type: 'payload_too_large' },
        ],
      },
    ])
    const missing = await fetch(`${origin}/nowhere`)
    expect([missing.status, await missing.json()]).toEqual([
      404,
      { detail: [{ loc: [], msg: 'Not found.', type: 'not_found' }] },
    ])
  })

  it('works as app.use middleware on a path with :project_id, and leaves other routes alone', async () => {
    const { keyward, keys } = await createConformanceWorld('reject')
    const app = express()
    app.use('/api/v1/projects/:project_id', requireProject(keyward))
    app.get('/api/v1/projects/:project_id/items', (req, res) => {
      res.json({
        scope: req.keyward?.scope,
        projectId: req.keyward?.scope === 'project' && req.keyward.projectId,
      })
    })
    app.get('/open', (req, res) => res.json({ keyward: req.keyward ?? null }))
    const origin = await start(app)
    const ok = await fetch(`${origin}/api/v1/projects/proj-1/items`, { headers: { 'X-API-Key': keys.p1 } })
    expect(await ok.json()).toEqual({ scope: 'project', projectId: 'proj-1' })
    const refused = await fetch(`${origin}/api/v1/projects/proj-1/items`)
    expect(refused.status).toBe(401)
    expect(await (await fetch(`${origin}/open`)).json()).toEqual({ keyward: null })
  })

  it('sets req.keyward without adding a property to the request (it reads res.locals), and honours one assigned before', async () => {
    const { keyward, keys } = await createConformanceWorld('reject')
    const app = express()
    app.get('/p/:project_id', requireProject(keyward), (req, res) => {
      res.json({
        projectId: req.keyward.projectId,
        same: req.keyward === res.locals.keyward,
        own: Object.hasOwn(req, 'keyward'),
      })
    })
    app.get(
      '/assigned/:project_id',
      (req, _res, next) => {
        // A host that assigned req.keyward itself: the middleware's context replaces it.
        ;(req as { keyward: unknown }).keyward = 'set by the host'
        next()
      },
      requireProject(keyward),
      (req, res) => res.json({ projectId: req.keyward.projectId, own: Object.hasOwn(req, 'keyward') }),
    )
    app.get('/open', (req, res) =>
      res.json({ keyward: req.keyward ?? null, own: Object.hasOwn(req, 'keyward') }),
    )
    const origin = await start(app)
    const headers = { 'X-API-Key': keys.p1 }
    expect(await (await fetch(`${origin}/p/proj-1`, { headers })).json()).toEqual({
      projectId: 'proj-1',
      same: true,
      own: false,
    })
    expect(await (await fetch(`${origin}/assigned/proj-1`, { headers })).json()).toEqual({
      projectId: 'proj-1',
      own: true,
    })
    expect(await (await fetch(`${origin}/open`)).json()).toEqual({ keyward: null, own: false })
  })

  it('uses a body that a host parser (express.json) already parsed', async () => {
    const { keyward, keys } = await createConformanceWorld('reject')
    const app = express()
    app.use(express.json())
    app.use(keywardRouter(keyward))
    const origin = await start(app)
    const response = await fetch(`${origin}/api/v1/auth/developer-keys`, {
      method: 'POST',
      headers: { 'X-Developer-Key': keys.d1, 'Content-Type': 'application/json' },
      body: JSON.stringify({ name: 'parsed by the host' }),
    })
    expect(response.status).toBe(201)
    expect((await response.json()).name).toBe('parsed by the host')
  })

  it('requireKey takes any active API key on a route without a project, and says whose', async () => {
    const { keyward, keys } = await createConformanceWorld('reject')
    const app = express()
    app.get('/reports', requireKey(keyward), (req, res) => {
      expectTypeOf(req.keyward).toEqualTypeOf<ProjectAuth>()
      res.json({ project: req.keyward.projectId })
    })
    app.get('/only-1', requireKey(keyward, { project: 'proj-1' }), (req, res) =>
      res.json(req.keyward.projectId),
    )
    const origin = await start(app)
    const get = (path: string, key?: string) =>
      fetch(`${origin}${path}`, { headers: key ? { 'x-api-key': key } : {} })
    expect(await (await get('/reports', keys.p1)).json()).toEqual({ project: 'proj-1' })
    expect(await (await get('/reports', keys.p2)).json()).toEqual({ project: 'proj-2' })
    expect((await get('/reports')).status).toBe(401)
    expect((await get('/only-1', keys.p1)).status).toBe(200)
    expect((await get('/only-1', keys.p2)).status).toBe(403)
  })

  it("hands a guard on a route without its parameter to the host's error handler, and reports it", async () => {
    const { keyward, keys, events } = await createConformanceWorld('reject')
    const app = express()
    app.get('/reports', requireProject(keyward), (_req, res) => res.json('never'))
    app.use(keywardErrorHandler())
    const seen: string[] = []
    app.use((err: Error, _req: express.Request, res: express.Response, _next: express.NextFunction) => {
      seen.push(err.message)
      res.status(500).json({ handledByHost: true })
    })
    const origin = await start(app)
    const r = await fetch(`${origin}/reports`, { headers: { 'x-api-key': keys.p1 } })
    expect([r.status, await r.json()]).toEqual([500, { handledByHost: true }])
    expect(seen).toEqual([expect.stringMatching(/`project_id`, and the route GET \/reports has none/)])
    expect(events.filter((event) => event.type === 'guard.misconfigured')).toHaveLength(1)
  })

  it('passes errors that are not KeywardErrors on to the next error handler', async () => {
    const app = express()
    app.get('/boom', () => {
      throw new Error('not ours')
    })
    app.use(keywardErrorHandler())
    app.use((err: Error, _req: express.Request, res: express.Response, _next: express.NextFunction) => {
      res.status(500).json({ handledByHost: err.message })
    })
    const origin = await start(app)
    expect(await (await fetch(`${origin}/boom`)).json()).toEqual({ handledByHost: 'not ours' })
  })
})
