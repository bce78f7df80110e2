import type { LimiterFactory } from '@keyward/core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { apiKey, developerKey, ROUTES, unknownKey } from './case.js'
import type { HttpAdapterHarness, RunningServer } from './conformance.js'
import { sendChunkedFlood, streamChunkedBody } from './flood-body.js'
import { type RawRequest, type RawResponse, sendRaw } from './raw-client.js'
import { verify } from './verify-cases.js'
import { type ConformanceWorld, createConformanceWorld } from './world.js'

/** The protection of the suite's protected world: small limits, a trusted proxy header. */
const FAILED_AUTH_LIMIT = 3
const KEY_LIMIT = 2

interface Step {
  readonly name: string
  readonly request: (world: ConformanceWorld) => RawRequest
  readonly status: number
  readonly type?: string
  /** The store is asked (true) or not (false). */
  readonly lookup: boolean
  /** For a verification answered 200: the verdict's `code` (`null` for a valid key) and what is left of the key's rate limit. */
  readonly verdict?: { readonly code: string | null; readonly rateRemaining?: number }
}

const from = (address: string) => ['X-Forwarded-For', `198.51.100.250, ${address}`] as const
const P1 = ROUTES.project('proj-1')
const ATTACKER = '192.0.2.66'
const CLIENT = '192.0.2.10'
const VERIFIER = '192.0.2.20'
const CALLER = '192.0.2.30'

const STEPS: readonly Step[] = [
  ...Array.from({ length: FAILED_AUTH_LIMIT }, (_, i) => ({
    name: `guess ${i + 1} from one address: 401`,
    request: () => ({ method: 'GET', path: P1, headers: [apiKey(unknownKey()), from(ATTACKER)] }),
    status: 401,
    type: 'key_invalid',
    lookup: true,
  })),
  {
    name: 'then a valid key from that address: 429 before any lookup',
    request: (w) => ({ method: 'GET', path: P1, headers: [apiKey(w.keys.p1), from(ATTACKER)] }),
    status: 429,
    type: 'rate_limited',
    lookup: false,
  },
  {
    name: 'a key route from that address: 429',
    request: (w) => ({
      method: 'GET',
      path: '/api/v1/auth/developer-keys',
      headers: [developerKey(w.keys.d1), from(ATTACKER)],
    }),
    status: 429,
    type: 'rate_limited',
    lookup: false,
  },
  {
    name: 'a bearer token from that address: 429',
    request: () => ({
      method: 'GET',
      path: ROUTES.bearer,
      headers: [['Authorization', 'Bearer some.token'], from(ATTACKER)],
    }),
    status: 429,
    type: 'rate_limited',
    lookup: false,
  },
  ...Array.from({ length: KEY_LIMIT }, (_, i) => ({
    name: `request ${i + 1} of a key from another address: 200`,
    request: (w: ConformanceWorld) => ({
      method: 'GET',
      path: P1,
      headers: [apiKey(w.keys.p1), from(CLIENT)],
    }),
    status: 200,
    lookup: true,
  })),
  {
    name: 'past the key limit: 429 with RateLimit-Policy and RateLimit',
    request: (w) => ({ method: 'GET', path: P1, headers: [apiKey(w.keys.p1), from(CLIENT)] }),
    status: 429,
    type: 'rate_limited',
    lookup: true,
  },
  // Without the forwarded header, the address is the socket's: the adapter must pass it.
  ...Array.from({ length: FAILED_AUTH_LIMIT }, (_, i) => ({
    name: `guess ${i + 1} without a forwarded header: 401`,
    request: () => ({ method: 'GET', path: ROUTES.developer, headers: [developerKey(unknownKey())] }),
    status: 401,
    type: 'key_invalid',
    lookup: true,
  })),
  {
    name: 'then a valid key from the same socket address: 429',
    request: (w) => ({ method: 'GET', path: ROUTES.developer, headers: [developerKey(w.keys.d1)] }),
    status: 429,
    type: 'rate_limited',
    lookup: false,
  },
  // The verification service: a key's own rate limit holds through it.
  ...Array.from({ length: KEY_LIMIT }, (_, i) => ({
    name: `verify: a key for a client, ${i + 1} of its rate limit: valid`,
    request: (w: ConformanceWorld) => verify(w.keys.d2, { key: w.keys.p2, ip: CLIENT }, [from(VERIFIER)]),
    status: 200,
    lookup: true,
    verdict: { code: null, rateRemaining: KEY_LIMIT - 1 - i },
  })),
  {
    name: "verify: past the key's own rate limit: rate_limited",
    request: (w) => verify(w.keys.d2, { key: w.keys.p2, ip: CLIENT }, [from(VERIFIER)]),
    status: 200,
    lookup: true,
    verdict: { code: 'rate_limited' },
  },
  // Refused keys count against the caller, whatever `ip` it names (a new one each time escapes
  // nothing), and never against that `ip`, which meets the key's allowlist only.
  ...Array.from({ length: FAILED_AUTH_LIMIT }, (_, i) => ({
    name: `verify: guess ${i + 1}, naming a new client ip: key_invalid`,
    request: (w: ConformanceWorld) =>
      verify(w.keys.d2, { key: unknownKey(), ip: `198.51.100.${i + 1}` }, [from(VERIFIER)]),
    status: 200,
    lookup: true,
    verdict: { code: 'key_invalid' },
  })),
  {
    name: "verify: then the caller's address is throttled: 429 before any lookup",
    request: (w) => verify(w.keys.d2, { key: w.keys.p2, ip: CLIENT }, [from(VERIFIER)]),
    status: 429,
    type: 'rate_limited',
    lookup: false,
  },
  {
    name: 'verify: and its credential, from another address: 429 before the key is looked up',
    request: (w) => verify(w.keys.d2, { key: w.keys.p2 }, [from(CALLER)]),
    status: 429,
    type: 'rate_limited',
    lookup: true, // the caller's developer key
  },
  {
    name: 'an address the caller named is not throttled: a key route from there: 200',
    request: (w) => ({
      method: 'GET',
      path: ROUTES.developer,
      headers: [developerKey(w.keys.d1), from('198.51.100.1')],
    }),
    status: 200,
    lookup: true,
  },
]

