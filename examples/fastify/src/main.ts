// The smallest Fastify app that protects a route with Keyward: one project, owned by one
// developer, whose keys are issued at start and printed once. Keys live in memory here, so every
// start issues new ones; a real app keeps them in @keyward/postgres.
import { createConsole } from '@keyward/console'
import { consoleHook } from '@keyward/console/fastify'
import { createKeyward, MemoryKeyStore, MemoryProjects } from '@keyward/core'
import { keywardErrorHandler, keywardNotFoundHandler, keywardPlugin, requireProject } from '@keyward/fastify'
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

// The first keys. A real app registers developers with the CLI (`keyward developers register`).
const developerKey = await keyward.issueDeveloperKey('dev_1', { name: 'example' })
const apiKey = await keyward.issueProjectKey('proj_1', { name: 'default' })

const url = await fastify.listen({ port: Number(process.env.PORT ?? 3002), host: '127.0.0.1' })
console.log(`Keyward + Fastify example listening on ${url}

  API key of project proj_1 (X-API-Key):    ${apiKey.key}
  Developer key of dev_1 (X-Developer-Key): ${developerKey.key}

These keys will not be shown again: copy them now.

  Console: ${url}/console/ (sign in with the developer key)

  curl -H "X-API-Key: <the API key>" ${url}/api/v1/projects/proj_1/hello`)
