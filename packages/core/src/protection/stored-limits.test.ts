// Stored rate limits of API keys and identities through the guards, counted in memory: by the
// service's own counters without `protection`, by the protection's limiters with it. Every
// window is a minute long, so that no assertion depends on how fast the machine runs.
import { RateLimiterMemory } from 'rate-limiter-flexible'
import { describe, expect, it, vi } from 'vitest'
import { type ApiKeyGuardOptions, apiKeyGuard, projectGuard } from '../http/guards.js'
import type { GuardResult, KeywardRequest } from '../http/types.js'
import type { StoredRateLimit } from '../policy/policies.js'
import type { KeywardEvent } from '../service/events.js'
import { createKeyward } from '../service/keyward.js'
import type { KeywardOptions } from '../service/options.js'
import { MemoryKeyStore } from '../store/memory.js'
import { rejection } from '../test/rejection.js'
import type { LimiterFactory } from './limiter.js'
import { CLOCK_RESOLUTION_MS, coarseClock, MemoryLimiter } from './memory-limiter.js'
import type { ProtectionOptions } from './options.js'

const memory: LimiterFactory = (settings) => new RateLimiterMemory(settings)
const perMinute = (name: string, limit: number): StoredRateLimit => ({ name, limit, duration: 60_000 })

function world(options: Partial<KeywardOptions> = {}) {
  const events: KeywardEvent[] = []
  const store = new MemoryKeyStore()
  const keyward = createKeyward({
    store,
    cache: {},
    trackLastUsed: false,
    onEvent: (event) => events.push(event),
    ...options,
  })
  const request = (key: string): KeywardRequest => ({
    method: 'GET',
    url: '/',
    params: { project_id: 'p1' },
    header: (name) => (name === 'x-api-key' ? key : undefined),
    address: '203.0.113.7',
  })
  // The guard's answer: at once when it knows it (a cached key without protection), else its promise.
  const call = async (key: string, guardOptions: ApiKeyGuardOptions = {}) => {
    const guard = apiKeyGuard(keyward, guardOptions)
    return guard.now?.(request(key)) ?? (await guard(request(key)))
  }
  return { store, keyward, events, request, call }
}

const statusOf = (result: GuardResult<unknown>) => (result.ok ? 200 : result.response.status)
async function statuses(call: () => Promise<GuardResult<unknown>>, n: number): Promise<number[]> {
  const answers: number[] = []
  for (let i = 0; i < n; i++) answers.push(statusOf(await call()))
  return answers
}
const refusalOf = (result: GuardResult<unknown>) => {
  if (result.ok) throw new Error('expected a refusal')
  return { ...result.response, body: JSON.parse(result.response.body) }
}

