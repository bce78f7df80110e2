// A consumer of @keyward/hono with @keyward/core, as the getting-started guide shows it: a route
// that requires the project's API key, called in-process with `app.request`.
import assert from 'node:assert/strict'
import { createKeyward, MemoryKeyStore } from '@keyward/core'
import { requireProject } from '@keyward/hono'
import { Hono } from 'hono'

async function main(format: string): Promise<void> {
  const keyward = createKeyward({ store: new MemoryKeyStore() })
  const { key } = await keyward.issueProjectKey('proj_1')

  const app = new Hono()
  app.get('/api/v1/projects/:project_id/items', requireProject(keyward), (c) =>
    c.json({ projectId: c.get('keyward').projectId }),
  )

  const ok = await app.request('/api/v1/projects/proj_1/items', { headers: { 'X-API-Key': key } })
  assert.equal(ok.status, 200)
  assert.deepEqual(await ok.json(), { projectId: 'proj_1' })
  for (const [path, headers, status, type] of [
    ['/api/v1/projects/proj_1/items', {}, 401, 'key_missing'],
    ['/api/v1/projects/proj_2/items', { 'X-API-Key': key }, 403, 'project_mismatch'],
  ] as const) {
    const refused = await app.request(path, { headers })
    assert.equal(refused.status, status)
    assert.equal(((await refused.json()) as { detail: { type: string }[] }).detail[0]?.type, type)
  }
  console.log(`@keyward/hono (${format}): 200 with the key, 401 key_missing, 403 project_mismatch`)
}

// The runner names the format and runtime: `node out/hono.mjs ESM`.
main(process.argv.slice(2).join(' ') || 'unnamed').catch((error: unknown) => {
  console.error(error)
  process.exit(1)
})
