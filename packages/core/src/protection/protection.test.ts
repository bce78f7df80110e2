import { RateLimiterMemory } from 'rate-limiter-flexible'
import { describe, expect, it } from 'vitest'
import { bearerGuard, projectGuard } from '../http/guards.js'
import type { KeywardRequest } from '../http/types.js'
import type { KeywardEvent } from '../service/events.js'
import { createKeyward } from '../service/keyward.js'
import { MemoryKeyStore } from '../store/memory.js'
import type { LimiterFactory } from './limiter.js'
import type { ProtectionOptions } from './options.js'

const memory: LimiterFactory = (settings) => new RateLimiterMemory(settings)
const unknownKey = (i: number) => `ak_${String(i).padStart(32, 'Z')}`

/** A store that counts its lookups by hash. */
class CountingStore extends MemoryKeyStore {
  lookups = 0
  override findKeyByHash(hash: string) {
    this.lookups++
    return super.findKeyByHash(hash)
  }
}

async function world(protection: Partial<ProtectionOptions> = {}) {
  const events: KeywardEvent[] = []
  const store = new CountingStore()
  const keyward = createKeyward({
    store,
    projectOwner: () => 'd1',
    onEvent: (event) => events.push(event),
    protection: { limiter: memory, failedAuthLimit: 5, ...protection },
  })
  const key = (await keyward.issueProjectKey('p1')).key
  const guard = projectGuard(keyward)
  const call = (apiKey: string, address = '203.0.113.7', headers: Record<string, string> = {}) => {
    const request: KeywardRequest = {
      method: 'GET',
      url: '/',
      params: { project_id: 'p1' },
      header: (name) => (name === 'x-api-key' ? apiKey : headers[name]),
      address,
    }
    return guard(request)
  }
  return { keyward, store, events, key, call }
}

const statusOf = async (result: ReturnType<Awaited<ReturnType<typeof world>>['call']>) => {
  const r = await result
  return r.ok ? 200 : r.response.status
}

