// src/main.ts: the smallest Fastify app that protects routes with Keyward: one project, owned by
// one developer, whose keys are issued at start and printed once. Keys live in memory here, so
// every start issues new ones; a real app keeps them in @keyward/postgres.
import { createConsole } from '@keyward/console'
import { consoleHook } from '@keyward/console/fastify'
import {
  createKeyward,
  ErrorType,
  KeywardError,
  lingeringClose,
  MemoryKeyStore,
  MemoryProjects,
} from '@keyward/core'
import {
  keywardErrorHandler,
  keywardNotFoundHandler,
  keywardPlugin,
  requireBearer,
  requireKey,
  requireProject,
} from '@keyward/fastify'
import Fastify from 'fastify'

// Projects in memory: proj_1, owned by dev_1, and those created through the key routes.
const projects = new MemoryProjects([{ id: 'proj_1', name: 'Example', developerId: 'dev_1' }])

const keyward = createKeyward({
  store: new MemoryKeyStore(),
  projectOwner: projects.owner,
})

const fastify = Fastify()
// The administrative console at /console: developers sign in with a developer key and manage
// keys in the browser. Its hook runs before every route, whose calls from its page it authenticates.
fastify.addHook('onRequest', consoleHook(createConsole(keyward)))
// Declares request.keyward and mounts the key endpoints: the developer key of dev_1 creates and
// lists projects, and creates, lists and revokes their keys.
await fastify.register(keywardPlugin, { keyward, ...projects.routes })
// Unmatched routes, bad JSON and thrown KeywardErrors answer in the error format.
fastify.setErrorHandler(keywardErrorHandler)
fastify.setNotFoundHandler(keywardNotFoundHandler)

// An API key of the project named by :project_id, in the X-API-Key header.
fastify.get('/api/v1/projects/:project_id/hello', { onRequest: requireProject(keyward) }, async (request) => {
  const { projectId, projectKey } = request.keyward // ProjectAuth
  return { message: `Hello, ${projectId}!`, projectId, key: projectKey.keyPrefix }
})

// Your routes, in src/main.ts after the hello route and before the server starts listening.

// Any active API key, on a route without a project in its path: the context says whose it is.
fastify.get('/api/v1/whoami', { onRequest: requireKey(keyward) }, async (request) => ({
  projectId: request.keyward.projectId,
}))

// A bearer token, checked by your function: the claims of a valid token, or null.
const verify = (token: string) => (token === process.env.REPORTS_TOKEN ? { sub: 'reports' } : null)
fastify.get('/reports', { onRequest: requireBearer({ verify }) }, async (request) => ({
  sub: request.keyward.claims.sub, // BearerAuth<{ sub: string }>
}))

// Every route of a plugin, protected by one hook on its encapsulated context; a KeywardError
// thrown from a handler answers in the error format.
const orders = new Map<string, unknown>()
await fastify.register(async (scope) => {
  scope.addHook('onRequest', requireProject(keyward))
  scope.post('/api/v1/projects/:project_id/orders', async (request, reply) => {
    const id = crypto.randomUUID()
    orders.set(id, request.body)
    return reply.code(201).send({ id })
  })
  scope.get<{ Params: { order_id: string } }>(
    '/api/v1/projects/:project_id/orders/:order_id',
    async (request) => {
      const order = orders.get(request.params.order_id)
      if (order === undefined)
        throw new KeywardError(ErrorType.notFound, 'Order not found.', ['path', 'order_id'])
      return order
    },
  )
})

// Last in src/main.ts, the first keys. A real app registers developers with the CLI
// (`keyward developers register`).
const developerKey = await keyward.issueDeveloperKey('dev_1', { name: 'example' })
const apiKey = await keyward.issueProjectKey('proj_1', { name: 'default' })

// A clean stop: when Fastify closes, the keys' pending last-used times are written (with
// @keyward/postgres, close its store next).
fastify.addHook('onClose', () => keyward.flushLastUsed())
// A body past the limit is answered 413, then read and dropped for a while before the connection
// closes, so that a client still sending it reads the answer.
lingeringClose(fastify.server)

const url = await fastify.listen({ port: Number(process.env.PORT ?? 3002), host: '127.0.0.1' })
console.log(`Keyward + Fastify example listening on ${url}

  API key of project proj_1 (X-API-Key):    ${apiKey.key}
  Developer key of dev_1 (X-Developer-Key): ${developerKey.key}

These keys will not be shown again: copy them now.

  Console: ${url}/console/ (sign in with the developer key)

  curl -H "X-API-Key: <the API key>" ${url}/api/v1/projects/proj_1/hello`)

// On Ctrl-C or SIGTERM: no new connections, the requests under way finish, the hooks run.
const stop = () => fastify.close().then(() => process.exit(0))
process.once('SIGINT', stop).once('SIGTERM', stop)
