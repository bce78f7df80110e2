import { RateLimiterMemory } from 'rate-limiter-flexible'
import { describe, expect, it } from 'vitest'
import { KeywardError } from '../errors/error.js'
import { ErrorType } from '../errors/types.js'
import { apiKeyGuard, projectGuard } from '../http/guards.js'
import type { Guard, KeywardRequest } from '../http/types.js'
import type { KeywardEvent } from '../service/events.js'
import { createKeyward, type Keyward } from '../service/keyward.js'
import type { ProjectAuth } from '../service/requirements.js'
import { MemoryKeyStore } from '../store/memory.js'
import { checkCreditsLowAt } from './low-at.js'
import { nextRefillAt, refillPeriodStart } from './model.js'

const request = (key: string, address = '203.0.113.1'): KeywardRequest => ({
  method: 'GET',
  url: '/',
  params: { project_id: 'p1' },
  address,
  header: (name) => (name === 'x-api-key' ? key : undefined),
})

const typeOf = async (guard: Guard<ProjectAuth>, req: KeywardRequest) => {
  const result = await guard(req)
  return result.ok ? 'ok' : (JSON.parse(result.response.body).detail[0].type as string)
}

function world(options: { cache?: boolean; now?: () => Date; store?: MemoryKeyStore } = {}) {
  const events: KeywardEvent[] = []
  const store = options.store ?? new MemoryKeyStore()
  const keyward = createKeyward({
    store,
    permissions: ['reports:read'],
    onEvent: (event) => events.push(event),
    ...(options.cache ? { cache: {} } : {}),
    ...(options.now ? { now: options.now } : {}),
  })
  return { keyward, store, events }
}

const balanceOf = async (keyward: Keyward, id: string) => (await keyward.findKey(id))?.remaining

describe('refill periods', () => {
  it('start at 00:00 UTC, daily or on a day of the month clamped to its end', () => {
    const daily = { amount: 1, interval: 'daily' } as const
    const at = new Date('2027-03-10T15:00:00Z')
    expect(refillPeriodStart(daily, at).toISOString()).toBe('2027-03-10T00:00:00.000Z')
    expect(nextRefillAt(daily, at).toISOString()).toBe('2027-03-11T00:00:00.000Z')
    const end = { amount: 1, interval: 'monthly', day: 31 } as const
    expect(refillPeriodStart(end, new Date('2027-02-28T00:00:00Z')).toISOString()).toBe(
      '2027-02-28T00:00:00.000Z',
    )
    expect(refillPeriodStart(end, new Date('2027-02-27T23:59:59Z')).toISOString()).toBe(
      '2027-01-31T00:00:00.000Z',
    )
    expect(nextRefillAt(end, new Date('2027-02-28T00:00:00Z')).toISOString()).toBe('2027-03-31T00:00:00.000Z')
    expect(nextRefillAt(end, new Date('2028-01-31T01:00:00Z')).toISOString()).toBe('2028-02-29T00:00:00.000Z')
    const fifteenth = { amount: 1, interval: 'monthly', day: 15 } as const
    expect(refillPeriodStart(fifteenth, new Date('2027-01-03T00:00:00Z')).toISOString()).toBe(
      '2026-12-15T00:00:00.000Z',
    )
  })
})

