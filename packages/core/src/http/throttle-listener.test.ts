import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { RateLimiterMemory } from 'rate-limiter-flexible'
import { afterEach, describe, expect, it } from 'vitest'
import type { ProtectionOptions } from '../protection/options.js'
import { createKeyward } from '../service/keyward.js'
import { MemoryKeyStore } from '../store/memory.js'
import { projectGuard } from './guards.js'
import { nodeRequestHeader } from './node-headers.js'
import { throttleListener } from './throttle-listener.js'

const unknownKey = (i: number) => `ak_${String(i).padStart(32, 'Z')}`
const ATTACKER = '203.0.113.7'
const CLIENT = '198.51.100.1'

const servers: Array<ReturnType<typeof createServer>> = []
afterEach(async () => {
  // Idle keep-alive connections are closed too: a runtime whose fetch keeps one open would
  // otherwise hold close() until the test's hook times out.
  await Promise.all(
    servers.splice(0).map((server) => {
      const closed = new Promise((resolve) => server.close(resolve))
      server.closeAllConnections?.()
      return closed
    }),
  )
})

/**
 * A real Node.js server: a plain listener that guards `/items/<project>` with Keyward (as any
 * framework would) and answers everything else 200, wrapped by throttleListener. The listener
 * counts the requests it sees; the client address comes from X-Forwarded-For (one trusted proxy).
 */
async function serverWith(protection: Partial<ProtectionOptions> | undefined) {
  const keyward = createKeyward({
    store: new MemoryKeyStore(),
    projectOwner: () => 'd1',
    protection: protection && {
      limiter: (settings) => new RateLimiterMemory(settings),
      failedAuthLimit: 3,
      trustedProxy: { header: 'x-forwarded-for' },
      ...protection,
    },
  })
  const { key } = await keyward.issueProjectKey('p1')
  const guard = projectGuard(keyward)
  let seen = 0
  const listener = (req: IncomingMessage, res: ServerResponse) => {
    seen++
    const project = /^\/items\/([^/?]+)/.exec(req.url ?? '')?.[1]
    if (!project) return void res.writeHead(200).end('open')
    void guard({
      method: req.method ?? 'GET',
      url: req.url ?? '/',
      params: { project_id: project },
      header: (name) => nodeRequestHeader(req, name),
      address: req.socket.remoteAddress,
    }).then((result) =>
      result.ok
        ? res.writeHead(200).end('ok')
        : res.writeHead(result.response.status, result.response.headers).end(result.response.body),
    )
  }
  const wrapped = throttleListener(keyward, listener)
  const server = createServer(wrapped)
  servers.push(server)
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  // Each answer is read in full before it is returned, so no response is left holding its connection.
  const send = async (path: string, from: string, headers: Record<string, string> = {}) => {
    const response = await fetch(`${base}${path}`, { headers: { 'x-forwarded-for': from, ...headers } })
    const body = await response.arrayBuffer()
    return new Response(body, { status: response.status, headers: response.headers })
  }
  return { keyward, key, listener, wrapped, send, seen: () => seen }
}

describe('throttleListener', () => {
  it('answers a credentialed request of a throttled address 429 before the listener sees it', async () => {
    const s = await serverWith({})
    for (let i = 0; i < 3; i++) {
      expect((await s.send('/items/p1', ATTACKER, { 'x-api-key': unknownKey(i) })).status).toBe(401)
    }
    expect(s.seen()).toBe(3)
    // The third failure reached the limit: from then on the address's credentialed requests are
    // answered before the listener, a valid key's too, on any path, with any credential header.
    const credentials: Array<Record<string, string>> = [
      { 'x-api-key': s.key },
      { 'x-developer-key': unknownKey(9) },
      { authorization: 'Bearer t' },
    ]
    for (const headers of credentials) {
      const response = await s.send('/anything', ATTACKER, headers)
      expect(response.status).toBe(429)
      expect(response.headers.get('cache-control')).toBe('no-store')
      expect(response.headers.get('content-type')).toBe('application/json; charset=utf-8')
      expect(Number(response.headers.get('retry-after'))).toBeGreaterThanOrEqual(59)
      expect(await response.json()).toEqual({
        detail: [
          {
            loc: [],
            msg: expect.stringMatching(
              /^Too many failed authentications from this address: try again in \d+ seconds\.$/,
            ),
            type: 'rate_limited',
          },
        ],
      })
    }
    expect(s.seen()).toBe(3)
  })

  it('passes on requests without a credential, and those of other addresses', async () => {
    const s = await serverWith({})
    for (let i = 0; i < 4; i++) await s.send('/items/p1', ATTACKER, { 'x-api-key': unknownKey(i) })
    const seen = s.seen()
    const open = await s.send('/healthz', ATTACKER)
    expect([open.status, await open.text()]).toEqual([200, 'open'])
    expect((await s.send('/items/p1', CLIENT, { 'x-api-key': s.key })).status).toBe(200)
    expect(s.seen()).toBe(seen + 2)
  })

  it('is the listener itself when the service has no protection', async () => {
    const s = await serverWith(undefined)
    expect(s.wrapped).toBe(s.listener)
  })

  it('refuses what is not a service or a listener, at construction', () => {
    const keyward = createKeyward({ store: new MemoryKeyStore() })
    expect(() => throttleListener({} as never, () => {})).toThrow(
      'throttleListener: the first argument must be a Keyward service (createKeyward).',
    )
    expect(() => throttleListener(keyward, undefined as never)).toThrow(
      'throttleListener: the second argument must be a request listener.',
    )
  })
})
