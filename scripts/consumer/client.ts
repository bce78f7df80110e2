// A consumer of @keyward/client with @keyward/core: the client configured from SERVICE_*
// variables, its requests observed through the `fetch` option, and an error answer turned
// into a typed KeywardApiError. No server is needed.
import assert from 'node:assert/strict'
import { ClientConfigError, clientFromEnv, KeywardApiError } from '@keyward/client'
import { generateKey } from '@keyward/core'
import { runFixture } from './fixture.js'

runFixture('@keyward/client', async () => {
  const developerKey = generateKey()
  const sent: { url: string; method: string; key: string | null }[] = []
  const client = clientFromEnv({
    mode: 'console',
    env: { SERVICE_BASE_URL: 'http://127.0.0.1:9', SERVICE_DEVELOPER_KEY: developerKey },
    fetch: async (url, init) => {
      sent.push({ url, method: init.method ?? 'GET', key: new Headers(init.headers).get('x-developer-key') })
      if (init.method === 'POST') {
        const detail = [
          { loc: [], msg: 'This developer already has 10 active keys.', type: 'limit_exceeded' },
        ]
        return Response.json({ detail }, { status: 409 })
      }
      return Response.json({ keys: [] })
    },
  })

  assert.deepEqual(await client.developerKeys.list(), { keys: [] })
  assert.deepEqual(sent[0], {
    url: 'http://127.0.0.1:9/api/v1/auth/developer-keys',
    method: 'GET',
    key: developerKey,
  })
  const refused = await client.developerKeys.create({ name: 'ci' }).then(
    () => undefined,
    (error: unknown) => error,
  )
  assert.ok(refused instanceof KeywardApiError)
  assert.equal(refused.status, 409)
  assert.equal(refused.type, 'limit_exceeded')

  const missing = (() => {
    try {
      clientFromEnv({ mode: 'console', env: { SERVICE_BASE_URL: 'http://127.0.0.1:9' } })
    } catch (error) {
      return error
    }
  })()
  assert.ok(missing instanceof ClientConfigError)
  assert.equal(missing.variable, 'SERVICE_DEVELOPER_KEY')
  return 'sends X-Developer-Key, 409 limit_exceeded as KeywardApiError, names a missing variable'
})
