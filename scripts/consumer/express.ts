// A consumer of @keyward/express with @keyward/core, as the getting-started guide shows it: a
// route that requires the project's API key, on a server listening on 127.0.0.1 (ephemeral port).
import assert from 'node:assert/strict'
import { once } from 'node:events'
import type { AddressInfo } from 'node:net'
import { createKeyward, MemoryKeyStore } from '@keyward/core'
import { requireProject } from '@keyward/express'
import express from 'express'

async function main(format: string): Promise<void> {
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
    const ok = await fetch(`${base}/api/v1/projects/proj_1/items`, { headers: { 'X-API-Key': key } })
    assert.equal(ok.status, 200)
    assert.deepEqual(await ok.json(), { projectId: 'proj_1' })
    for (const [path, headers, status, type] of [
      ['/api/v1/projects/proj_1/items', {}, 401, 'key_missing'],
      ['/api/v1/projects/proj_2/items', { 'X-API-Key': key }, 403, 'project_mismatch'],
    ] as const) {
      const refused = await fetch(`${base}${path}`, { headers })
      assert.equal(refused.status, status)
      assert.equal(((await refused.json()) as { detail: { type: string }[] }).detail[0]?.type, type)
    }
  } finally {
    server.close()
  }
  console.log(`@keyward/express (${format}): 200 with the key, 401 key_missing, 403 project_mismatch`)
}

// The runner names the format and runtime: `node out/express.mjs ESM`.
main(process.argv.slice(2).join(' ') || 'unnamed').catch((error: unknown) => {
  console.error(error)
  process.exit(1)
})
