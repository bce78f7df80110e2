// The smallest Hono app that protects a route with Keyward, served on Node.js: one project,
// owned by one developer, whose keys are issued at start and printed once. Keys live in memory
// here, so every start issues new ones; a real app keeps them in @keyward/postgres.
import { serve } from '@hono/node-server'
import { createConsole } from '@keyward/console'
import { consoleMiddleware } from '@keyward/console/hono'
import { createKeyward, MemoryKeyStore, MemoryProjects } from '@keyward/core'
import { keywardNotFound, keywardOnError, keywardRoutes, requireProject } from '@keyward/hono'
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

// The key endpoints: the developer key of dev_1 creates and lists projects, and creates, lists
// and revokes their keys.
app.route('/', keywardRoutes(keyward, projects.routes))
// Unmatched routes and thrown KeywardErrors answer in the error format.
app.notFound(keywardNotFound)
app.onError(keywardOnError)

// The first keys. A real app registers developers with the CLI (`keyward developers register`).

const developerKey = await keyward.issueDeveloperKey('dev_1', { name: 'example' })
const apiKey = await keyward.issueProjectKey('proj_1', { name: 'default' })

serve({ fetch: app.fetch, port: Number(process.env.PORT ?? 3003), hostname: '127.0.0.1' }, ({ port }) => {
  const url = `http://127.0.0.1:${port}`
  console.log(`Keyward + Hono example listening on ${url}

  API key of project proj_1 (X-API-Key):    ${apiKey.key}
  Developer key of dev_1 (X-Developer-Key): ${developerKey.key}

These keys will not be shown again: copy them now.

  Console: ${url}/console/ (sign in with the developer key)

  curl -H "X-API-Key: <the API key>" ${url}/api/v1/projects/proj_1/hello`)
})
