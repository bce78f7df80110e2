import { describe, expect, it } from 'vitest'
import { world } from '../test/key-routes-world.js'

const API = '/api/v1/projects/p1/api-keys'
const MONTHLY = { amount: 1000, interval: 'monthly', day: 31 }

describe('key routes: credits of API keys', () => {
  it('creates an API key with credits and a refill, lists them, and changes them with set, add and subtract', async () => {
    const { call, d1, keyward } = await world()
    const created = await call('POST', API, {
      key: d1,
      body: JSON.stringify({ remaining: 100, refill: MONTHLY }),
    })
    expect(created.status).toBe(201)
    expect(created.json).toMatchObject({ remaining: 100, refill: MONTHLY })
    const credits = `${API}/${created.json.id}/credits`
    const add = await call('POST', credits, { key: d1, body: JSON.stringify({ op: 'add', amount: 50 }) })
    expect(add.status).toBe(200)
    expect(add.json).toMatchObject({ id: created.json.id, remaining: 150, refill: MONTHLY })
    expect(add.json).not.toHaveProperty('key')
    const subtract = await call('POST', credits, {
      key: d1,
      body: JSON.stringify({ op: 'subtract', amount: 150 }),
    })
    expect(subtract.json.remaining).toBe(0)
    const set = await call('POST', credits, {
      key: d1,
      body: JSON.stringify({ op: 'set', amount: 10, refill: { amount: 20, interval: 'daily' } }),
    })
    expect(set.json).toMatchObject({ remaining: 10, refill: { amount: 20, interval: 'daily' } })
    const unlimited = await call('POST', credits, {
      key: d1,
      body: JSON.stringify({ op: 'set', amount: null }),
    })
    expect(unlimited.json).toMatchObject({ remaining: null, refill: null })
    const listed = await call('GET', API, { key: d1 })
    expect(listed.json.keys[0]).toMatchObject({ remaining: null, refill: null })
    const plain = await call('POST', API, { key: d1 })
    expect(plain.json).toMatchObject({ remaining: null, refill: null })
    expect((await keyward.findKey(created.json.id))?.remaining ?? null).toBeNull()
  })

  it('creates an API key with a low-credits threshold, and shows it', async () => {
    const { call, d1 } = await world()
    const created = await call('POST', API, {
      key: d1,
      body: JSON.stringify({ remaining: 100, refill: MONTHLY, credits_low_at: { percent: 10 } }),
    })
    expect(created.status).toBe(201)
    expect(created.json).toMatchObject({ remaining: 100, credits_low_at: { percent: 10 } })
    const listed = await call('GET', API, { key: d1 })
    expect(listed.json.keys[0]).toMatchObject({ credits_low_at: { percent: 10 } })
  })

  it.each([
    [
      'a percent of 0',
      { remaining: 10, refill: MONTHLY, credits_low_at: { percent: 0 } },
      ['body', 'credits_low_at', 'percent'],
    ],
    [
      'a percent of 100',
      { remaining: 10, refill: MONTHLY, credits_low_at: { percent: 100 } },
      ['body', 'credits_low_at', 'percent'],
    ],
    [
      'a percent without a refill',
      { remaining: 10, credits_low_at: { percent: 10 } },
      ['body', 'credits_low_at', 'percent'],
    ],
    ['a threshold without credits', { credits_low_at: { remaining: 5 } }, ['body', 'credits_low_at']],
    [
      'a negative threshold',
      { remaining: 10, credits_low_at: { remaining: -1 } },
      ['body', 'credits_low_at', 'remaining'],
    ],
  ])('refuses %s with 422 in the error format, and creates nothing', async (_, body, loc) => {
    const { call, d1 } = await world()
    const refused = await call('POST', API, { key: d1, body: JSON.stringify(body) })
    expect(refused.status).toBe(422)
    expect(refused.json.detail).toEqual([
      expect.objectContaining({ loc, msg: expect.any(String), type: expect.any(String) }),
    ])
    expect((await call('GET', API, { key: d1 })).json.keys).toEqual([])
  })

  it('changes the low-credits threshold with PATCH, clears it with null, and audits both', async () => {
    const { call, d1, keyward } = await world()
    const created = await call('POST', API, {
      key: d1,
      body: JSON.stringify({ remaining: 100, refill: MONTHLY, credits_low_at: { remaining: 5 } }),
    })
    const path = `${API}/${created.json.id}`
    const patched = await call('PATCH', path, {
      key: d1,
      body: JSON.stringify({ credits_low_at: { percent: 10 } }),
    })
    expect(patched.status).toBe(200)
    expect(patched.json).toMatchObject({ remaining: 100, credits_low_at: { percent: 10 } })
    expect((await keyward.findKey(created.json.id))?.creditsLowAt).toEqual({ percent: 10 })
    // Another field leaves it as it is.
    const renamed = await call('PATCH', path, {
      key: d1,
      body: JSON.stringify({ metadata: { plan: 'pro' } }),
    })
    expect(renamed.json.credits_low_at).toEqual({ percent: 10 })
    const cleared = await call('PATCH', path, { key: d1, body: JSON.stringify({ credits_low_at: null }) })
    expect(cleared.status).toBe(200)
    expect(cleared.json.credits_low_at).toBeNull()
    expect((await call('GET', path, { key: d1 })).json.credits_low_at).toBeNull()
    const rows = (await keyward.listAudit('d1')).records.filter(
      (row) => row.action === 'key.policies_set' && 'credits_low_at' in (row.after ?? {}),
    )
    expect(rows.map((row) => [row.before?.credits_low_at, row.after?.credits_low_at])).toEqual([
      [{ percent: 10 }, null],
      [{ remaining: 5 }, { percent: 10 }],
    ])
  })

  it.each([
    ['a threshold of a key without a credit limit', null, { remaining: 5 }, ['body', 'credits_low_at']],
    [
      'a percent of a key without a refill',
      { remaining: 10 },
      { percent: 10 },
      ['body', 'credits_low_at', 'percent'],
    ],
    [
      'a percent of 0',
      { remaining: 10, refill: MONTHLY },
      { percent: 0 },
      ['body', 'credits_low_at', 'percent'],
    ],
    [
      'a percent of 100',
      { remaining: 10, refill: MONTHLY },
      { percent: 100 },
      ['body', 'credits_low_at', 'percent'],
    ],
    ['a negative threshold', { remaining: 10 }, { remaining: -1 }, ['body', 'credits_low_at', 'remaining']],
    [
      'two fields',
      { remaining: 10, refill: MONTHLY },
      { remaining: 1, percent: 1 },
      ['body', 'credits_low_at'],
    ],
  ])(
    'refuses to PATCH %s with 422 in the error format, and changes nothing',
    async (_, credits, lowAt, loc) => {
      const { call, d1, keyward } = await world()
      const created = await call('POST', API, {
        key: d1,
        body: JSON.stringify({
          ...credits,
          ...(credits?.remaining ? { credits_low_at: { remaining: 2 } } : {}),
        }),
      })
      const before = await keyward.findKey(created.json.id)
      const refused = await call('PATCH', `${API}/${created.json.id}`, {
        key: d1,
        body: JSON.stringify({ permissions: null, credits_low_at: lowAt }),
      })
      expect(refused.status).toBe(422)
      expect(refused.json.detail).toEqual([
        expect.objectContaining({ loc, msg: expect.any(String), type: expect.any(String) }),
      ])
      expect(await keyward.findKey(created.json.id)).toEqual(before)
    },
  )

  it('a set of credits that leaves no limit, or no refill under a threshold in percent, clears the threshold and audits it', async () => {
    const { call, d1, keyward } = await world()
    const created = await call('POST', API, {
      key: d1,
      body: JSON.stringify({ remaining: 100, refill: MONTHLY, credits_low_at: { percent: 10 } }),
    })
    const credits = `${API}/${created.json.id}/credits`
    const set = (body: object) => call('POST', credits, { key: d1, body: JSON.stringify(body) })
    expect((await set({ op: 'set', amount: 50 })).json.credits_low_at).toEqual({ percent: 10 })
    expect((await set({ op: 'set', amount: 50, refill: null })).json.credits_low_at).toBeNull()
    await call('PATCH', `${API}/${created.json.id}`, {
      key: d1,
      body: JSON.stringify({ credits_low_at: { remaining: 5 } }),
    })
    expect((await set({ op: 'add', amount: 1 })).json.credits_low_at).toEqual({ remaining: 5 })
    const unlimited = await set({ op: 'set', amount: null })
    expect(unlimited.json).toMatchObject({ remaining: null, credits_low_at: null })
    expect((await keyward.findKey(created.json.id))?.creditsLowAt ?? null).toBeNull()
    const rows = (await keyward.listAudit('d1')).records.filter((row) => row.action === 'key.credits_changed')
    expect(rows.map((row) => [row.before?.credits_low_at, row.after?.credits_low_at])).toEqual([
      [{ remaining: 5 }, null],
      [undefined, undefined],
      [{ percent: 10 }, null],
      [undefined, undefined],
    ])
  })

  it.each([
    ['a negative amount', { op: 'add', amount: -1 }, ['body', 'amount']],
    ['a non-integer', { op: 'add', amount: 1.5 }, ['body', 'amount']],
    ['a string amount', { op: 'subtract', amount: '5' }, ['body', 'amount']],
    ['a subtraction below zero', { op: 'subtract', amount: 11 }, ['body', 'amount']],
    ['an unknown op', { op: 'multiply', amount: 2 }, ['body', 'op']],
    ['no op', { amount: 2 }, ['body', 'op']],
    [
      'a refill day of 0',
      { op: 'set', amount: 5, refill: { amount: 5, interval: 'monthly', day: 0 } },
      ['body', 'refill', 'day'],
    ],
    [
      'a refill day of 32',
      { op: 'set', amount: 5, refill: { amount: 5, interval: 'monthly', day: 32 } },
      ['body', 'refill', 'day'],
    ],
    [
      'a refill amount of 0',
      { op: 'set', amount: 5, refill: { amount: 0, interval: 'daily' } },
      ['body', 'refill', 'amount'],
    ],
    [
      'an unknown refill interval',
      { op: 'set', amount: 5, refill: { amount: 5, interval: 'weekly' } },
      ['body', 'refill', 'interval'],
    ],
    [
      'a refill without interval',
      { op: 'set', amount: 5, refill: { amount: 5 } },
      ['body', 'refill', 'interval'],
    ],
    [
      'a daily refill with a day',
      { op: 'set', amount: 5, refill: { amount: 5, interval: 'daily', day: 3 } },
      ['body', 'refill', 'day'],
    ],
    ['a refill that is no object', { op: 'set', amount: 5, refill: 'monthly' }, ['body', 'refill']],
    ['a refill with add', { op: 'add', amount: 5, refill: null }, ['body', 'refill']],
  ])('answers %s with 422 in the error format and changes nothing', async (_, body, loc) => {
    const { call, d1 } = await world()
    const created = await call('POST', API, { key: d1, body: JSON.stringify({ remaining: 10 }) })
    const answer = await call('POST', `${API}/${created.json.id}/credits`, {
      key: d1,
      body: JSON.stringify(body),
    })
    expect(answer.status).toBe(422)
    expect(answer.headers['cache-control']).toBe('no-store')
    expect(answer.json.detail[0].loc).toEqual(loc)
    const listed = await call('GET', API, { key: d1 })
    expect(listed.json.keys[0]).toMatchObject({ remaining: 10, refill: null })
  })

  it.each([
    ['a day of 0', { amount: 5, interval: 'monthly', day: 0 }, 'day', 'greater_than_equal'],
    ['a day of 32', { amount: 5, interval: 'monthly', day: 32 }, 'day', 'less_than_equal'],
    ['a day of 1.5', { amount: 5, interval: 'monthly', day: 1.5 }, 'day', 'int_type'],
    ['an amount of 0', { amount: 0, interval: 'daily' }, 'amount', 'greater_than_equal'],
    ['no amount', { interval: 'daily' }, 'amount', 'missing'],
    ['an unknown interval', { amount: 5, interval: 'hourly' }, 'interval', 'value_error'],
  ])('locates a refill with %s at its field, at creation and in a change', async (_, refill, field, type) => {
    const { call, d1 } = await world()
    const created = await call('POST', API, { key: d1, body: JSON.stringify({ remaining: 5, refill }) })
    expect([created.status, created.json.detail]).toEqual([
      422,
      [{ loc: ['body', 'refill', field], msg: expect.any(String), type }],
    ])
    const plain = await call('POST', API, { key: d1, body: JSON.stringify({ remaining: 5 }) })
    const changed = await call('POST', `${API}/${plain.json.id}/credits`, {
      key: d1,
      body: JSON.stringify({ op: 'set', amount: 7, refill }),
    })
    expect([changed.status, changed.json.detail[0].loc, changed.json.detail[0].type]).toEqual([
      422,
      ['body', 'refill', field],
      type,
    ])
    const listed = await call('GET', API, { key: d1 })
    expect(listed.json.keys).toHaveLength(1) // the refused creation made no key
    expect(listed.json.keys[0]).toMatchObject({ remaining: 5, refill: null })
  })

  it('names the choices of an unknown op or interval in plain words', async () => {
    const { call, d1 } = await world()
    const created = await call('POST', API, { key: d1, body: JSON.stringify({ remaining: 5 }) })
    const credits = `${API}/${created.json.id}/credits`
    const op = await call('POST', credits, { key: d1, body: JSON.stringify({ op: 'multiply', amount: 2 }) })
    expect(op.json.detail[0]).toEqual({
      loc: ['body', 'op'],
      msg: 'Input should be "set", "add" or "subtract".',
      type: 'value_error',
    })
    const interval = await call('POST', credits, {
      key: d1,
      body: JSON.stringify({ op: 'set', amount: 5, refill: { amount: 5, interval: 'weekly' } }),
    })
    expect(interval.json.detail[0]).toEqual({
      loc: ['body', 'refill', 'interval'],
      msg: 'Input should be "daily" or "monthly".',
      type: 'value_error',
    })
  })

  it('refuses bad credits at creation with 422, and another developer with 403', async () => {
    const { call, d1, d2 } = await world()
    const negative = await call('POST', API, { key: d1, body: JSON.stringify({ remaining: -5 }) })
    expect(negative.status).toBe(422)
    const lonelyRefill = await call('POST', API, { key: d1, body: JSON.stringify({ refill: MONTHLY }) })
    expect(lonelyRefill.json.detail[0]).toMatchObject({ loc: ['body', 'refill'], type: 'value_error' })
    const created = await call('POST', API, { key: d1, body: JSON.stringify({ remaining: 10 }) })
    const other = await call('POST', `${API}/${created.json.id}/credits`, {
      key: d2,
      body: JSON.stringify({ op: 'add', amount: 5 }),
    })
    expect(other.status).toBe(403)
    const unknown = await call('POST', `${API}/${crypto.randomUUID()}/credits`, {
      key: d1,
      body: JSON.stringify({ op: 'add', amount: 5 }),
    })
    expect(unknown.status).toBe(404)
  })
})
