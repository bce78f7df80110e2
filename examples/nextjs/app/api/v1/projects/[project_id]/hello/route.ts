// app/api/v1/projects/[project_id]/hello/route.ts
import { requireProject } from '@keyward/fetch'
import { keyward } from '@/lib/keyward'

// An API key of the project named by [project_id], in the X-API-Key header. Next.js passes the
// route's `{ params }` as the second argument; requireProject reads `project_id` from it.
export const GET = requireProject(keyward, (_request, auth) => {
  const { projectId, projectKey } = auth // ProjectAuth
  return Response.json({ message: `Hello, ${projectId}!`, projectId, key: projectKey.keyPrefix })
})