describe('guards: credits', () => {
  it('spends the route cost, refuses 429 usage_exceeded with the credits left, and Retry-After only with a refill', async () => {
    const { keyward, events } = world()
    const { key, record } = await keyward.issueProjectKey('p1', { remaining: 10 })
    const guard = projectGuard(keyward, { cost: 3 })
    for (let i = 0; i < 3; i++) expect(await typeOf(guard, request(key))).toBe('ok')
    const refused = await guard(request(key))
    expect(refused.ok).toBe(false)
    if (!refused.ok) {
      expect(refused.response.status).toBe(429)
      expect(JSON.parse(refused.response.body).detail[0]).toMatchObject({
        type: 'usage_exceeded',
        loc: ['header', 'x-api-key'],
      })
      expect(refused.response.headers['x-credits-remaining']).toBe('1')
      expect(refused.response.headers['retry-after']).toBeUndefined()
    }
    // A cost of 1 still fits.
    const last = await projectGuard(keyward)(request(key))
    expect(last.ok && last.headers).toEqual({ 'x-credits-remaining': '0' })
    await keyward.close()
    expect(await balanceOf(keyward, record.id)).toBe(0)
    expect(events.some((e) => e.type === 'auth.failed' && e.reason === 'usage_exceeded')).toBe(true)

    const monthly = await keyward.issueProjectKey('p1', {
      remaining: 0,
      refill: { amount: 5, interval: 'monthly', day: 1 },
    })
    const noCredits = await guard(request(monthly.key))
    expect(noCredits.ok).toBe(false)
    if (!noCredits.ok) expect(Number(noCredits.response.headers['retry-after'])).toBeGreaterThan(0)
  })

  it('counts a request its credits refuse as usage_exceeded, not accepted', async () => {
    const { keyward } = world()
    const { key, record } = await keyward.issueProjectKey('p1', { remaining: 2 })
    const guard = projectGuard(keyward)
    const answers = []
    for (let i = 0; i < 5; i++) answers.push(await typeOf(guard, request(key)))
    expect(answers).toEqual(['ok', 'ok', 'usage_exceeded', 'usage_exceeded', 'usage_exceeded'])
    await keyward.close()
    const rows = await keyward.readUsage({
      owner: { type: 'project', id: 'p1' },
      granularity: 'day',
      from: new Date(Date.now() - 86_400_000),
      to: new Date(Date.now() + 86_400_000),
    })
    const total = (outcome: string) =>
      rows.filter((r) => r.keyId === record.id && r.outcome === outcome).reduce((n, r) => n + r.count, 0)
    expect([total('accepted'), total('usage_exceeded')]).toEqual([2, 3])
  })

  it('a key without credits, and a cost of 0, spend nothing and carry no header', async () => {
    const { keyward } = world()
    const plain = await keyward.issueProjectKey('p1')
    const ok = await projectGuard(keyward)(request(plain.key))
    expect(ok.ok && ok.headers).toBeUndefined()
    const metered = await keyward.issueProjectKey('p1', { remaining: 0 })
    expect(await typeOf(apiKeyGuard(keyward, { cost: 0 }), request(metered.key))).toBe('ok')
    expect(await typeOf(apiKeyGuard(keyward), request(metered.key))).toBe('usage_exceeded')
  })

  it('a request refused for another reason costs nothing: permissions, IP allowlist, rate limit', async () => {
    const store = new MemoryKeyStore()
    const keyward = createKeyward({
      store,
      permissions: ['reports:read'],
      protection: {
        limiter: (settings) => new RateLimiterMemory(settings),
        keyRateLimits: { project: { limit: 2, windowSeconds: 60 } },
      },
    })
    const { key, record } = await keyward.issueProjectKey('p1', {
      remaining: 100,
      permissions: [],
      ipAllowlist: ['203.0.113.0/24'],
    })
    const needsRead = projectGuard(keyward, { permissions: { allOf: ['reports:read'] }, cost: 5 })
    expect(await typeOf(needsRead, request(key))).toBe('permission_denied')
    const open = projectGuard(keyward, { cost: 5 })
    expect(await typeOf(open, request(key, '198.51.100.1'))).toBe('ip_not_allowed')
    expect(await typeOf(open, request(key))).toBe('ok')
    expect(await typeOf(open, request(key))).toBe('ok')
    expect(await typeOf(open, request(key))).toBe('rate_limited')
    await keyward.close()
    expect(await balanceOf(keyward, record.id)).toBe(90)
  })

  it('answers from memory with the cache: one write per block, not per request', async () => {
    const { keyward, store } = world({ cache: true })
    const { key, record } = await keyward.issueProjectKey('p1', { remaining: 1_000_000 })
    let leases = 0
    const lease = store.leaseCredits.bind(store)
    store.leaseCredits = (...args) => {
      leases++
      return lease(...args)
    }
    const guard = projectGuard(keyward)
    let known = 0
    for (let i = 0; i < 2000; i++) {
      const now = guard.now?.(request(key))
      if (now) known++
      else await guard(request(key))
      if (i % 100 === 0) await new Promise((resolve) => setTimeout(resolve, 5))
    }
    expect(known).toBeGreaterThan(1000)
    expect(leases).toBeLessThan(200)
    await keyward.close()
    expect(await balanceOf(keyward, record.id)).toBe(1_000_000 - 2000)
  })

  it('leases the credits of keys that need them in the same turn with one store call, each answered as its own', async () => {
    const { keyward, store } = world()
    const issued = await Promise.all(
      Array.from({ length: 10 }, (_, i) => keyward.issueProjectKey('p1', { remaining: 100 + i })),
    )
    const batches: string[][] = []
    const leaseMany = store.leaseCreditsMany.bind(store)
    store.leaseCreditsMany = (requests, now) => {
      batches.push(requests.map((request) => request.id))
      return leaseMany(requests, now)
    }
    const guard = projectGuard(keyward)
    const results = await Promise.all(issued.map(({ key }) => guard(request(key))))
    // The 10 first leases in one call (the blocks behind them follow in another).
    expect(batches[0]).toHaveLength(10)
    expect(new Set(batches[0])).toEqual(new Set(issued.map(({ record }) => record.id)))
    results.forEach((result, i) => {
      expect(result.ok && result.headers).toEqual({ 'x-credits-remaining': String(99 + i) })
    })
    // A store without the batch method: one call per key, as before.
    const plain = new MemoryKeyStore()
    let leases = 0
    const lease = plain.leaseCredits.bind(plain)
    Object.assign(plain, {
      leaseCreditsMany: undefined,
      leaseCredits: (...args: Parameters<typeof lease>) => {
        leases++
        return lease(...args)
      },
    })
    const single = world({ store: plain }).keyward
    const keys = await Promise.all([1, 2, 3].map(() => single.issueProjectKey('p1', { remaining: 5 })))
    const singleGuard = projectGuard(single)
    const answers = await Promise.all(keys.map(({ key }) => singleGuard(request(key))))
    expect(answers.map((answer) => answer.ok && answer.headers)).toEqual(
      keys.map(() => ({ 'x-credits-remaining': '4' })),
    )
    // Each key's first lease and the block behind it, one call each.
    expect(leases).toBe(6)
    await Promise.all([keyward.close(), single.close()])
    expect(batches.length).toBeLessThanOrEqual(2)
    for (const [i, { record }] of issued.entries()) expect(await balanceOf(keyward, record.id)).toBe(99 + i)
  })

  it('8 services on one store: 4,000 concurrent requests costing 1 to 5 against 1,000 credits never spend more, and the balance is exact after close', async () => {
    const store = new MemoryKeyStore()
    const services = Array.from({ length: 8 }, () => world({ store, cache: true }).keyward)
    const { key, record } = await services[0]!.issueProjectKey('p1', { remaining: 1000 })
    const guards = services.map((keyward) => [1, 2, 3, 4, 5].map((cost) => projectGuard(keyward, { cost })))
    let accepted = 0
    await Promise.all(
      Array.from({ length: 4000 }, async (_, i) => {
        const cost = 1 + ((i * 7) % 5)
        const result = await guards[i % 8]![cost - 1]!(request(key))
        if (result.ok) accepted += cost
        else expect(JSON.parse(result.response.body).detail[0].type).toBe('usage_exceeded')
      }),
    )
    expect(accepted).toBeLessThanOrEqual(1000)
    await Promise.all(services.map((keyward) => keyward.close()))
    expect(await balanceOf(services[0]!, record.id)).toBe(1000 - accepted)
  })

  it('refills once per period with the service clock, and tells when', async () => {
    let now = new Date('2027-01-15T12:00:00Z')
    const { keyward } = world({ now: () => now })
    const { key, record } = await keyward.issueProjectKey('p1', {
      remaining: 2,
      refill: { amount: 3, interval: 'daily' },
    })
    const guard = projectGuard(keyward, { cost: 2 })
    expect(await typeOf(guard, request(key))).toBe('ok')
    const refused = await guard(request(key))
    expect(!refused.ok && refused.response.headers['retry-after']).toBe(String(12 * 3600))
    now = new Date('2027-01-16T00:00:01Z')
    expect(await typeOf(guard, request(key))).toBe('ok')
    expect(await typeOf(guard, request(key))).toBe('usage_exceeded')
    await keyward.close()
    expect(await balanceOf(keyward, record.id)).toBe(1)
  })
})