describe('failed-verification throttle', () => {
  it('answers 429 rate_limited with Retry-After past the limit, to a valid key too, before any lookup', async () => {
    const w = await world()
    for (let i = 0; i < 5; i++) expect(await statusOf(w.call(unknownKey(i)))).toBe(401)
    expect(w.store.lookups).toBe(5)
    for (const key of [unknownKey(99), w.key]) {
      const result = await w.call(key)
      expect(result.ok).toBe(false)
      if (result.ok) return
      expect(result.response.status).toBe(429)
      expect(JSON.parse(result.response.body)).toEqual({
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
      expect(Number(result.response.headers['retry-after'])).toBeGreaterThanOrEqual(59)
      expect(result.response.headers['cache-control']).toBe('no-store')
    }
    // A guess made while throttled is never looked up, so never confirmed.
    expect(w.store.lookups).toBe(5)
    // Another address is not concerned.
    expect(await statusOf(w.call(w.key, '198.51.100.1'))).toBe(200)
  })

  it('answers a flood from responses built once: throttled and unknown-key refusals are shared, frozen objects', async () => {
    const w = await world()
    const responseOf = async (key: string, address?: string) => {
      const result = await w.call(key, address)
      if (result.ok) throw new Error('expected a refusal')
      return result.response
    }
    const first = await responseOf(unknownKey(0), '198.51.100.7')
    expect(await responseOf(unknownKey(1), '198.51.100.7')).toBe(first)
    expect(Object.isFrozen(first.headers)).toBe(true)
    for (let i = 0; i < 5; i++) await w.call(unknownKey(i))
    const throttled = await responseOf(unknownKey(10))
    expect(throttled.status).toBe(429)
    // The same number of seconds left gives the same response (one per distinct Retry-After).
    const again = await responseOf(unknownKey(11))
    if (again.headers['retry-after'] === throttled.headers['retry-after']) expect(again).toBe(throttled)
    expect(Object.isFrozen(throttled)).toBe(true)
  })

  it('counts only presented credentials that fail, not valid ones nor missing ones', async () => {
    const w = await world()
    for (let i = 0; i < 20; i++) expect(await statusOf(w.call(w.key))).toBe(200)
    for (let i = 0; i < 20; i++) expect(await statusOf(w.call(''))).toBe(401)
    expect(await statusOf(w.call(w.key))).toBe(200)
  })

  it('keeps concurrent guesses of a throttled address within the limit', async () => {
    const w = await world({ failedAuthLimit: 10 })
    expect(await statusOf(w.call(unknownKey(0)))).toBe(401)
    const statuses = await Promise.all(
      Array.from({ length: 50 }, (_, i) => statusOf(w.call(unknownKey(i + 1)))),
    )
    expect(statuses.filter((s) => s === 401)).toHaveLength(9)
    expect(w.store.lookups).toBe(10)
  })

  it('reads the client address from the socket, and a forwarded header only when it is trusted', async () => {
    const spoofed = { 'x-forwarded-for': '192.0.2.1' }
    const open = await world({ failedAuthLimit: 1 })
    expect(await statusOf(open.call(unknownKey(1), '10.0.0.1', spoofed))).toBe(401)
    // A changed X-Forwarded-For does not escape the throttle of the socket's address.
    expect(await statusOf(open.call(open.key, '10.0.0.1', { 'x-forwarded-for': '192.0.2.2' }))).toBe(429)

    const proxied = await world({ failedAuthLimit: 1, trustedProxy: { header: 'x-forwarded-for', hops: 1 } })
    const via = (client: string) => ({ 'x-forwarded-for': `6.6.6.6, ${client}` })
    expect(await statusOf(proxied.call(unknownKey(1), '10.0.0.1', via('192.0.2.1')))).toBe(401)
    expect(await statusOf(proxied.call(proxied.key, '10.0.0.1', via('192.0.2.1')))).toBe(429)
    // The proxy's own address is not throttled for its other clients; the left part is not believed.
    expect(await statusOf(proxied.call(proxied.key, '10.0.0.1', via('192.0.2.2')))).toBe(200)
  })

  it('is off with failedAuthLimit 0', async () => {
    const w = await world({ failedAuthLimit: 0 })
    for (let i = 0; i < 20; i++) expect(await statusOf(w.call(unknownKey(i)))).toBe(401)
    expect(await statusOf(w.call(w.key))).toBe(200)
  })

  it('counts refused bearer tokens too, when the bearer guard names the service', async () => {
    const w = await world({ failedAuthLimit: 2 })
    const guard = bearerGuard({
      verify: (token) => (token === 'good' ? { ok: true } : null),
      keyward: w.keyward,
    })
    const call = (token: string) =>
      guard({
        method: 'GET',
        url: '/',
        params: {},
        header: (name) => (name === 'authorization' ? `Bearer ${token}` : undefined),
        address: '192.0.2.9',
      }).then((r) => (r.ok ? 200 : r.response.status))
    expect([await call('bad1'), await call('bad2'), await call('good')]).toEqual([401, 401, 429])
  })

  it('fails open when the counters cannot be reached, and says so once', async () => {
    const broken: LimiterFactory = () => ({
      get: () => Promise.reject(new Error('ECONNREFUSED 127.0.0.1:6379')),
      penalty: () => Promise.reject(new Error('ECONNREFUSED 127.0.0.1:6379')),
      consume: () => Promise.reject(new Error('ECONNREFUSED 127.0.0.1:6379')),
    })
    const w = await world({ limiter: broken })
    for (let i = 0; i < 10; i++) expect(await statusOf(w.call(unknownKey(i)))).toBe(401)
    expect(await statusOf(w.call(w.key))).toBe(200)
    expect(w.events.filter((e) => e.type === 'store.error')).toHaveLength(1)
  })
})

describe('failure reports', () => {
  it('sums a flood into one auth.failures event per address and error type per interval', async () => {
    const w = await world({ failedAuthLimit: 50, reportIntervalSeconds: 1 })
    for (let i = 0; i < 2_000; i++) await w.call(unknownKey(i), i % 2 ? '203.0.113.7' : '203.0.113.8')
    await new Promise((resolve) => setTimeout(resolve, 1_100))
    const reports = w.events.filter((e) => e.type === 'auth.failures')
    expect(reports).toHaveLength(4)
    expect(reports).toContainEqual({
      type: 'auth.failures',
      address: '203.0.113.7',
      errorType: 'key_invalid',
      count: 50,
      keyPrefixes: ['ak_ZZZZZ'],
      intervalSeconds: 1,
    })
    expect(reports).toContainEqual(
      expect.objectContaining({ address: '203.0.113.8', errorType: 'rate_limited', count: 950 }),
    )
    expect(JSON.stringify(reports)).not.toMatch(/ak_Z{6}/)
  })
})

describe('per-key rate limits', () => {
  it('answers 429 with RateLimit-Policy, RateLimit and Retry-After once a key has spent its window', async () => {
    const w = await world({ keyRateLimits: { project: { limit: 3, windowSeconds: 60 } } })
    for (let i = 0; i < 3; i++) expect(await statusOf(w.call(w.key))).toBe(200)
    const result = await w.call(w.key)
    expect(result.ok).toBe(false)
    if (result.ok) return
    expect(result.response.status).toBe(429)
    const { headers } = result.response
    expect(headers['ratelimit-policy']).toBe('"key";q=3;w=60')
    expect(headers.ratelimit).toMatch(/^"key";r=0;t=(59|60)$/)
    expect(headers['retry-after']).toMatch(/^(59|60)$/)
    expect(JSON.parse(result.response.body).detail[0]).toMatchObject({
      loc: ['header', 'x-api-key'],
      type: 'rate_limited',
    })
  })

  it('takes the host callback rateLimitFor before the owner-type limits', async () => {
    const w = await world({
      keyRateLimits: { project: { limit: 1, windowSeconds: 60 } },
      rateLimitFor: (key) => (key.ownerId === 'p1' ? { limit: 2, windowSeconds: 60 } : null),
    })
    expect([
      await statusOf(w.call(w.key)),
      await statusOf(w.call(w.key)),
      await statusOf(w.call(w.key)),
    ]).toEqual([200, 200, 429])
  })
})

describe('protection options', () => {
  it('are checked when the service is built', () => {
    const store = new MemoryKeyStore()
    const build = (protection: unknown) => () =>
      createKeyward({ store, protection: protection as ProtectionOptions })
    expect(build({})).toThrow('`protection.limiter`')
    expect(build({ limiter: memory, failedAuthLimit: -1 })).toThrow('`protection.failedAuthLimit`')
    expect(build({ limiter: memory, trustedProxy: { header: 'X-Forwarded-For' } })).toThrow(
      'trustedProxy.header',
    )
    expect(build({ limiter: memory, keyRateLimits: { project: { limit: 0, windowSeconds: 1 } } })).toThrow(
      'keyRateLimits.project',
    )
  })
})

describe('a throttled address known at once', () => {
  /** A memory limiter that counts what it is asked. */
  function countingLimiter() {
    const asked = { get: 0, penalty: 0 }
    const factory: LimiterFactory = (settings) => {
      const inner = new RateLimiterMemory(settings)
      return {
        get: (key) => {
          asked.get++
          return inner.get(key)
        },
        penalty: (key, points) => {
          asked.penalty++
          return inner.penalty(key, points)
        },
        consume: (key, points) => inner.consume(key, points),
      }
    }
    return { asked, factory }
  }
  const requestFrom = (address: string, apiKey = unknownKey(1)): KeywardRequest => ({
    method: 'GET',
    url: '/',
    params: { project_id: 'p1' },
    header: (name) => (name === 'x-api-key' ? apiKey : undefined),
    address,
  })

  it('refuses it synchronously (guard.now) once over the limit, with the same 429, and nothing before', async () => {
    const w = await world()
    const guard = projectGuard(w.keyward)
    for (let i = 0; i < 5; i++) {
      expect(guard.now?.(requestFrom('203.0.113.7'))).toBeUndefined() // the counters are asked
      expect(await statusOf(w.call(unknownKey(i)))).toBe(401)
    }
    const known = guard.now?.(requestFrom('203.0.113.7', w.key))
    expect(known?.ok).toBe(false)
    if (!known || known.ok) return
    const asynchronous = await guard(requestFrom('203.0.113.7', w.key))
    expect(asynchronous.ok).toBe(false)
    if (asynchronous.ok) return
    expect(known.response.status).toBe(429)
    expect(known.response.body).toBe(asynchronous.response.body)
    expect(known.response.headers).toEqual(asynchronous.response.headers)
    // Another address, and a valid key from it, are not concerned.
    expect(guard.now?.(requestFrom('198.51.100.1', w.key))).toBeUndefined()
    expect(await statusOf(w.call(w.key, '198.51.100.1'))).toBe(200)
  })

  it('asks the counters nothing more for it: a flood costs the shared backend no call', async () => {
    const { asked, factory } = countingLimiter()
    const w = await world({ limiter: factory })
    for (let i = 0; i < 5; i++) await w.call(unknownKey(i))
    const before = { ...asked }
    for (let i = 0; i < 50; i++) expect(await statusOf(w.call(unknownKey(100 + i)))).toBe(429)
    expect(asked).toEqual(before)
    expect(w.store.lookups).toBe(5)
  })

  it('learns it from counters shared with another process, on the first refusal there', async () => {
    // Two services over one limiter: what one counted, the other reads.
    const shared = new Map<string, ReturnType<LimiterFactory>>()
    const sharedFactory: LimiterFactory = (settings) => {
      const limiter = shared.get(settings.keyPrefix) ?? new RateLimiterMemory(settings)
      shared.set(settings.keyPrefix, limiter)
      return limiter
    }
    const a = await world({ limiter: sharedFactory })
    const b = await world({ limiter: sharedFactory })
    for (let i = 0; i < 5; i++) await a.call(unknownKey(i))
    const guardB = projectGuard(b.keyward)
    expect(guardB.now?.(requestFrom('203.0.113.7', b.key))).toBeUndefined() // not known here yet
    expect(await statusOf(b.call(b.key))).toBe(429) // the counters say so
    expect(guardB.now?.(requestFrom('203.0.113.7', b.key))?.ok).toBe(false) // now known here
  })

  it('forgets it when its window ends', async () => {
    const w = await world({ failedAuthLimit: 2, failedAuthWindowSeconds: 1 })
    const guard = projectGuard(w.keyward)
    for (let i = 0; i < 2; i++) await w.call(unknownKey(i))
    expect(guard.now?.(requestFrom('203.0.113.7', w.key))?.ok).toBe(false)
    await new Promise((resolve) => setTimeout(resolve, 1100))
    expect(guard.now?.(requestFrom('203.0.113.7', w.key))).toBeUndefined()
    expect(await statusOf(w.call(w.key))).toBe(200)
  })

  it('refuses bearer tokens of a throttled address at once too', async () => {
    const w = await world()
    for (let i = 0; i < 5; i++) await w.call(unknownKey(i))
    const guard = bearerGuard({ verify: () => ({ sub: 'p1' }), keyward: w.keyward })
    const request: KeywardRequest = {
      method: 'GET',
      url: '/',
      params: {},
      header: (name) => (name === 'authorization' ? 'Bearer abc' : undefined),
      address: '203.0.113.7',
    }
    expect(guard.now?.(request)?.ok).toBe(false)
    expect(guard.now?.({ ...request, address: '198.51.100.1' })).toBeUndefined()
  })
})
