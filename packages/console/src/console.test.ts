// The console's server side, mounted the three ways a host mounts it (Hono, Express, Fastify) in
// front of that adapter's key routes, on a real socket: sign-in, the session that authenticates the
// page's API calls, sign-out, idle and revoked sessions, origins, headers and the throttle.
import type { AddressInfo } from 'node:net'
import { serve } from '@hono/node-server'
import { createKeyward, type Keyward, MemoryKeyStore } from '@keyward/core'
import { keywardRouter } from '@keyward/express'
import { keywardPlugin } from '@keyward/fastify'
import { keywardRoutes } from '@keyward/hono'
import express from 'express'
import Fastify from 'fastify'
import { Hono } from 'hono'
import { RateLimiterMemory } from 'rate-limiter-flexible'
import { afterEach, describe, expect, it } from 'vitest'
import { type ConsoleOptions, createConsole, type KeywardConsole } from './console.js'
import { consoleMiddleware as expressConsole } from './express.js'
import { consoleHook } from './fastify.js'
import { consoleMiddleware as honoConsole } from './hono.js'
import { memorySessionStore } from './sessions.js'

interface Mounted {
  readonly base: string
  close(): Promise<void>
}

type Mount = (console: KeywardConsole, keyward: Keyward) => Promise<Mounted>

const listening = (server: { address(): AddressInfo | string | null }) =>
  `http://127.0.0.1:${(server.address() as AddressInfo).port}`

const MOUNTS: Record<string, Mount> = {
  async hono(console, keyward) {
    const app = new Hono()
    app.use(honoConsole(console))
    app.route('/', keywardRoutes(keyward))
    const server = await new Promise<ReturnType<typeof serve>>((done) => {
      const started = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' }, () => done(started))
    })
    return { base: listening(server), close: () => new Promise((done) => server.close(() => done())) }
  },
  async express(console, keyward) {
    const app = express()
    app.use(expressConsole(console))
    app.use(keywardRouter(keyward))
    const server = await new Promise<import('node:http').Server>((done) => {
      const started = app.listen(0, '127.0.0.1', () => done(started))
    })
    return { base: listening(server), close: () => new Promise((done) => server.close(() => done())) }
  },
  async fastify(console, keyward) {
    const app = Fastify()
    app.addHook('onRequest', consoleHook(console))
    await app.register(keywardPlugin, { keyward })
    await app.listen({ port: 0, host: '127.0.0.1' })
    return { base: listening(app.server), close: () => app.close() }
  },
}

const opened: Mounted[] = []
afterEach(async () => {
  for (const mounted of opened.splice(0)) await mounted.close()
})

async function world(
  mount: Mount,
  options: ConsoleOptions = {},
  failedAuthLimit = 100,
  permissions?: readonly string[],
) {
  const keyward = createKeyward({
    store: new MemoryKeyStore(),
    projectOwner: async () => null,
    protection: { limiter: (settings) => new RateLimiterMemory(settings), failedAuthLimit },
    ...(permissions ? { permissions } : {}),
  })
  const mounted = await mount(createConsole(keyward, options), keyward)
  opened.push(mounted)
  const { key, record } = await keyward.issueDeveloperKey('dev_1', { name: 'laptop' })
  const call = (path: string, init: RequestInit = {}) =>
    fetch(`${mounted.base}${path}`, { redirect: 'manual', ...init })
  const signIn = async (developerKey = key) => {
    const response = await call('/console/session', {
      method: 'POST',
      headers: { 'x-developer-key': developerKey, origin: mounted.base },
    })
    const cookie = response.headers.get('set-cookie') ?? ''
    return { response, cookie: cookie.split(';')[0]! }
  }
  /** An API call as the signed-in page makes it. */
  const asPage = (cookie: string, path = '/api/v1/auth/developer-keys', init: RequestInit = {}) =>
    call(path, {
      ...init,
      headers: { cookie, 'x-keyward-console': '1', origin: mounted.base, ...init.headers },
    })
  return { keyward, key, record, call, signIn, asPage, base: mounted.base }
}

const typeOf = async (response: Response) =>
  ((await response.json()) as { detail: { type: string }[] }).detail[0]!.type