const COMPARED = ['content-type', 'cache-control', 'ratelimit-policy'] as const
// Seconds left in a window may differ by one between adapters asked a moment apart.
const SECONDS = /\b(?:59|60)\b/g

function comparable(response: RawResponse) {
  // A success of a `/conformance/` route is the host's own answer, with its framework's headers.
  if (response.status < 400) return { status: response.status }
  return {
    status: response.status,
    headers: Object.fromEntries(COMPARED.map((h) => [h, response.headers[h]])),
    retryAfter: response.headers['retry-after']?.map((v) => v.replace(SECONDS, 'N')),
    rateLimit: response.headers.ratelimit?.map((v) => v.replace(SECONDS, 'N')),
    body: response.body.replace(SECONDS, 'N'),
  }
}

/**
 * @internal The protection sequence: an address is throttled after its failed verifications,
 * before any lookup, on key, key-route and bearer guards alike, and a key's rate limit is
 * enforced, with the same answers on every adapter.
 */
export function describeProtection(
  adapters: readonly HttpAdapterHarness[],
  limiter: LimiterFactory | undefined,
) {
  describe('abuse protection: throttle and key rate limits', () => {
    const servers = new Map<string, { world: ConformanceWorld; server: RunningServer }>()
    beforeAll(async () => {
      if (!limiter) return
      for (const adapter of adapters) {
        const world = await createConformanceWorld('reject', {
          limiter,
          failedAuthLimit: FAILED_AUTH_LIMIT,
          trustedProxy: { header: 'x-forwarded-for', hops: 1 },
          keyRateLimits: { project: { limit: KEY_LIMIT, windowSeconds: 60 } },
          keyPrefix: `kw-conformance-${adapter.name}-${Date.now().toString(36)}`,
        })
        servers.set(adapter.name, { world, server: await adapter.listen(world.app) })
      }
    })
    afterAll(async () => {
      for (const { server } of servers.values()) await server.close()
    })

    it.skipIf(!limiter)(
      'answers the same sequence on every adapter (skipped without a `limiter` option)',
      async () => {
        for (const step of STEPS) {
          const answers: Array<{ adapter: string; value: unknown }> = []
          for (const adapter of adapters) {
            const { world, server } = servers.get(adapter.name)!
            const before = world.lookups()
            const response = await sendRaw(server.origin, step.request(world))
            expect({ step: step.name, status: response.status }).toEqual({
              step: step.name,
              status: step.status,
            })
            expect({ step: step.name, lookup: world.lookups() > before }).toEqual({
              step: step.name,
              lookup: step.lookup,
            })
            if (step.type) {
              expect(JSON.parse(response.body).detail[0].type).toBe(step.type)
              expect(response.headers['cache-control']).toEqual(['no-store'])
            }
            if (step.status === 429) expect(response.headers['retry-after']?.[0]).toMatch(/^\d+$/)
            if (step.verdict) {
              const body = JSON.parse(response.body)
              expect({ step: step.name, code: body.code }).toEqual({
                step: step.name,
                code: step.verdict.code,
              })
              const remaining = step.verdict.rateRemaining
              if (remaining !== undefined)
                expect(body.ratelimit).toMatchObject({ limit: KEY_LIMIT, remaining })
            }
            answers.push({ adapter: adapter.name, value: comparable(response) })
          }
          for (const answer of answers.slice(1)) {
            expect({ step: step.name, adapter: answer.adapter, answer: answer.value }).toEqual({
              step: step.name,
              adapter: answer.adapter,
              answer: answers[0]!.value,
            })
          }
        }
        const first = servers.get(adapters[0]!.name)!
        const keyLimited = STEPS[FAILED_AUTH_LIMIT + 3 + KEY_LIMIT]!
        const response = await sendRaw(first.server.origin, keyLimited.request(first.world))
        expect(response.headers['ratelimit-policy']).toEqual([`"key";q=${KEY_LIMIT};w=60`])
        expect(response.headers.ratelimit?.[0]).toMatch(/^"key";r=0;t=\d+$/)
      },
    )
  })
}

