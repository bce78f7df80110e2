// A consumer of @keyward/fastify with @keyward/core, as the getting-started guide shows it: a
// route that requires the project's API key, called in-process with `inject`.
import assert from 'node:assert/strict'
import { createKeyward, MemoryKeyStore } from '@keyward/core'
import { keywardPlugin, requireProject } from '@keyward/fastify'
import { fastify } from 'fastify'

async function main(format: string): Promise<void> {
  const keyward = createKeyward({ store: new MemoryKeyStore() })
  const { key } = await keyward.issueProjectKey('proj_1')

  const app = fastify()
  await app.register(keywardPlugin, { keyward, keyRoutes: false })
  app.get('/api/v1/projects/:project_id/items', { onRequest: requireProject(keyward) }, async (request) => ({
    projectId: request.keyward?.scope === 'project' ? request.keyward.projectId : null,
  }))

  const ok = await app.inject({ url: '/api/v1/projects/proj_1/items', headers: { 'X-API-Key': key } })
  assert.equal(ok.statusCode, 200)
  assert.deepEqual(ok.json(), { projectId: 'proj_1' })
  for (const [url, headers, status, type] of [
    ['/api/v1/projects/proj_1/items', {}, 401, 'key_missing'],
    ['/api/v1/projects/proj_2/items', { 'X-API-Key': key }, 403, 'project_mismatch'],
  ] as const) {
    const refused = await app.inject({ url, headers })
    assert.equal(refused.statusCode, status)
    assert.equal(refused.json<{ detail: { type: string }[] }>().detail[0]?.type, type)
  }
  await app.close()
  console.log(`@keyward/fastify (${format}): 200 with the key, 401 key_missing, 403 project_mismatch`)
}

// The runner names the format and runtime: `node out/fastify.mjs ESM`.
main(process.argv.slice(2).join(' ') || 'unnamed').catch((error: unknown) => {
  console.error(error)
  process.exit(1)
})
