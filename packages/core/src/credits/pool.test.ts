// The credit pool of an identity, spent by the guards of its keys on the memory store: both
// accounts (the key's own credits and the pool) or neither, the key's own checked first.
import { describe, expect, it } from 'vitest'
import { projectGuard } from '../http/guards.js'
import type { Guard, KeywardRequest } from '../http/types.js'
import type { KeywardEvent } from '../service/events.js'
import { createKeyward, type Keyward } from '../service/keyward.js'
import type { ProjectAuth } from '../service/requirements.js'
import { MemoryKeyStore } from '../store/memory.js'
import type { KeyStore } from '../store/types.js'

const request = (key: string): KeywardRequest => ({
  method: 'GET',
  url: '/',
  params: { project_id: 'p1' },
  address: '203.0.113.1',
  header: (name) => (name === 'x-api-key' ? key : undefined),
})

type Answer = { type: string; msg?: string; headers: Record<string, string> }

// A guard's answer, from memory when it knows it (the cached way), else the asynchronous way.
async function answer(guard: Guard<ProjectAuth>, key: string): Promise<Answer> {
  const result = guard.now?.(request(key)) ?? (await guard(request(key)))
  if (result.ok) return { type: 'ok', headers: { ...result.headers } }
  const [detail] = JSON.parse(result.response.body).detail
  return { type: detail.type, msg: detail.msg, headers: result.response.headers }
}

function world(options: { store?: KeyStore; now?: () => Date; cache?: boolean } = {}) {
  const events: KeywardEvent[] = []
  const store = options.store ?? new MemoryKeyStore()
  const keyward = createKeyward({
    store,
    onEvent: (event) => events.push(event),
    ...(options.cache === false ? {} : { cache: {} }),
    ...(options.now ? { now: options.now } : {}),
  })
  return { keyward, store, events }
}

/** An identity with a pool, and `count` keys of it, each with its own credits when given. */
async function pooled(keyward: Keyward, pool: number | null, count: number, own?: number) {
  const identity = await keyward.createIdentity('p1', { externalId: `customer_${crypto.randomUUID()}` })
  if (pool !== null) await keyward.changeIdentityCredits(identity.id, { op: 'set', remaining: pool })
  const keys = []
  for (let i = 0; i < count; i++) {
    keys.push(
      await keyward.issueProjectKey('p1', {
        identityId: identity.id,
        ...(own === undefined ? {} : { remaining: own }),
      }),
    )
  }
  return { identity, keys }
}

const poolOf = async (keyward: Keyward, id: string) => (await keyward.findIdentity(id))?.remaining
const ownOf = async (keyward: Keyward, id: string) => (await keyward.findKey(id))?.remaining

