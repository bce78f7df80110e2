// The shared HTTP suite against every adapter at once: each request goes to an Express, a Fastify,
// a Hono and a fetch-handler server, and their answers must be identical.
import type { AddressInfo } from 'node:net'
import { type Http2Bindings, type HttpBindings, serve } from '@hono/node-server'
import { lingeringClose } from '@keyward/core'
import * as kwExpress from '@keyward/express'
import * as kwFastify from '@keyward/fastify'
import * as kwFetch from '@keyward/fetch'
import * as kwHono from '@keyward/hono'
import * as kwNest from '@keyward/nestjs'
import { Controller, Get, HttpCode, Module, Post } from '@nestjs/common'
import { NestFactory } from '@nestjs/core'
import { ExpressAdapter } from '@nestjs/platform-express'
import { FastifyAdapter } from '@nestjs/platform-fastify'
import express from 'express'
import Fastify from 'fastify'
import { Hono } from 'hono'
import { RateLimiterMemory } from 'rate-limiter-flexible'
import { describe, expect, it } from 'vitest'
import type { HttpAdapterHarness, RunningServer } from './conformance.js'
import { runHttpConformance } from './conformance.js'
import { sendRaw } from './raw-client.js'
import { type ConformanceApp, createConformanceWorld } from './world.js'