const MB = 1024 * 1024

/**
 * @internal A 200 MB chunked body to a key route: 413 while it streams, the rest unread (the
 * server closes the connection), this process's memory bounded, on every adapter.
 */
export function describeBodyFlood(adapters: readonly HttpAdapterHarness[]) {
  describe('a 200 MB chunked body', () => {
    const servers = new Map<string, { world: ConformanceWorld; server: RunningServer }>()
    beforeAll(async () => {
      for (const adapter of adapters) {
        const world = await createConformanceWorld('reject')
        servers.set(adapter.name, { world, server: await adapter.listen(world.app) })
      }
    })
    afterAll(async () => {
      for (const { server } of servers.values()) await server.close()
    })

    for (const adapter of adapters) {
      it(`${adapter.name}: answers 413 and stops reading, memory bounded`, async () => {
        const { world, server } = servers.get(adapter.name)!
        const outcome = await sendChunkedFlood(
          server.origin,
          '/api/v1/auth/developer-keys',
          [
            ['X-Developer-Key', world.keys.d1],
            ['Content-Type', 'application/json'],
          ],
          200 * MB,
        )
        expect(outcome.status, outcome.response.slice(0, 300)).toBe(413)
        expect(outcome.response).toContain('"type":"payload_too_large"')
        // The server stopped taking the body: what it accepted is socket buffers, not 200 MB.
        expect(outcome.bytesAccepted).toBeLessThan(32 * MB)
        expect(outcome.rssGrowth).toBeLessThan(64 * MB)
      })

      // Node's http client reads the answer only between writes: a server that closes the
      // connection on the unread rest of the body resets it first (EPIPE). With a lingering
      // close (lingeringClose of @keyward/core) the client reads the 413 every time.
      it(`${adapter.name}: a 200 MB upload through Node's http client reads the 413, 20 times in 20`, async () => {
        const { world, server } = servers.get(adapter.name)!
        const statuses: Array<number | string> = []
        const rss = process.memoryUsage.rss()
        for (let i = 0; i < 20; i++) {
          statuses.push(
            await streamChunkedBody(
              server.origin,
              '/api/v1/auth/developer-keys',
              [
                ['X-Developer-Key', world.keys.d1],
                ['Content-Type', 'application/json'],
              ],
              200 * MB,
            ),
          )
        }
        expect(statuses).toEqual(Array(20).fill(413))
        expect(process.memoryUsage.rss() - rss).toBeLessThan(64 * MB)
      }, 60_000)
    }
  })
}