describe('the credit pool of an identity', () => {
  it('is shared by the keys of the identity: two keys stop together, refused 429 usage_exceeded with the pool named', async () => {
    const { keyward, events } = world()
    const { identity, keys } = await pooled(keyward, 100, 2)
    const guard = projectGuard(keyward)
    const answers = []
    for (let i = 0; i < 100; i++) answers.push((await answer(guard, keys[i % 2]!.key)).type)
    expect(answers.every((type) => type === 'ok')).toBe(true)
    for (const { key } of keys) {
      const refused = await answer(guard, key)
      expect(refused).toMatchObject({
        type: 'usage_exceeded',
        msg: "The credits of this API key's identity are spent: this request costs 1, 0 remain.",
        headers: { 'x-credits-remaining': '0' },
      })
      expect(refused.headers['retry-after']).toBeUndefined()
    }
    expect(events.filter((e) => e.type === 'auth.failed' && e.reason === 'usage_exceeded')).toHaveLength(2)
    await keyward.close()
    expect(await poolOf(keyward, identity.id)).toBe(0)
  })

  it('answers Retry-After when the pool has a refill, and refills once per period by the service clock', async () => {
    let now = new Date('2027-01-15T12:00:00Z')
    const { keyward } = world({ now: () => now })
    const { identity, keys } = await pooled(keyward, null, 1)
    await keyward.changeIdentityCredits(identity.id, {
      op: 'set',
      remaining: 2,
      refill: { amount: 3, interval: 'daily' },
    })
    const guard = projectGuard(keyward, { cost: 2 })
    const key = keys[0]!.key
    expect((await answer(guard, key)).type).toBe('ok')
    const refused = await answer(guard, key)
    expect(refused.type).toBe('usage_exceeded')
    expect(refused.headers['retry-after']).toBe(String(12 * 3600))
    expect(refused.msg).toContain('They refill at 2027-01-16T00:00:00.000Z.')
    now = new Date('2027-01-16T00:00:01Z')
    expect((await answer(guard, key)).type).toBe('ok')
    expect((await answer(guard, key)).type).toBe('usage_exceeded')
    await keyward.close()
    expect(await poolOf(keyward, identity.id)).toBe(1)
  })

  // The key's own 7 and a pool of 100, then the key's own 100 and a pool of 7: requests of 3 pass
  // twice, then the one that holds 7 refuses, naming itself, and the other keeps all but the 6.
  const refusals = [
    { by: "the key's own credits, checked first,", own: 7, pool: 100, whose: 'this API key' },
    { by: 'the pool', own: 100, pool: 7, whose: "this API key's identity" },
  ]
  for (const cache of [true, false]) {
    for (const { by, own, pool, whose } of refusals) {
      it(`a refusal by ${by} leaves the other untouched (${cache ? 'cached' : 'uncached'})`, async () => {
        const { keyward } = world({ cache })
        const { identity, keys } = await pooled(keyward, pool, 1, own)
        const { key, record } = keys[0]!
        const guard = projectGuard(keyward, { cost: 3 })
        const answers = []
        for (let i = 0; i < 5; i++) answers.push(await answer(guard, key))
        expect(answers.map((a) => a.type)).toEqual([
          'ok',
          'ok',
          'usage_exceeded',
          'usage_exceeded',
          'usage_exceeded',
        ])
        // The refusing balance is named and shown, though the other holds more.
        expect(answers[2]).toMatchObject({
          msg: `The credits of ${whose} are spent: this request costs 3, 1 remain.`,
          headers: { 'x-credits-remaining': '1' },
        })
        await keyward.close()
        expect(await ownOf(keyward, record.id)).toBe(own - 6)
        expect(await poolOf(keyward, identity.id)).toBe(pool - 6)
      })
    }
  }

  it('an accepted request of a key with both shows the lower of the two balances', async () => {
    const { keyward } = world()
    const low = await pooled(keyward, 1000, 1, 50)
    const high = await pooled(keyward, 40, 1, 1000)
    const guard = projectGuard(keyward, { cost: 5 })
    expect((await answer(guard, low.keys[0]!.key)).headers).toEqual({ 'x-credits-remaining': '45' })
    expect((await answer(guard, high.keys[0]!.key)).headers).toEqual({ 'x-credits-remaining': '35' })
    await keyward.close()
  })

  it('a key of an identity without a pool, and a key of none, spend only their own credits', async () => {
    const { keyward } = world()
    const { keys } = await pooled(keyward, null, 1, 10)
    const alone = await keyward.issueProjectKey('p1', { remaining: 10 })
    const plain = await pooled(keyward, null, 1)
    const guard = projectGuard(keyward, { cost: 4 })
    expect((await answer(guard, keys[0]!.key)).headers).toEqual({ 'x-credits-remaining': '6' })
    expect((await answer(guard, alone.key)).headers).toEqual({ 'x-credits-remaining': '6' })
    expect((await answer(guard, plain.keys[0]!.key)).headers).toEqual({})
  })

  it('8 services on one store: 50 keys of one identity spend a pool of 1,000 with requests costing 1 to 5; never more, exact after close', async () => {
    const store = new MemoryKeyStore()
    const services = Array.from({ length: 8 }, () => world({ store }).keyward)
    const { identity, keys } = await pooled(services[0]!, 1000, 50)
    const guards = services.map((keyward) => [1, 2, 3, 4, 5].map((cost) => projectGuard(keyward, { cost })))
    let accepted = 0
    await Promise.all(
      Array.from({ length: 4000 }, async (_, i) => {
        const cost = 1 + ((i * 7) % 5)
        const result = await answer(guards[i % 8]![cost - 1]!, keys[i % 50]!.key)
        if (result.type === 'ok') accepted += cost
        else expect(result.type).toBe('usage_exceeded')
      }),
    )
    expect(accepted).toBeLessThanOrEqual(1000)
    expect(accepted).toBeGreaterThan(900)
    await Promise.all(services.map((keyward) => keyward.close()))
    expect(await poolOf(services[0]!, identity.id)).toBe(1000 - accepted)
  })

  it('keys with credits of their own race the pool: a refusal by either takes nothing from the other', async () => {
    const store = new MemoryKeyStore()
    const services = Array.from({ length: 4 }, () => world({ store }).keyward)
    // 10 keys of 30 credits each (300 in all) share a pool of 200: both refuse, at times.
    const { identity, keys } = await pooled(services[0]!, 200, 10, 30)
    const guards = services.map((keyward) => [1, 2, 3].map((cost) => projectGuard(keyward, { cost })))
    const spent = new Map<string, number>()
    await Promise.all(
      Array.from({ length: 1000 }, async (_, i) => {
        const cost = 1 + (i % 3)
        const { key, record } = keys[(i * 3) % 10]!
        const result = await answer(guards[i % 4]![cost - 1]!, key)
        if (result.type === 'ok') spent.set(record.id, (spent.get(record.id) ?? 0) + cost)
        else expect(result.type).toBe('usage_exceeded')
      }),
    )
    await Promise.all(services.map((keyward) => keyward.close()))
    const total = [...spent.values()].reduce((a, b) => a + b, 0)
    expect(total).toBeLessThanOrEqual(200)
    expect(await poolOf(services[0]!, identity.id)).toBe(200 - total)
    for (const { record } of keys) {
      expect(await ownOf(services[0]!, record.id)).toBe(30 - (spent.get(record.id) ?? 0))
    }
  })

  it('gives back the unspent pool blocks at close, and reports what it could not as identity.credits_stranded', async () => {
    const store = new MemoryKeyStore()
    // A give-back whose outcome is unknown (a timeout after it was sent) is never sent again.
    store.identities.returnIdentityCredits = async () => {
      throw Object.assign(new Error('the store did not answer'), { outcome: 'unknown' })
    }
    const { keyward, events } = world({ store })
    const { identity, keys } = await pooled(keyward, 5000, 1)
    expect((await answer(projectGuard(keyward), keys[0]!.key)).type).toBe('ok')
    // A lease took a block: the stored pool holds less than 4,999 until the stop.
    expect(await poolOf(keyward, identity.id)).toBeLessThan(4999)
    await keyward.close()
    const stranded = events.filter((e) => e.type === 'identity.credits_stranded')
    expect(stranded).toEqual([
      { type: 'identity.credits_stranded', identityId: identity.id, credits: expect.any(Number) },
    ])
    const lost = stranded[0]!.type === 'identity.credits_stranded' ? stranded[0]!.credits : 0
    expect((await poolOf(keyward, identity.id))! + lost).toBe(4999)

    const fine = world().keyward
    const other = await pooled(fine, 5000, 1)
    expect((await answer(projectGuard(fine), other.keys[0]!.key)).type).toBe('ok')
    await fine.close()
    expect(await poolOf(fine, other.identity.id)).toBe(4999)
  })
})

