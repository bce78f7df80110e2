// The shared HTTP suite against the three adapters at once: every request goes to an Express,
// a Fastify and a Hono server, and their answers must be identical.
import type { AddressInfo } from 'node:net'
import { serve } from '@hono/node-server'
import * as kwExpress from '@keyward/express'
import * as kwFastify from '@keyward/fastify'
import * as kwHono from '@keyward/hono'
import express from 'express'
import Fastify from 'fastify'
import { Hono } from 'hono'
import { RateLimiterMemory } from 'rate-limiter-flexible'
import type { HttpAdapterHarness, RunningServer } from './conformance.js'
import { runHttpConformance } from './conformance.js'
import type { ConformanceApp } from './world.js'

function closer(server: import('node:http').Server): RunningServer['close'] {
  return () =>
    new Promise((resolve) => {
      server.closeAllConnections()
      server.close(() => resolve())
    })
}

const expressHarness: HttpAdapterHarness = {
  name: 'express',
  listen: (app: ConformanceApp) => {
    const { keyward } = app
    const server = express()
    const answer = (req: express.Request, res: express.Response) => res.json({ auth: req.keyward })
    server.use(kwExpress.keywardRouter(keyward, { createProject: app.createProject }))
    server.get('/conformance/developer', kwExpress.requireDeveloper(keyward), answer)
    server.get(
      '/conformance/projects/:project_id/owner',
      kwExpress.requireDeveloper(keyward, { projectParam: 'project_id' }),
      answer,
    )
    server.get('/conformance/projects/:project_id/project', kwExpress.requireProject(keyward), answer)
    server.post('/conformance/projects/:project_id/elevated', kwExpress.requireElevated(keyward), answer)
    server.get('/conformance/bearer', kwExpress.requireBearer({ verify: app.verifyToken, keyward }), answer)
    server.get('/conformance/throws', () => {
      throw app.failure
    })
    server.use(kwExpress.keywardErrorHandler())
    return new Promise((resolve) => {
      const http = server.listen(0, '127.0.0.1', () => {
        const { port } = http.address() as AddressInfo
        resolve({ origin: `http://127.0.0.1:${port}`, close: closer(http) })
      })
    })
  },
}

const fastifyHarness: HttpAdapterHarness = {
  name: 'fastify',
  listen: async (app: ConformanceApp) => {
    const { keyward } = app
    const server = Fastify()
    await server.register(kwFastify.keywardPlugin, { keyward, createProject: app.createProject })
    server.setErrorHandler(kwFastify.keywardErrorHandler)
    const answer = async (request: import('fastify').FastifyRequest) => ({ auth: request.keyward })
    server.get('/conformance/developer', { onRequest: kwFastify.requireDeveloper(keyward) }, answer)
    server.get(
      '/conformance/projects/:project_id/owner',
      { onRequest: kwFastify.requireDeveloper(keyward, { projectParam: 'project_id' }) },
      answer,
    )
    server.get(
      '/conformance/projects/:project_id/project',
      { onRequest: kwFastify.requireProject(keyward) },
      answer,
    )
    server.post(
      '/conformance/projects/:project_id/elevated',
      { onRequest: kwFastify.requireElevated(keyward) },
      answer,
    )
    server.get(
      '/conformance/bearer',
      { onRequest: kwFastify.requireBearer({ verify: app.verifyToken, keyward }) },
      answer,
    )
    server.get('/conformance/throws', async () => {
      throw app.failure
    })
    const origin = await server.listen({ port: 0, host: '127.0.0.1' })
    return { origin, close: () => server.close() }
  },
}

const honoHarness: HttpAdapterHarness = {
  name: 'hono',
  listen: (app: ConformanceApp) => {
    const { keyward } = app
    const server = new Hono()
    server.route('/', kwHono.keywardRoutes(keyward, { createProject: app.createProject }))
    server.get('/conformance/developer', kwHono.requireDeveloper(keyward), (c) =>
      c.json({ auth: c.get('keyward') }),
    )
    server.get(
      '/conformance/projects/:project_id/owner',
      kwHono.requireDeveloper(keyward, { projectParam: 'project_id' }),
      (c) => c.json({ auth: c.get('keyward') }),
    )
    server.get('/conformance/projects/:project_id/project', kwHono.requireProject(keyward), (c) =>
      c.json({ auth: c.get('keyward') }),
    )
    server.post('/conformance/projects/:project_id/elevated', kwHono.requireElevated(keyward), (c) =>
      c.json({ auth: c.get('keyward') }),
    )
    server.get('/conformance/bearer', kwHono.requireBearer({ verify: app.verifyToken, keyward }), (c) =>
      c.json({ auth: c.get('keyward') }),
    )
    server.get('/conformance/throws', () => {
      throw app.failure
    })
    server.onError(kwHono.keywardOnError)
    return new Promise((resolve) => {
      const http = serve({ fetch: server.fetch, port: 0, hostname: '127.0.0.1' }, (info) => {
        resolve({
          origin: `http://127.0.0.1:${info.port}`,
          close: closer(http as import('node:http').Server),
        })
      })
    })
  },
}

runHttpConformance({
  adapters: [expressHarness, fastifyHarness, honoHarness],
  limiter: (settings) => new RateLimiterMemory(settings),
})
