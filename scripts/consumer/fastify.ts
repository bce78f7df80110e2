// A consumer of @keyward/fastify with @keyward/core, as the getting-started guide shows it: a
// route that requires the project's API key, called in-process with `inject`.
import { createKeyward, MemoryKeyStore } from '@keyward/core'
import { keywardPlugin, requireProject } from '@keyward/fastify'
import { fastify } from 'fastify'
import { checkProtectedRoute, runFixture } from './fixture.js'

runFixture('@keyward/fastify', async () => {
  const keyward = createKeyward({ store: new MemoryKeyStore() })
  const { key } = await keyward.issueProjectKey('proj_1')

  const app = fastify()
  await app.register(keywardPlugin, { keyward, keyRoutes: false })
  app.get('/api/v1/projects/:project_id/items', { onRequest: requireProject(keyward) }, async (request) => ({
    projectId: request.keyward?.scope === 'project' ? request.keyward.projectId : null,
  }))
  try {
    return await checkProtectedRoute(async (projectId, headers) => {
      const res = await app.inject({ url: `/api/v1/projects/${projectId}/items`, headers })
      return { status: res.statusCode, body: res.json() }
    }, key)
  } finally {
    await app.close()
  }
})
