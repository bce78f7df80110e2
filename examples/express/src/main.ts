// src/main.ts: the smallest Express app that protects routes with Keyward: one project, owned by
// one developer, whose keys are issued at start and printed once. Keys live in memory here, so
// every start issues new ones; a real app keeps them in @keyward/postgres.
import type { AddressInfo } from 'node:net'
import { createConsole } from '@keyward/console'
import { consoleMiddleware } from '@keyward/console/express'
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
  keywardNotFound,
  keywardRouter,
  requireBearer,
  requireKey,
  requireProject,
} from '@keyward/express'
import express from 'express'

// Projects in memory: proj_1, owned by dev_1, and those created through the key routes.
const projects = new MemoryProjects([{ id: 'proj_1', name: 'Example', developerId: 'dev_1' }])

const keyward = createKeyward({
  store: new MemoryKeyStore(),
  projectOwner: projects.owner,
})

const app = express()

// The administrative console at /console: developers sign in with a developer key and manage
// keys in the browser. It comes before the routes, whose calls from its page it authenticates.
app.use(consoleMiddleware(createConsole(keyward)))

// An API key of the project named by :project_id, in the X-API-Key header.
app.get('/api/v1/projects/:project_id/hello', requireProject(keyward), (req, res) => {
  const { projectId, projectKey } = req.keyward // ProjectAuth
  res.json({ message: `Hello, ${projectId}!`, projectId, key: projectKey.keyPrefix })
})

// Your routes, in src/main.ts after the hello route and before the key endpoints.

// Any active API key, on a route without a project in its path: the context says whose it is.
app.get('/api/v1/whoami', requireKey(keyward), (req, res) => {
  res.json({ projectId: req.keyward.projectId })
})

// A bearer token, checked by your function: the claims of a valid token, or null.
const verify = (token: string) => (token === process.env.REPORTS_TOKEN ? { sub: 'reports' } : null)
app.get('/reports', requireBearer({ verify }), (req, res) => {
  res.json({ sub: req.keyward.claims.sub }) // BearerAuth<{ sub: string }>
})

// A JSON body parsed by express.json() (its errors answer in the error format too), and a
// KeywardError thrown from a handler: it answers in the error format.
const orders = new Map<string, unknown>()
app.post('/api/v1/projects/:project_id/orders', requireProject(keyward), express.json(), (req, res) => {
  const id = crypto.randomUUID()
  orders.set(id, req.body)
  res.status(201).json({ id })
})
app.get('/api/v1/projects/:project_id/orders/:order_id', requireProject(keyward), (req, res) => {
  const order = orders.get(String(req.params.order_id))
  if (order === undefined)
    throw new KeywardError(ErrorType.notFound, 'Order not found.', ['path', 'order_id'])
  res.json(order)
})

// The key endpoints, in src/main.ts after your routes: the developer key of dev_1 creates and
// lists projects, and creates, lists and revokes their keys.
app.use(keywardRouter(keyward, projects.routes))
// Last, unmatched routes, bad JSON and thrown KeywardErrors answer in the error format.
app.use(keywardNotFound())
app.use(keywardErrorHandler())

// Last in src/main.ts, the first keys. A real app registers developers with the CLI
// (`keyward developers register`).
const developerKey = await keyward.issueDeveloperKey('dev_1', { name: 'example' })
const apiKey = await keyward.issueProjectKey('proj_1', { name: 'default' })

const server = app.listen(Number(process.env.PORT ?? 3001), '127.0.0.1', (error) => {
  if (error) throw error
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  console.log(`Keyward + Express example listening on ${url}

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