describe.each(Object.keys(MOUNTS))('the console on %s', (name) => {
  const mount = MOUNTS[name]!

  it('serves the page with a strict Content-Security-Policy, and redirects the bare path', async () => {
    const w = await world(mount)
    const page = await w.call('/console/', { headers: { 'accept-encoding': 'gzip' } })
    expect(page.status).toBe(200)
    expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8')
    const csp = page.headers.get('content-security-policy')!
    expect(csp).toContain("script-src 'self'")
    expect(csp).toContain("frame-ancestors 'none'")
    expect(csp).not.toMatch(/unsafe-inline|unsafe-eval/)
    expect(page.headers.get('x-content-type-options')).toBe('nosniff')
    expect(page.headers.get('referrer-policy')).toBe('no-referrer')
    const html = await page.text()
    const script = /src="\.\/(assets\/[^"]+\.js)"/.exec(html)![1]!
    const asset = await w.call(`/console/${script}`)
    expect(asset.status).toBe(200)
    expect(asset.headers.get('cache-control')).toContain('immutable')
    expect(asset.headers.get('content-security-policy')).toBe(csp)
    const bare = await w.call('/console')
    expect([bare.status, bare.headers.get('location')]).toEqual([308, '/console/'])
    const missing = await w.call('/console/nothing-here')
    expect([missing.status, await typeOf(missing), missing.headers.get('content-security-policy')]).toEqual([
      404,
      'not_found',
      csp,
    ])
  })

  it('exchanges a developer key for an HttpOnly, SameSite=Strict session cookie that holds no key', async () => {
    const w = await world(mount)
    const { response, cookie } = await w.signIn()
    expect(response.status).toBe(201)
    expect(await response.json()).toMatchObject({
      developer_id: 'dev_1',
      key_prefix: w.record.keyPrefix,
      idle_timeout_seconds: 1800,
    })
    const set = response.headers.get('set-cookie')!
    expect(set).toMatch(/^keyward_session=[^;]+; Path=\/; HttpOnly; SameSite=Strict; Max-Age=43200$/)
    expect(set).not.toContain(w.key)
    expect(set).not.toContain(w.key.slice(3))
    expect(response.headers.get('content-security-policy')).toContain("default-src 'none'")
    // The page's API calls are authenticated by it.
    const listed = await w.asPage(cookie)
    expect(listed.status).toBe(200)
    expect(JSON.stringify(await listed.json())).toContain(w.record.id)
    const current = await w.call('/console/session', { headers: { cookie } })
    expect(await current.json()).toMatchObject({ developer_id: 'dev_1' })
  })

  it('tells the signed-in page the permission names the host declares, and none when it declares none', async () => {
    const declared = ['reports:read', 'reports:write']
    const w = await world(mount, {}, 100, declared)
    const { response, cookie } = await w.signIn()
    expect([response.status, (await response.json()).permissions]).toEqual([201, declared])
    const current = await w.call('/console/session', { headers: { cookie } })
    expect([current.status, (await current.json()).permissions]).toEqual([200, declared])
    const bare = await world(mount)
    const signedIn = await bare.signIn()
    expect([signedIn.response.status, (await signedIn.response.json()).permissions]).toEqual([201, []])
  })

  it('refuses a wrong or malformed key in the error format, and counts it toward the throttle', async () => {
    const w = await world(mount, {}, 2)
    const malformed = await w.signIn('ak_short')
    expect([malformed.response.status, await typeOf(malformed.response)]).toEqual([401, 'key_malformed'])
    expect(malformed.cookie).toBe('')
    const unknown = await w.signIn(`ak_${'x'.repeat(32)}`)
    expect([unknown.response.status, await typeOf(unknown.response)]).toEqual([401, 'key_invalid'])
    // Two failures from this address: the next sign-in, with the right key, waits.
    const throttled = await w.signIn()
    expect([throttled.response.status, await typeOf(throttled.response)]).toEqual([429, 'rate_limited'])
    expect(throttled.response.headers.get('retry-after')).toMatch(/^\d+$/)
  })

  it('authenticates only the page: no console header, another origin, or an altered cookie is refused', async () => {
    const w = await world(mount)
    const { cookie } = await w.signIn()
    // A form or link of another site sends the cookie (same site) but cannot add the header.
    const plain = await w.call('/api/v1/auth/developer-keys', { method: 'POST', headers: { cookie } })
    expect([plain.status, await typeOf(plain)]).toEqual([401, 'key_missing'])
    const foreign = await w.asPage(cookie, '/api/v1/auth/developer-keys', {
      method: 'POST',
      headers: { origin: 'http://127.0.0.1:1' },
    })
    expect([foreign.status, await typeOf(foreign)]).toEqual([403, 'origin_refused'])
    expect(await w.keyward.listKeys({ type: 'developer', id: 'dev_1' })).toHaveLength(1) // nothing created
    const [id, iv, sealed] = cookie.split('=')[1]!.split('.')
    const altered = `keyward_session=${id}.${iv}.${sealed!.slice(0, -2)}AA`
    const refused = await w.asPage(altered)
    expect([refused.status, await typeOf(refused)]).toEqual([401, 'session_invalid'])
    const forged = await w.call('/console/session', {
      method: 'POST',
      headers: { 'x-developer-key': w.key, origin: 'http://evil.test' },
    })
    expect([forged.status, await typeOf(forged)]).toEqual([403, 'origin_refused'])
  })

  it('ends the session on sign-out: the old cookie no longer works', async () => {
    const w = await world(mount)
    const { cookie } = await w.signIn()
    const out = await w.call('/console/session', { method: 'DELETE', headers: { cookie, origin: w.base } })
    expect(out.status).toBe(204)
    expect(out.headers.get('set-cookie')).toMatch(/^keyward_session=; .*Max-Age=0/)
    const after = await w.asPage(cookie)
    expect([after.status, await typeOf(after)]).toEqual([401, 'session_invalid'])
  })

  it('ends the session when its developer key is revoked, expires or is past a roll', async () => {
    const w = await world(mount)
    const { cookie } = await w.signIn()
    await w.keyward.deactivateKey(w.record.id)
    const after = await w.asPage(cookie)
    expect([after.status, await typeOf(after)]).toEqual([401, 'session_invalid'])
    expect(after.headers.get('set-cookie')).toMatch(/Max-Age=0/)
    // Re-activating the key does not bring the ended session back.
    await w.keyward.activateKey(w.record.id)
    expect((await w.asPage(cookie)).status).toBe(401)

    const { cookie: second } = await w.signIn()
    await w.keyward.rollKey(w.record.id, { graceSeconds: 0 })
    expect((await w.asPage(second)).status).toBe(401)
  })

  it('ends the session after its idle timeout, and keeps one in use', async () => {
    const w = await world(mount, {
      idleTimeoutMinutes: 0.02,
      sessions: memorySessionStore({ clockResolutionMs: 10 }),
    })
    const { cookie } = await w.signIn()
    for (let i = 0; i < 4; i++) {
      await new Promise((done) => setTimeout(done, 400))
      expect((await w.asPage(cookie)).status).toBe(200) // each request renews it (idle 1.2 s)
    }
    await new Promise((done) => setTimeout(done, 2_500))
    expect((await w.asPage(cookie)).status).toBe(401)
  })

  it('leaves a caller that sends its own key alone', async () => {
    const w = await world(mount)
    const own = await w.call('/api/v1/auth/developer-keys', {
      headers: { 'x-developer-key': w.key, 'x-keyward-console': '1' },
    })
    expect(own.status).toBe(200)
    const none = await w.call('/api/v1/auth/developer-keys')
    expect([none.status, await typeOf(none)]).toEqual([401, 'key_missing'])
  })
})