describe.each([
  ['without protection (counted by the service in memory)', {}],
  [
    'with protection (counted by its RateLimiterMemory)',
    { protection: { limiter: memory, failedAuthLimit: 0 } },
  ],
])('stored rate limits, %s', (_, options) => {
  it('refuse a key past its own limit: 429 rate_limited naming it, with Retry-After and RateLimit fields', async () => {
    const w = world(options)
    const { key } = await w.keyward.issueProjectKey('p1', { ratelimits: [perMinute('requests', 3)] })
    expect(await statuses(() => w.call(key), 4)).toEqual([200, 200, 200, 429])
    const refused = refusalOf(await w.call(key))
    expect(refused.status).toBe(429)
    expect(refused.body).toEqual({
      detail: [
        {
          loc: ['header', 'x-api-key'],
          msg: expect.stringMatching(
            /^The rate limit `requests` of this API key is spent: 3 per 60 seconds; try again in \d+ seconds\.$/,
          ),
          type: 'rate_limited',
        },
      ],
    })
    const seconds = Number(refused.headers['retry-after'])
    expect(seconds).toBeGreaterThanOrEqual(1)
    expect(seconds).toBeLessThanOrEqual(60)
    expect(refused.headers['ratelimit-policy']).toBe('"requests";q=3;w=60')
    expect(refused.headers.ratelimit).toBe(`"requests";r=0;t=${seconds}`)
  })

  it("count an identity's limits once for all its keys: two keys stop together", async () => {
    const w = world(options)
    const acme = await w.keyward.createIdentity('p1', {
      externalId: 'customer_acme',
      ratelimits: [perMinute('requests', 10)],
    })
    const a = (await w.keyward.issueProjectKey('p1', { identityId: acme.id })).key
    const b = (await w.keyward.issueProjectKey('p1', { externalId: 'customer_acme' })).key
    const answers: number[] = []
    for (let i = 0; i < 12; i++) answers.push(statusOf(await w.call(i % 2 ? b : a)))
    expect(answers).toEqual([...Array(10).fill(200), 429, 429])
    const refused = refusalOf(await w.call(b))
    expect(refused.body.detail[0].msg).toMatch(
      /^The rate limit `requests` of this API key's identity is spent: 10 per 60 seconds/,
    )
    // A key of another identity, and a key of none, are not concerned.
    const other = (await w.keyward.issueProjectKey('p1', { externalId: 'customer_globex' })).key
    const plain = (await w.keyward.issueProjectKey('p1')).key
    expect(statusOf(await w.call(other))).toBe(200)
    expect(statusOf(await w.call(plain))).toBe(200)
  })

  it("apply a key's own limits and its identity's, each counted where it belongs", async () => {
    const w = world(options)
    const acme = await w.keyward.createIdentity('p1', {
      externalId: 'customer_acme',
      ratelimits: [perMinute('requests', 5)],
    })
    const a = (
      await w.keyward.issueProjectKey('p1', { identityId: acme.id, ratelimits: [perMinute('own', 2)] })
    ).key
    const b = (await w.keyward.issueProjectKey('p1', { identityId: acme.id })).key
    expect(await statuses(() => w.call(a), 3)).toEqual([200, 200, 429]) // its own limit
    // The refusal by its own limit came first: the identity's count holds 2 of its 5.
    expect(await statuses(() => w.call(b), 4)).toEqual([200, 200, 200, 429])
  })

  it('take the cost a route gives a limit by name, 1 for any other, nothing for 0', async () => {
    const w = world(options)
    const { key } = await w.keyward.issueProjectKey('p1', {
      ratelimits: [perMinute('requests', 100), perMinute('generations', 25)],
    })
    const generate = { rateLimitCosts: { generations: 10 } }
    expect(await statuses(() => w.call(key, generate), 3)).toEqual([200, 200, 429])
    // Reads do not count against generations at all.
    const read = { rateLimitCosts: { generations: 0 } }
    expect(await statuses(() => w.call(key, read), 3)).toEqual([200, 200, 200])
    // A limit named as a property every object has costs 1 like any other.
    const named = await w.keyward.issueProjectKey('p1', { ratelimits: [perMinute('toString', 1)] })
    expect(await statuses(() => w.call(named.key, generate), 2)).toEqual([200, 429])
    // A cost above the limit never passes, and says so.
    const refused = refusalOf(await w.call(key, { rateLimitCosts: { generations: 26 } }))
    expect(refused.body.detail[0].msg).toBe(
      'A request to this route costs 26 of the rate limit `generations` of this API key, which allows 25 per 60 seconds: it never passes.',
    )
    expect(refused.headers['retry-after']).toBeUndefined()
  })

  it('are checked before the credits: a request a limit refuses spends none', async () => {
    const w = world(options)
    const { key, record } = await w.keyward.issueProjectKey('p1', {
      ratelimits: [perMinute('requests', 2)],
      remaining: 10,
    })
    expect(await statuses(() => w.call(key), 5)).toEqual([200, 200, 429, 429, 429])
    await w.keyward.close() // gives back what this process leased
    expect((await w.store.findKeyById(record.id))?.remaining).toBe(8)
  })

  it('follow a change of the key and of its identity through the cache', async () => {
    const w = world(options)
    const acme = await w.keyward.createIdentity('p1', { externalId: 'customer_acme' })
    const { key, record } = await w.keyward.issueProjectKey('p1', { identityId: acme.id })
    expect(await statuses(() => w.call(key), 3)).toEqual([200, 200, 200])
    expect(w.keyward.cacheStats()?.entries).toBe(1)
    await w.keyward.updateIdentity(acme.id, { ratelimits: [perMinute('requests', 1)] })
    expect(await statuses(() => w.call(key), 2)).toEqual([200, 429])
    await w.keyward.updateIdentity(acme.id, { ratelimits: [] })
    await w.keyward.setKeyPolicies(record.id, { ratelimits: [perMinute('own', 1)] })
    expect(await statuses(() => w.call(key), 2)).toEqual([200, 429])
    await w.keyward.setKeyPolicies(record.id, { ratelimits: null })
    expect(await statuses(() => w.call(key), 2)).toEqual([200, 200])
  })
})

