// A consumer of @keyward/fetch with @keyward/core: a route handler that requires the project's
// API key, called with a Web Request and Next.js's `{ params }`, as Next.js, Bun or Deno would.
import { createKeyward, MemoryKeyStore } from '@keyward/core'
import { requireProject } from '@keyward/fetch'
import { checkProtectedRoute, runFixture } from './fixture.js'

runFixture('@keyward/fetch', async () => {
  const keyward = createKeyward({ store: new MemoryKeyStore() })
  const { key } = await keyward.issueProjectKey('proj_1')

  const GET = requireProject(keyward, (_request, auth) => Response.json({ projectId: auth.projectId }))

  return checkProtectedRoute(async (projectId, headers) => {
    const request = new Request(`http://localhost/api/v1/projects/${projectId}/items`, { headers })
    const res = await GET(request, { params: Promise.resolve({ project_id: projectId }) })
    return { status: res.status, body: await res.json() }
  }, key)
})
