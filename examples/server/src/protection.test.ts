// The throttle's counters in a real Redis and a real PostgreSQL, shared by two services as by two
// processes, and the reference app's log under a flood of failed authentications.
import {
  createKeyward,
  type KeywardEvent,
  type LimiterFactory,
  MemoryKeyStore,
  projectGuard,
} from '@keyward/core'
import { afterAll, describe, expect, it } from 'vitest'
import { formatEvent } from './log.js'
import { openCounters, protectionOf } from './protection.js'
import { PG_URL } from './test/databases.js'
import { openTestApp } from './test/harness.js'
import { postgresLimiter } from './test/limiters.js'

const REDIS_URL = process.env.KEYWARD_REDIS_URL || undefined
const RUN = `kw_test_${process.pid}_${Date.now().toString(36)}`
const unknownKey = (i: number) => `ak_${String(i).padStart(32, 'Q')}`

/** Two services over one store, as two processes would be, sharing the throttle's counters. */
async function twoProcesses(limiter: LimiterFactory) {
  let lookups = 0
  const counted = new (class extends MemoryKeyStore {
    override findKeyByHash(hash: string) {
      lookups++
      return super.findKeyByHash(hash)
    }
  })()
  const service = () =>
    createKeyward({
      store: counted,
      protection: {
        limiter,
        failedAuthLimit: 3,
        keyPrefix: RUN,
        keyRateLimits: { project: { limit: 4, windowSeconds: 60 } },
      },
    })
  const [a, b] = [service(), service()]
  const key = (await a.issueProjectKey('p1')).key
  const call = (keyward: typeof a, apiKey: string, address: string) =>
    projectGuard(keyward)({
      method: 'GET',
      url: '/',
      params: { project_id: 'p1' },
      header: (name) => (name === 'x-api-key' ? apiKey : undefined),
      address,
    }).then((result) => (result.ok ? 200 : result.response.status))
  return { a, b, key, call, lookups: () => lookups }
}

async function expectShared(backend: LimiterFactory) {
  // Counts what the counters are asked, to show that a known throttled address costs them nothing.
  let asked = 0
  const limiter: LimiterFactory = (settings) => {
    const inner = backend(settings)
    return {
      get: (key) => {
        asked++
        return inner.get(key)
      },
      penalty: (key, points) => {
        asked++
        return inner.penalty(key, points)
      },
      consume: (key, points) => inner.consume(key, points),
    }
  }
  const w = await twoProcesses(limiter)
  const address = `192.0.2.${Math.floor(Math.random() * 250)}`
  expect(await w.call(w.a, unknownKey(1), address)).toBe(401)
  expect(await w.call(w.b, unknownKey(2), address)).toBe(401)
  expect(await w.call(w.a, unknownKey(3), address)).toBe(401)
  // The third failure happened in "process" a; b refuses the address too, before any lookup.
  const lookups = w.lookups()
  expect(await w.call(w.b, w.key, address)).toBe(429)
  expect(await w.call(w.a, w.key, address)).toBe(429)
  expect(w.lookups()).toBe(lookups)
  // Both now know the address is throttled: its requests are refused from memory, with no
  // question to the shared counters.
  const askedBefore = asked
  for (let i = 0; i < 20; i++) expect(await w.call(i % 2 ? w.a : w.b, unknownKey(10 + i), address)).toBe(429)
  expect(asked).toBe(askedBefore)
  expect(w.lookups()).toBe(lookups)
  // The key's own limit (4 per minute) is counted across both.
  const other = '198.51.100.7'
  const statuses = []
  for (const keyward of [w.a, w.b, w.a, w.b, w.a]) statuses.push(await w.call(keyward, w.key, other))
  expect(statuses).toEqual([200, 200, 200, 200, 429])
}

describe('shared throttle counters', () => {
  const closers: Array<() => Promise<void>> = []
  afterAll(async () => {
    for (const close of closers) await close()
  })

  it.skipIf(!REDIS_URL)(
    'in Redis: failures in one process throttle the address in another (set KEYWARD_REDIS_URL to run)',
    async () => {
      const counters = await openCounters({ redisUrl: REDIS_URL })
      closers.push(() => counters.close())
      expect(counters.description).toMatch(/^Redis at /)
      await expectShared(counters.limiter)
    },
  )

  it.skipIf(!PG_URL)(
    'in PostgreSQL: failures in one process throttle the address in another (set KEYWARD_PG_URL to run)',
    async () => {
      const { limiter, close } = await postgresLimiter(PG_URL!, RUN)
      closers.push(close)
      await expectShared(limiter)
    },
  )
})

describe('opening the counters', () => {
  it('refuses a Redis that cannot be reached at start, so a mistyped URL stops the server', async () => {
    await expect(openCounters({ redisUrl: 'redis://127.0.0.1:1' })).rejects.toThrow()
  }, 20_000)

  it('keeps them in memory without KEYWARD_REDIS_URL', async () => {
    const counters = await openCounters({ redisUrl: undefined })
    expect(counters.description).toBe('in memory')
    await counters.close()
  })
})

describe('the reference app under a flood of failed authentications', () => {
  const flood = async (failedAuthPerMinute: number, requests: number) => {
    const counters = await openCounters({ redisUrl: undefined })
    const protection = {
      ...protectionOf({ failedAuthPerMinute, trustedProxy: undefined }, counters.limiter),
      reportIntervalSeconds: 1,
    }
    const t = await openTestApp('pglite', { protection })
    try {
      const { projectId } = await t.project()
      const path = `/api/v1/projects/${projectId}/access-tokens`
      const statuses = new Map<number, number>()
      for (let i = 0; i < requests; i++) {
        const answer = await t.call('POST', path, {
          headers: { 'x-api-key': unknownKey(i) },
          address: i % 2 ? '203.0.113.7' : '203.0.113.8',
        })
        statuses.set(answer.status, (statuses.get(answer.status) ?? 0) + 1)
      }
      await new Promise((resolve) => setTimeout(resolve, 1_200))
      const lines = t.events
        .map((event) => formatEvent(event))
        .filter((line): line is string => line !== undefined)
      return { statuses, lines, events: t.events as KeywardEvent[] }
    } finally {
      await t.close()
    }
  }

  it('logs a bounded number of lines, naming the addresses and key prefixes, never a key', async () => {
    const { statuses, lines } = await flood(100, 1_500)
    expect(Object.fromEntries(statuses)).toEqual({ 401: 200, 429: 1_300 })
    const failures = lines.filter((line) => line.startsWith('auth.failures'))
    // 1,500 failures: 4 lines (2 addresses x key_invalid, rate_limited), whatever their number.
    expect(failures).toHaveLength(4)
    expect(failures).toContain('auth.failures 100 key_invalid from 203.0.113.7 in 1s keys ak_QQQQQ...')
    expect(failures).toContain('auth.failures 650 rate_limited from 203.0.113.8 in 1s')
    expect(lines.join('\n')).not.toMatch(/ak_Q{6}/)
  }, 90_000)

  it('still logs them summed up with KEYWARD_FAILED_AUTH_PER_MINUTE=0 (throttle off)', async () => {
    const { statuses, lines } = await flood(0, 400)
    expect(Object.fromEntries(statuses)).toEqual({ 401: 400 })
    expect(lines.filter((line) => line.startsWith('auth.failures'))).toEqual([
      'auth.failures 200 key_invalid from 203.0.113.8 in 1s keys ak_QQQQQ...',
      'auth.failures 200 key_invalid from 203.0.113.7 in 1s keys ak_QQQQQ...',
    ])
  }, 90_000)
})