describe('stored rate limits and the rest of the protection', () => {
  it("apply in addition to the host's rateLimitFor (which overrides keyRateLimits only)", async () => {
    const protection: ProtectionOptions = {
      limiter: memory,
      failedAuthLimit: 0,
      keyRateLimits: { project: { limit: 1, windowSeconds: 60 } },
      rateLimitFor: () => ({ limit: 3, windowSeconds: 60 }),
    }
    const w = world({ protection })
    // The host's limit is taken first, then the stored ones: the stricter refuses, and names itself.
    const policies = async (key: string, n: number) => {
      const names: string[] = []
      for (let i = 0; i < n; i++) {
        const result = await w.call(key)
        names.push(result.ok ? 'ok' : (result.response.headers['ratelimit-policy'] ?? ''))
      }
      return names
    }
    const stricter = (await w.keyward.issueProjectKey('p1', { ratelimits: [perMinute('requests', 2)] })).key
    expect(await policies(stricter, 3)).toEqual(['ok', 'ok', '"requests";q=2;w=60'])
    const looser = (await w.keyward.issueProjectKey('p1', { ratelimits: [perMinute('requests', 5)] })).key
    expect(await policies(looser, 4)).toEqual(['ok', 'ok', 'ok', '"key";q=3;w=60'])
  })

  it('let requests through when the shared counters fail, reported once per outage', async () => {
    let down = true
    const failing: LimiterFactory = (settings) => {
      const inner = new RateLimiterMemory(settings)
      return {
        get: (key) => inner.get(key),
        penalty: (key, points) => inner.penalty(key, points),
        consume: (key, points) =>
          down ? Promise.reject(new Error('counters down')) : inner.consume(key, points),
      }
    }
    const w = world({ protection: { limiter: failing, failedAuthLimit: 0 } })
    const { key } = await w.keyward.issueProjectKey('p1', { ratelimits: [perMinute('requests', 1)] })
    expect(await statuses(() => w.call(key), 3)).toEqual([200, 200, 200])
    const errors = () => w.events.filter((event) => event.type === 'store.error')
    expect(errors()).toMatchObject([{ operation: 'ratelimit.consume', error: { message: 'counters down' } }])
    down = false
    expect(await statuses(() => w.call(key), 2)).toEqual([200, 429])
    expect(errors()).toHaveLength(1)
  })

  it('count a refusal as rate_limited in the usage counts, not as accepted', async () => {
    const w = world()
    const { key, record } = await w.keyward.issueProjectKey('p1', { ratelimits: [perMinute('requests', 1)] })
    await statuses(() => w.call(key), 3)
    await w.keyward.close()
    const counted: Record<string, number> = {}
    for (const row of w.store.usage.rows()) {
      if (row.keyId === record.id) counted[row.outcome] = (counted[row.outcome] ?? 0) + row.count
    }
    expect(counted).toEqual({ accepted: 1, rate_limited: 2 })
  })
})