describe('createConsole', () => {
  const keyward = createKeyward({ store: new MemoryKeyStore() })
  it('checks its options when it is built', () => {
    expect(() => createConsole({} as Keyward)).toThrow('Keyward service')
    expect(() => createConsole(keyward, { basePath: 'console/' })).toThrow('`basePath`')
    expect(() => createConsole(keyward, { idleTimeoutMinutes: 0 })).toThrow('`idleTimeoutMinutes`')
    expect(() => createConsole(keyward, { origins: ['example.com'] })).toThrow('`origins`')
    expect(() => createConsole(keyward, { assetsDir: '/nowhere' })).toThrow('not built')
  })

  it('names the cookie __Host- and makes it Secure over HTTPS', async () => {
    const console = createConsole(keyward, {})
    const { key } = await keyward.issueDeveloperKey('dev_2')
    const answer = await console.handle(
      {
        method: 'POST',
        url: 'https://admin.example.com/console/session',
        params: {},
        header: (name) => ({ 'x-developer-key': key, origin: 'https://admin.example.com' })[name],
      },
      { secure: true },
    )
    expect(answer.type).toBe('respond')
    const response = (answer as { response: { status: number; headers: Record<string, string> } }).response
    expect(response.status).toBe(201)
    expect(response.headers['set-cookie']).toMatch(
      /^__Host-keyward_session=[^;]+; Path=\/; HttpOnly; SameSite=Strict; Max-Age=\d+; Secure$/,
    )
  })
})
