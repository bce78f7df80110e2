// A consumer of @keyward/express with @keyward/core, as the getting-started guide shows it: a
// route that requires the project's API key, on a server listening on 127.0.0.1 (ephemeral port).
import { once } from 'node:events'
import type { AddressInfo } from 'node:net'
import { createKeyward, MemoryKeyStore } from '@keyward/core'
import { requireProject } from '@keyward/express'
import express from 'express'
import { checkProtectedRoute, runFixture } from './fixture.js'

runFixture('@keyward/express', async () => {
  const keyward = createKeyward({ store: new MemoryKeyStore() })
  const { key } = await keyward.issueProjectKey('proj_1')

  const app = express()
  app.get('/api/v1/projects/:project_id/items', requireProject(keyward), (req, res) => {
    res.json({ projectId: req.keyward?.scope === 'project' ? req.keyward.projectId : null })
  })
  const server = app.listen(0, '127.0.0.1')
  await once(server, 'listening')
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  try {
    return await checkProtectedRoute(async (projectId, headers) => {
      const res = await fetch(`${base}/api/v1/projects/${projectId}/items`, { headers })
      return { status: res.status, body: await res.json() }
    }, key)
  } finally {
    server.close()
  }
})
