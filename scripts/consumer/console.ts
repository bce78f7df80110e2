// A consumer of @keyward/console, mounted in Hono in front of the key routes as docs/console.md
// shows it: the page is served, a developer key signs in, and the session lists the keys.
import assert from 'node:assert/strict'
import { createConsole } from '@keyward/console'
import { consoleMiddleware } from '@keyward/console/hono'
import { createKeyward, MemoryKeyStore } from '@keyward/core'
import { keywardRoutes } from '@keyward/hono'
import { Hono } from 'hono'
import { runFixture } from './fixture.js'

runFixture('@keyward/console', async () => {
  const keyward = createKeyward({ store: new MemoryKeyStore(), projectOwner: () => null })
  const { key, record } = await keyward.issueDeveloperKey('dev_1')
  const app = new Hono()
  app.use(consoleMiddleware(createConsole(keyward)))
  app.route('/', keywardRoutes(keyward))

  const page = await app.request('/console/')
  assert.equal(page.status, 200)
  assert.match(await page.text(), /<script type="module"/)
  const signIn = await app.request('/console/session', {
    method: 'POST',
    headers: { 'x-developer-key': key, origin: 'http://localhost' },
  })
  assert.equal(signIn.status, 201)
  const cookie = signIn.headers.get('set-cookie')!.split(';')[0]!
  const listed = await app.request('/api/v1/auth/developer-keys', {
    headers: { cookie, 'x-keyward-console': '1' },
  })
  assert.equal(listed.status, 200)
  assert.match(await listed.text(), new RegExp(record.id))
  return 'page served, signed in, keys listed through the session'
})
