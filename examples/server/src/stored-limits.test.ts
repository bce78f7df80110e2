// Stored rate limits counted in a real Redis and a real PostgreSQL, shared by two services as by
// two processes: two keys of one identity, each used through its own service, stop together at
// the identity's 10 requests per second.
import { apiKeyGuard, createKeyward, type Keyward, type LimiterFactory, MemoryKeyStore } from '@keyward/core'
import { Redis } from 'ioredis'
import { RateLimiterRedis } from 'rate-limiter-flexible'
import { afterAll, describe, expect, it } from 'vitest'
import { PG_URL } from './test/databases.js'
import { postgresLimiter } from './test/limiters.js'

const REDIS_URL = process.env.KEYWARD_REDIS_URL || undefined
const RUN = `kw_limits_${process.pid}_${Date.now().toString(36)}`
const PER_SECOND = 10
const REQUESTS = 20
/** Attempts at a burst that fits in one window, each with a new identity. */
const ATTEMPTS = 5

/** Two services over one store and one limiter backend, as two processes would be. */
function twoServices(limiter: LimiterFactory): [Keyward, Keyward] {
  const store = new MemoryKeyStore()
  const service = () =>
    createKeyward({
      store,
      trackLastUsed: false,
      protection: { limiter, failedAuthLimit: 0, keyPrefix: RUN },
    })
  return [service(), service()]
}

const statusOf = (keyward: Keyward, key: string) =>
  apiKeyGuard(keyward)({
    method: 'GET',
    url: '/',
    params: {},
    header: (name) => (name === 'x-api-key' ? key : undefined),
  }).then((result) =>
    result.ok ? { status: 200 } : { status: result.response.status, body: result.response.body },
  )

/**
 * A burst of 20 requests, half through each service with its own key of a new identity. When the
 * whole burst ends within a second of its start, every request fell in one window (a window
 * starts at its first request): then exactly 10 pass. A burst that a slow machine stretched past
 * a second proves nothing and is tried again, so the test does not depend on the machine's speed.
 */
async function expectSharedIdentityLimit(limiter: LimiterFactory) {
  const [a, b] = twoServices(limiter)
  for (let attempt = 1; attempt <= ATTEMPTS; attempt++) {
    const identity = await a.createIdentity('p1', {
      externalId: `customer-${attempt}-${crypto.randomUUID()}`,
      ratelimits: [{ name: 'requests', limit: PER_SECOND, duration: 1000 }],
    })
    const keyA = (await a.issueProjectKey('p1', { identityId: identity.id })).key
    const keyB = (await a.issueProjectKey('p1', { identityId: identity.id })).key
    const started = performance.now()
    const answers = await Promise.all(
      Array.from({ length: REQUESTS }, (_, i) => (i % 2 ? statusOf(b, keyB) : statusOf(a, keyA))),
    )
    if (performance.now() - started >= 1000) continue
    const passed = answers.filter((answer) => answer.status === 200)
    const refused = answers.filter((answer) => answer.status === 429)
    expect(passed).toHaveLength(PER_SECOND)
    expect(refused).toHaveLength(REQUESTS - PER_SECOND)
    expect(JSON.parse(refused[0]!.body!).detail[0].msg).toMatch(
      /^The rate limit `requests` of this API key's identity is spent: 10 per 1 seconds; try again in 1 seconds\.$/,
    )
    return
  }
  throw new Error(`no burst of ${REQUESTS} requests ended within a second in ${ATTEMPTS} attempts`)
}

describe('stored rate limits shared between processes', () => {
  const closers: Array<() => Promise<void>> = []
  afterAll(async () => {
    for (const close of closers) await close()
  })

  it.skipIf(!REDIS_URL)(
    "in Redis (RateLimiterRedis): two keys of one identity stop together at the identity's limit (set KEYWARD_REDIS_URL to run)",
    async () => {
      // RateLimiterRedis without a command timeout: a slow machine must not fail a command open.
      const redis = new Redis(REDIS_URL!, { maxRetriesPerRequest: 1 })
      closers.push(async () => {
        await redis.quit()
      })
      await expectSharedIdentityLimit((settings) => new RateLimiterRedis({ storeClient: redis, ...settings }))
    },
  )

  it.skipIf(!PG_URL)(
    "in PostgreSQL (RateLimiterPostgres): two keys of one identity stop together at the identity's limit (set KEYWARD_PG_URL to run)",
    async () => {
      const { limiter, close } = await postgresLimiter(PG_URL!, RUN)
      closers.push(close)
      await expectSharedIdentityLimit(limiter)
    },
  )
})
