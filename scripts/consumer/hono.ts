// A consumer of @keyward/hono with @keyward/core, as the getting-started guide shows it: a route
// that requires the project's API key, called in-process with `app.request`.
import { createKeyward, MemoryKeyStore } from '@keyward/core'
import { requireProject } from '@keyward/hono'
import { Hono } from 'hono'
import { checkProtectedRoute, runFixture } from './fixture.js'

runFixture('@keyward/hono', async () => {
  const keyward = createKeyward({ store: new MemoryKeyStore() })
  const { key } = await keyward.issueProjectKey('proj_1')

  const app = new Hono()
  app.get('/api/v1/projects/:project_id/items', requireProject(keyward), (c) =>
    c.json({ projectId: c.get('keyward').projectId }),
  )

  return checkProtectedRoute(async (projectId, headers) => {
    const res = await app.request(`/api/v1/projects/${projectId}/items`, { headers })
    return { status: res.status, body: await res.json() }
  }, key)
})