describe('stored rate limits of a key, as set', () => {
  it("are refused on a developer key, and checked as an identity's are (422 at the field)", async () => {
    const w = world()
    expect(
      await rejection(w.keyward.issueDeveloperKey('d1', { ratelimits: [perMinute('requests', 1)] })),
    ).toMatchObject({ type: 'value_error', status: 422, loc: ['body'] })
    const tooShort = [{ name: 'requests', limit: 1, duration: 500 }]
    expect(await rejection(w.keyward.issueProjectKey('p1', { ratelimits: tooShort }))).toMatchObject({
      type: 'greater_than_equal',
      loc: ['body', 'ratelimits', '0', 'duration'],
    })
    const { record } = await w.keyward.issueProjectKey('p1')
    const twice = [perMinute('a', 1), perMinute('a', 2)]
    expect(await rejection(w.keyward.setKeyPolicies(record.id, { ratelimits: twice }))).toMatchObject({
      type: 'value_error',
      loc: ['body', 'ratelimits', '1', 'name'],
    })
    expect((await w.store.findKeyById(record.id))?.ratelimits).toBeUndefined()
  })

  it('are kept on the record only when there are some, and rolled into the new key', async () => {
    const w = world()
    const none = await w.keyward.issueProjectKey('p1', { ratelimits: [] })
    expect('ratelimits' in none.record).toBe(false)
    const limits = [perMinute('requests', 1)]
    const { record } = await w.keyward.issueProjectKey('p1', { ratelimits: limits })
    expect(record.ratelimits).toEqual(limits)
    const rolled = await w.keyward.rollKey(record.id)
    expect(rolled?.record.ratelimits).toEqual(limits)
    const cleared = await w.keyward.setKeyPolicies(record.id, { ratelimits: [] })
    expect(cleared && 'ratelimits' in cleared).toBe(false)
  })

  it('refuse a misspelt guard option, a bad name and a bad cost when the guard is built', () => {
    const { keyward } = world()
    const build = (options: unknown) => () => projectGuard(keyward, options as never)
    expect(build({ rateLimitCost: { a: 1 } })).toThrow('rateLimitCosts')
    expect(build({ rateLimitCosts: [] })).toThrow('`rateLimitCosts` must be an object')
    expect(build({ rateLimitCosts: { 'no spaces': 1 } })).toThrow('is not a rate limit name')
    expect(build({ rateLimitCosts: { a: 1001 } })).toThrow('integer from 0 to 1000')
    expect(build({ rateLimitCosts: { a: 1.5 } })).toThrow('integer from 0 to 1000')
  })
})

describe('the counters in memory', () => {
  it('count fixed windows that start at a key’s first point, points past the limit included', async () => {
    let now = 1_000_000
    const limiter = new MemoryLimiter({ points: 3, duration: 10 }, () => now)
    expect([1, 2, 3, 4].map(() => limiter.add('a', 1))).toEqual([1, 2, 3, 4])
    expect(limiter.state('a')).toEqual({ consumedPoints: 4, remainingPoints: 0, msBeforeNext: 10_000 })
    await expect(limiter.consume('a')).rejects.toMatchObject({ consumedPoints: 5 })
    now += 4_000
    expect(limiter.add('b', 2)).toBe(2)
    now += 6_000 // a's window ends; b's has 4 s left
    expect(limiter.state('a')).toBeNull()
    await expect(limiter.consume('a')).resolves.toEqual({
      consumedPoints: 1,
      remainingPoints: 2,
      msBeforeNext: 10_000,
    })
    expect(await limiter.get('b')).toEqual({ consumedPoints: 2, remainingPoints: 1, msBeforeNext: 4_000 })
    expect(await limiter.penalty('b', 5)).toMatchObject({ consumedPoints: 7, remainingPoints: 0 })
  })
})

describe('a guard without protection', () => {
  it('answers a cached key with stored limits at once, refusals included', async () => {
    const w = world()
    const { key } = await w.keyward.issueProjectKey('p1', { ratelimits: [perMinute('requests', 2)] })
    const guard = projectGuard(w.keyward)
    expect((await guard(w.request(key))).ok).toBe(true) // a lookup fills the cache
    expect(guard.now?.(w.request(key))?.ok).toBe(true)
    const refused = guard.now?.(w.request(key))
    expect(refused && !refused.ok && refused.response.status).toBe(429)
  })
})

describe('the clock of the counters in memory', () => {
  it('reads the time at most once per resolution, and again after it', async () => {
    const now = vi.spyOn(Date, 'now')
    try {
      const clock = coarseClock()
      now.mockReturnValue(1_000)
      expect(clock()).toBe(1_000)
      now.mockReturnValue(1_005)
      expect(clock()).toBe(1_000)
      expect(now).toHaveBeenCalledTimes(1)
      await new Promise((resolve) => setTimeout(resolve, CLOCK_RESOLUTION_MS + 5))
      expect(clock()).toBe(1_005)
    } finally {
      now.mockRestore()
    }
  })
})