describe('changeCredits', () => {
  it('is followed at once by the process that made it: a set drops its block, an add or subtract keeps it, the header says the stored balance', async () => {
    const { keyward } = world({ cache: true })
    const { key, record } = await keyward.issueProjectKey('p1', { remaining: 2_000 })
    const guard = projectGuard(keyward, { cost: 5 })
    const headerOf = async () => {
      const result = await guard(request(key))
      return result.ok
        ? result.headers?.['x-credits-remaining']
        : JSON.parse(result.response.body).detail[0].type
    }
    // The first request leases a block of this process's own (sent with the leases of its turn).
    expect(await headerOf()).toBe('1995')
    await new Promise((resolve) => setImmediate(resolve))
    expect(await balanceOf(keyward, record.id)).toBeLessThan(1_995)
    await keyward.changeCredits(record.id, { op: 'set', remaining: 7, refill: null })
    expect(await headerOf()).toBe('2')
    expect(await headerOf()).toBe('usage_exceeded')
    await keyward.changeCredits(record.id, { op: 'add', amount: 100 })
    expect(await headerOf()).toBe('97')
    expect(await headerOf()).toBe('92')
    await keyward.changeCredits(record.id, { op: 'set', remaining: null })
    expect(await headerOf()).toBe(undefined)
  })

  it('sets, adds and subtracts; bad input is 422 and changes nothing; each change is an event with before and after', async () => {
    const { keyward, events } = world()
    const { key, record } = await keyward.issueProjectKey('p1', { remaining: 10 })
    expect((await keyward.changeCredits(record.id, { op: 'add', amount: 5 }))?.remaining).toBe(15)
    expect((await keyward.changeCredits(record.id, { op: 'subtract', amount: 15 }))?.remaining).toBe(0)
    const set = await keyward.changeCredits(record.id, {
      op: 'set',
      remaining: 50,
      refill: { amount: 50, interval: 'monthly', day: 31 },
    })
    expect(set).toMatchObject({ remaining: 50, refill: { amount: 50, interval: 'monthly', day: 31 } })
    const bad: [unknown, string, string[]][] = [
      [{ op: 'add', amount: -1 }, 'greater_than_equal', ['body', 'amount']],
      [{ op: 'add', amount: 1.5 }, 'int_type', ['body', 'amount']],
      [{ op: 'subtract', amount: 51 }, 'greater_than_equal', ['body', 'amount']],
      [
        { op: 'set', remaining: 1, refill: { amount: 1, interval: 'monthly', day: 0 } },
        'greater_than_equal',
        ['body', 'refill', 'day'],
      ],
      [
        { op: 'set', remaining: 1, refill: { amount: 1, interval: 'monthly', day: 32 } },
        'less_than_equal',
        ['body', 'refill', 'day'],
      ],
      [{ op: 'double', amount: 1 }, 'value_error', ['body', 'op']],
    ]
    for (const [change, type, loc] of bad) {
      // biome-ignore lint/suspicious/noExplicitAny: bad input on purpose
      await expect(keyward.changeCredits(record.id, change as any)).rejects.toMatchObject({
        type,
        loc,
        status: 422,
      })
    }
    expect(await balanceOf(keyward, record.id)).toBe(50)
    const changes = events.filter((e) => e.type === 'key.credits_changed')
    expect(changes).toHaveLength(3)
    expect(changes[0]).toMatchObject({
      op: 'add',
      amount: 5,
      before: { remaining: 10 },
      after: { remaining: 15 },
    })
    expect(JSON.stringify(changes)).not.toContain(key)
  })

  it('refuses credits on developer keys and bad credits at creation, with 422', async () => {
    const { keyward } = world()
    await expect(keyward.issueDeveloperKey('d1', { remaining: 5 })).rejects.toMatchObject({ status: 422 })
    await expect(keyward.issueProjectKey('p1', { remaining: -1 })).rejects.toMatchObject({
      type: 'greater_than_equal',
      loc: ['body', 'remaining'],
    })
    await expect(
      keyward.issueProjectKey('p1', { refill: { amount: 5, interval: 'daily' } }),
    ).rejects.toMatchObject({ type: 'value_error', loc: ['body', 'refill'] })
    expect(() => projectGuard(keyward, { cost: 1001 })).toThrow(/option `cost`/)
    expect(() => apiKeyGuard(keyward, { cost: -1 })).toThrow(/option `cost`/)
  })
})

describe('checkCreditsLowAt', () => {
  const refill = { amount: 10_000, interval: 'daily' } as const
  it.each([
    [{ percnt: 10 }],
    [{ remainig: 5 }],
    [{ percent: 10, remaining: 5 }],
    [{}],
    [[10]],
    [10],
    ['10%'],
  ])('refuses %j with one 422 at credits_low_at, never a default', (value) => {
    let thrown: unknown
    try {
      checkCreditsLowAt(value, 10_000, refill)
    } catch (error) {
      thrown = error
    }
    expect(thrown).toBeInstanceOf(KeywardError)
    expect(thrown).toMatchObject({ type: ErrorType.valueError, loc: ['body', 'credits_low_at'] })
  })

  it('takes each of its two forms', () => {
    expect(checkCreditsLowAt({ percent: 10 }, 10_000, refill)).toEqual({ percent: 10 })
    expect(checkCreditsLowAt({ remaining: 0 }, 10_000, null)).toEqual({ remaining: 0 })
    expect(checkCreditsLowAt(null, 10_000, null)).toBeNull()
  })
})