// As a host sets up its server: a body refused at its limit is read and dropped for a while
// before the connection closes (a second here, to keep the suite short), so its client reads the 413.
const linger = (server: import('node:http').Server) => lingeringClose(server, { maxMs: 1_000 })

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
    server.use(
      kwExpress.keywardRouter(keyward, { createProject: app.createProject, listProjects: app.listProjects }),
    )
    server.get('/conformance/developer', kwExpress.requireDeveloper(keyward), answer)
    server.get(
      '/conformance/projects/:project_id/owner',
      kwExpress.requireDeveloper(keyward, { projectParam: 'project_id' }),
      answer,
    )
    server.get('/conformance/projects/:project_id/project', kwExpress.requireProject(keyward), answer)
    server.get(
      '/conformance/projects/:project_id/permitted',
      kwExpress.requireProject(keyward, { permissions: { allOf: ['reports:read'] } }),
      answer,
    )
    server.post('/conformance/projects/:project_id/elevated', kwExpress.requireElevated(keyward), answer)
    server.get('/conformance/bearer', kwExpress.requireBearer({ verify: app.verifyToken, keyward }), answer)
    server.get('/conformance/throws', () => {
      throw app.failure
    })
    server.use(kwExpress.keywardErrorHandler())
    return new Promise((resolve) => {
      const http = server.listen(0, '127.0.0.1', () => {
        linger(http)
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
    await server.register(kwFastify.keywardPlugin, {
      keyward,
      createProject: app.createProject,
      listProjects: app.listProjects,
    })
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
    server.get(
      '/conformance/projects/:project_id/permitted',
      { onRequest: kwFastify.requireProject(keyward, { permissions: { allOf: ['reports:read'] } }) },
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
    linger(server.server)
    const origin = await server.listen({ port: 0, host: '127.0.0.1' })
    return { origin, close: () => server.close() }
  },
}

const honoHarness: HttpAdapterHarness = {
  name: 'hono',
  listen: (app: ConformanceApp) => {
    const { keyward } = app
    const server = new Hono()
    server.route(
      '/',
      kwHono.keywardRoutes(keyward, { createProject: app.createProject, listProjects: app.listProjects }),
    )
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
    server.get(
      '/conformance/projects/:project_id/permitted',
      kwHono.requireProject(keyward, { permissions: { allOf: ['reports:read'] } }),
      (c) => c.json({ auth: c.get('keyward') }),
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
    return serveFetch((request, env) => server.fetch(request, env))
  },
}

/** `@hono/node-server`'s request, whose socket has the address Bun's `server.requestIP` or Deno's `info.remoteAddr` give. */
type NodeEnv = HttpBindings | Http2Bindings

/** Serves a Web `fetch` function on Node with `@hono/node-server`, as Bun.serve or Deno.serve would. */
function serveFetch(fetch: (request: Request, env: NodeEnv) => Response | Promise<Response>) {
  return new Promise<RunningServer>((resolve) => {
    const http = serve({ fetch, port: 0, hostname: '127.0.0.1' }, (info) => {
      linger(http as import('node:http').Server)
      resolve({ origin: `http://127.0.0.1:${info.port}`, close: closer(http as import('node:http').Server) })
    })
  })
}

// The fetch adapter on a server of Web handlers, routed by hand as on Bun or Deno: each route's
// parameters and the socket's address are handed to the handler as its context.
const fetchHarness: HttpAdapterHarness = {
  name: 'fetch',
  listen: (app: ConformanceApp) => {
    const { keyward } = app
    const answer = (_request: Request, auth: unknown) => Response.json({ auth })
    const routes: Array<[string, RegExp, kwFetch.FetchHandler]> = [
      ['GET', /^\/conformance\/developer$/, kwFetch.requireDeveloper(keyward, answer)],
      [
        'GET',
        /^\/conformance\/projects\/(?<project_id>[^/]+)\/owner$/,
        kwFetch.requireDeveloper(keyward, answer, { projectParam: 'project_id' }),
      ],
      [
        'GET',
        /^\/conformance\/projects\/(?<project_id>[^/]+)\/project$/,
        kwFetch.requireProject(keyward, answer),
      ],
      [
        'GET',
        /^\/conformance\/projects\/(?<project_id>[^/]+)\/permitted$/,
        kwFetch.requireProject(keyward, answer, { permissions: { allOf: ['reports:read'] } }),
      ],
      [
        'POST',
        /^\/conformance\/projects\/(?<project_id>[^/]+)\/elevated$/,
        kwFetch.requireElevated(keyward, answer),
      ],
      ['GET', /^\/conformance\/bearer$/, kwFetch.requireBearer({ verify: app.verifyToken, keyward }, answer)],
      ['GET', /^\/conformance\/throws$/, async () => kwFetch.keywardOnError(app.failure)],
    ]
    const keyRoutes = kwFetch.keywardHandler(keyward, {
      createProject: app.createProject,
      listProjects: app.listProjects,
    })
    return serveFetch((request, env) => {
      const address = env.incoming.socket.remoteAddress
      const path = new URL(request.url).pathname
      for (const [method, pattern, handler] of routes) {
        const match = request.method === method ? pattern.exec(path) : null
        if (match) return handler(request, { params: { ...match.groups }, address })
      }
      return keyRoutes(request, { address })
    })
  },
}

// A Nest app on either platform, with the body left to Keyward: Nest's body parser off, and on
// Fastify a parser that hands every body on unread (see the guide).
function nestHarness(platform: 'express' | 'fastify'): HttpAdapterHarness {
  return {
    name: `nest-${platform}`,
    listen: async (app: ConformanceApp) => {
      const { RequireBearer, RequireDeveloper, RequireElevated, RequireProject, KeywardAuth } = kwNest
      @Controller('conformance')
      class ConformanceController {
        @Get('developer')
        @RequireDeveloper()
        developer(@KeywardAuth() auth: unknown) {
          return { auth }
        }
        @Get('projects/:project_id/owner')
        @RequireDeveloper({ projectParam: 'project_id' })
        owner(@KeywardAuth() auth: unknown) {
          return { auth }
        }
        @Get('projects/:project_id/project')
        @RequireProject()
        project(@KeywardAuth() auth: unknown) {
          return { auth }
        }
        @Get('projects/:project_id/permitted')
        @RequireProject({ permissions: { allOf: ['reports:read'] } })
        permitted(@KeywardAuth() auth: unknown) {
          return { auth }
        }
        @Post('projects/:project_id/elevated')
        @HttpCode(200)
        @RequireElevated()
        elevated(@KeywardAuth() auth: unknown) {
          return { auth }
        }
        @Get('bearer')
        @RequireBearer()
        bearer(@KeywardAuth() auth: unknown) {
          return { auth }
        }
        @Get('throws')
        throws() {
          throw app.failure
        }
      }
      const { keyward, createProject, verifyToken } = app
      @Module({
        imports: [
          kwNest.KeywardModule.forRoot({
            keyward,
            createProject,
            listProjects: app.listProjects,
            bearer: { verify: verifyToken },
          }),
        ],
        controllers: [ConformanceController],
      })
      class AppModule {}
      const adapter = platform === 'express' ? new ExpressAdapter() : new FastifyAdapter()
      const nest = await NestFactory.create(AppModule, adapter, { bodyParser: false, logger: false })
      if (adapter instanceof FastifyAdapter) {
        const fastify = adapter.getInstance()
        fastify.removeAllContentTypeParsers()
        fastify.addContentTypeParser('*', (_request, payload, done) => done(null, payload))
      }
      linger(nest.getHttpServer())
      await nest.listen(0, '127.0.0.1')
      return { origin: (await nest.getUrl()).replace('[::1]', '127.0.0.1'), close: () => nest.close() }
    },
  }
}

const harnesses = [
  expressHarness,
  fastifyHarness,
  honoHarness,
  fetchHarness,
  nestHarness('express'),
  nestHarness('fastify'),
]

runHttpConformance({
  adapters: harnesses,
  limiter: (settings) => new RateLimiterMemory(settings),
})

// With the verification cache, a key it holds is answered at once, without a lookup or an
// asynchronous hop in the adapter; a revocation through the service is seen by the next request.
describe('a key the verification cache holds', () => {
  for (const adapter of harnesses) {
    it(`${adapter.name}: is answered without a lookup, and refused as soon as it is revoked`, async () => {
      const world = await createConformanceWorld('reject', undefined, {})
      const server = await adapter.listen(world.app)
      try {
        const get = (key: string) =>
          sendRaw(server.origin, {
            method: 'GET',
            path: '/conformance/projects/proj-1/project',
            headers: [['x-api-key', key]],
          })
        expect((await get(world.keys.p1)).status).toBe(200)
        const lookups = world.lookups()
        for (let i = 0; i < 3; i++) expect((await get(world.keys.p1)).status).toBe(200)
        expect(world.lookups()).toBe(lookups)
        expect(world.keyward.cacheStats()?.hits).toBeGreaterThanOrEqual(3)

        const keys = await world.keyward.listKeys({ type: 'project', id: 'proj-1' })
        const web = keys.find((key) => key.name === 'web' && key.active)
        await world.keyward.deactivateKey(web!.id)
        const refused = await get(world.keys.p1)
        expect(refused.status).toBe(401)
        expect(JSON.parse(refused.body).detail[0].type).toBe('key_invalid')
        // The refusal is cached too, and answered the same way.
        const again = await get(world.keys.p1)
        expect([again.status, again.body]).toEqual([refused.status, refused.body])
      } finally {
        await server.close()
      }
    })
  }
})