describe('changeIdentityCredits', () => {
  it('sets, adds and subtracts the pool; bad input is 422 naming the identity and changes nothing; each change is an event and an audit row', async () => {
    const { keyward, events } = world()
    const { identity } = await pooled(keyward, 10, 0)
    expect((await keyward.changeIdentityCredits(identity.id, { op: 'add', amount: 5 }))?.remaining).toBe(15)
    const below = keyward.changeIdentityCredits(identity.id, { op: 'subtract', amount: 16 })
    await expect(below).rejects.toMatchObject({
      type: 'greater_than_equal',
      loc: ['body', 'amount'],
      msg: 'Cannot subtract 16 credits: the identity holds 15.',
      status: 422,
    })
    await expect(
      // biome-ignore lint/suspicious/noExplicitAny: bad input on purpose
      keyward.changeIdentityCredits(identity.id, { op: 'add', amount: 1, extra: 1 } as any),
    ).rejects.toMatchObject({ type: 'extra_forbidden', status: 422 })
    const refill = { amount: 50, interval: 'monthly', day: 31 } as const
    const set = await keyward.changeIdentityCredits(identity.id, { op: 'set', remaining: 50, refill })
    expect(set).toMatchObject({ remaining: 50, refill })
    expect(await keyward.findIdentity(identity.id)).toEqual(set)
    const none = await keyward.changeIdentityCredits(identity.id, { op: 'set', remaining: null })
    expect(none).toMatchObject({ remaining: null, refill: null, refilledAt: null })
    await expect(keyward.changeIdentityCredits(identity.id, { op: 'add', amount: 1 })).rejects.toMatchObject({
      type: 'value_error',
      msg: 'This identity has no credit pool: set its credits (op "set") before adding or subtracting.',
    })
    expect(await keyward.changeIdentityCredits(crypto.randomUUID(), { op: 'add', amount: 1 })).toBeNull()

    const changes = events.filter((e) => e.type === 'identity.credits_changed')
    expect(changes.map((e) => e.type === 'identity.credits_changed' && [e.op, e.amount])).toEqual([
      ['set', 10],
      ['add', 5],
      ['set', 50],
      ['set', null],
    ])
    expect(changes[1]).toMatchObject({
      identityId: identity.id,
      projectId: 'p1',
      before: { remaining: 10, refill: null },
      after: { remaining: 15, refill: null },
    })
  })

  it('appends identity.credits_changed in the log of the project owner, with the pool before and after', async () => {
    const store = new MemoryKeyStore()
    const keyward = createKeyward({ store, projectOwner: async () => 'dev_1' })
    const { identity } = await pooled(keyward, 10, 0)
    await keyward.changeIdentityCredits(
      identity.id,
      { op: 'set', remaining: 20, refill: { amount: 20, interval: 'daily' } },
      { actor: { type: 'operator', name: 'ops' } },
    )
    const page = await keyward.listAudit('dev_1', { limit: 10 })
    const rows = page.records.filter((row) => row.action === 'identity.credits_changed')
    expect(rows).toHaveLength(2)
    expect(rows[0]).toMatchObject({
      targetType: 'identity',
      targetId: identity.id,
      projectId: 'p1',
      actor: { type: 'operator', name: 'ops' },
      before: { external_id: identity.externalId, remaining: 10, refill: null },
      after: {
        external_id: identity.externalId,
        remaining: 20,
        refill: { amount: 20, interval: 'daily' },
        op: 'set',
        amount: 20,
      },
    })
  })

  it("reaches cached verifications of the identity's keys: a new pool starts the spending, none stops it", async () => {
    const { keyward } = world()
    const { identity, keys } = await pooled(keyward, null, 2)
    const guard = projectGuard(keyward)
    for (const { key } of keys) expect(await answer(guard, key)).toEqual({ type: 'ok', headers: {} })
    await keyward.changeIdentityCredits(identity.id, { op: 'set', remaining: 1 })
    expect((await answer(guard, keys[0]!.key)).headers).toEqual({ 'x-credits-remaining': '0' })
    expect((await answer(guard, keys[1]!.key)).type).toBe('usage_exceeded')
    await keyward.changeIdentityCredits(identity.id, { op: 'add', amount: 2 })
    expect((await answer(guard, keys[1]!.key)).headers).toEqual({ 'x-credits-remaining': '1' })
    await keyward.changeIdentityCredits(identity.id, { op: 'set', remaining: null })
    for (const { key } of keys) expect(await answer(guard, key)).toEqual({ type: 'ok', headers: {} })
  })

  it('is a TypeError on a store that keeps no identities', async () => {
    const store = new MemoryKeyStore()
    const bare = Object.create(store, { identities: { value: undefined } }) as KeyStore
    const keyward = createKeyward({ store: bare })
    await expect(
      keyward.changeIdentityCredits(crypto.randomUUID(), { op: 'add', amount: 1 }),
    ).rejects.toThrow(TypeError)
  })
})
