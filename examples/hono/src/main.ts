// src/main.ts: the smallest Hono app that protects routes with Keyward, served on Node.js: one
// project, owned by one developer, whose keys are issued at start and printed once. Keys live in
// memory here, so every start issues new ones; a real app keeps them in @keyward/postgres.
import { serve } from '@hono/node-server'
import { createConsole } from '@keyward/console'
import { consoleMiddleware } from '@keyward/console/hono'
import {
  createKeyward,
  ErrorType,
  KeywardError,
  lingeringClose,
  MemoryKeyStore,
  MemoryProjects,
  readJsonObjectBody,
} from '@keyward/core'
import {
  keywardNotFound,
  keywardOnError,
  keywardRoutes,
  requireBearer,
  requireKey,
  requireProject,
  toKeywardRequest,
} from '@keyward/hono'
import { Hono } from 'hono'

// Projects in memory: proj_1, owned by dev_1, and those created through the key routes.
const projects = new MemoryProjects([{ id: 'proj_1', name: 'Example', developerId: 'dev_1' }])

const keyward = createKeyward({
  store: new MemoryKeyStore(),
  projectOwner: projects.owner,
})

const app = new Hono()

// The administrative console at /console: developers sign in with a developer key and manage
// keys in the browser. It comes before the routes, whose calls from its page it authenticates.
app.use(consoleMiddleware(createConsole(keyward)))

// An API key of the project named by :project_id, in the X-API-Key header.
app.get('/api/v1/projects/:project_id/hello', requireProject(keyward), (c) => {
  const { projectId, projectKey } = c.get('keyward') // ProjectAuth
  return c.json({ message: `Hello, ${projectId}!`, projectId, key: projectKey.keyPrefix })
})

// Your routes, in src/main.ts after the hello route and before the key endpoints.

// Any active API key, on a route without a project in its path: the context says whose it is.
app.get('/api/v1/whoami', requireKey(keyward), (c) => c.json({ projectId: c.get('keyward').projectId }))

// A bearer token, checked by your function: the claims of a valid token, or null.
const verify = (token: string) => (token === process.env.REPORTS_TOKEN ? { sub: 'reports' } : null)
app.get('/reports', requireBearer({ verify }), (c) => c.json({ sub: c.get('keyward').claims.sub }))

// A JSON body read by Keyward's rules (at most 16 KiB, an object), and a KeywardError thrown
// from a handler: both answer in the error format.
const orders = new Map<string, unknown>()
app.post('/api/v1/projects/:project_id/orders', requireProject(keyward), async (c) => {
  // 413 payload_too_large past the limit; 422 json_invalid or dict_type at ["body"]
  const body = await readJsonObjectBody(toKeywardRequest(c), { limit: 16 * 1024 })
  if (body === undefined) throw new KeywardError(ErrorType.missing, 'Field required.', ['body'])
  const id = crypto.randomUUID()
  orders.set(id, body.value) // body.text: the JSON as it was sent
  return c.json({ id }, 201)
})
app.get('/api/v1/projects/:project_id/orders/:order_id', requireProject(keyward), (c) => {
  const order = orders.get(c.req.param('order_id'))
  if (order === undefined)
    throw new KeywardError(ErrorType.notFound, 'Order not found.', ['path', 'order_id'])
  return c.json(order)
})

// The key endpoints, in src/main.ts after your routes: the developer key of dev_1 creates and
// lists projects, and creates, lists and revokes their keys.
app.route('/', keywardRoutes(keyward, projects.routes))
// Last, unmatched routes and thrown KeywardErrors answer in the error format.
app.notFound(keywardNotFound)
app.onError(keywardOnError)

// Last in src/main.ts, the first keys. A real app registers developers with the CLI
// (`keyward developers register`).
const developerKey = await keyward.issueDeveloperKey('dev_1', { name: 'example' })
const apiKey = await keyward.issueProjectKey('proj_1', { name: 'default' })

const port = Number(process.env.PORT ?? 3003)
const server = serve({ fetch: app.fetch, port, hostname: '127.0.0.1' }, (info) => {
  const url = `http://127.0.0.1:${info.port}`
  console.log(`Keyward + Hono example listening on ${url}

  API key of project proj_1 (X-API-Key):    ${apiKey.key}
  Developer key of dev_1 (X-Developer-Key): ${developerKey.key}

These keys will not be shown again: copy them now.

  Console: ${url}/console/ (sign in with the developer key)

  curl -H "X-API-Key: <the API key>" ${url}/api/v1/projects/proj_1/hello`)
})
// A body past the limit is answered 413, then read and dropped for a while before the connection
// closes, so that a client still sending it reads the answer.
lingeringClose(server)

// A clean stop on Ctrl-C or SIGTERM: no new connections, the requests under way finish, then
// the keys' pending last-used times are written (with @keyward/postgres, close its store next).
const stop = () =>
  server.close(() => {
    keyward.flushLastUsed().then(() => process.exit(0))
  })
process.once('SIGINT', stop).once('SIGTERM', stop)
