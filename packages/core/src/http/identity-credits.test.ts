import { describe, expect, it } from 'vitest'
import { createKeyward } from '../service/keyward.js'
import { MemoryKeyStore } from '../store/memory.js'
import { NOW, world } from '../test/key-routes-world.js'
import { IDENTITY_CREDITS_PATH } from './identity-routes.js'
import { createKeyRoutes } from './key-routes.js'

const IDS = '/api/v1/projects/p1/identities'

describe('key routes: the credit pool of an identity', () => {
  it('sets, adds and subtracts the pool, answering the identity; each change is an audit row', async () => {
    const { call, d1, keyward } = await world()
    const acme = await keyward.createIdentity('p1', { externalId: 'customer_acme' })
    const credits = `${IDS}/${acme.id}/credits`
    const refill = { amount: 100, interval: 'monthly', day: 1 }
    const set = await call('POST', credits, {
      key: d1,
      body: JSON.stringify({ op: 'set', amount: 100, refill }),
    })
    expect([set.status, set.headers['cache-control']]).toEqual([200, 'no-store'])
    expect(set.json).toEqual({
      id: acme.id,
      project_id: 'p1',
      external_id: 'customer_acme',
      metadata: null,
      ratelimits: [],
      remaining: 100,
      refill,
      credits_low_at: null,
      roles: null,
      created_at: NOW.toISOString(),
      updated_at: NOW.toISOString(),
    })
    const add = await call('POST', credits, { key: d1, body: JSON.stringify({ op: 'add', amount: 50 }) })
    expect(add.json).toMatchObject({ remaining: 150, refill })
    const subtract = await call('POST', credits, {
      key: d1,
      body: JSON.stringify({ op: 'subtract', amount: 149 }),
    })
    expect(subtract.json.remaining).toBe(1)
    expect((await keyward.findIdentity(acme.id))?.remaining).toBe(1)
    const rows = (await keyward.listAudit('d1', { limit: 10 })).records
    const changes = rows.filter((row) => row.action === 'identity.credits_changed')
    expect(changes).toHaveLength(3)
    expect(changes[0]).toMatchObject({
      actor: { type: 'developer' },
      targetId: acme.id,
      before: { remaining: 150 },
      after: { remaining: 1, op: 'subtract', amount: 149 },
    })
  })

  it.each([
    ['a subtraction below zero', { op: 'subtract', amount: 11 }, ['body', 'amount'], 'greater_than_equal'],
    ['a negative amount', { op: 'add', amount: -1 }, ['body', 'amount'], 'greater_than_equal'],
    ['an unknown op', { op: 'multiply', amount: 2 }, ['body', 'op'], 'value_error'],
    ['an unknown field', { op: 'add', amount: 2, identity: 'x' }, ['body', 'identity'], 'extra_forbidden'],
    [
      'a refill day of 32',
      { op: 'set', amount: 5, refill: { amount: 5, interval: 'monthly', day: 32 } },
      ['body', 'refill', 'day'],
      'less_than_equal',
    ],
  ])('answers %s with 422 in the error format and changes nothing', async (_, body, loc, type) => {
    const { call, d1, keyward } = await world()
    const acme = await keyward.createIdentity('p1', { externalId: 'customer_acme', remaining: 10 })
    const answer = await call('POST', `${IDS}/${acme.id}/credits`, { key: d1, body: JSON.stringify(body) })
    expect([answer.status, answer.json.detail[0].loc, answer.json.detail[0].type]).toEqual([422, loc, type])
    expect(await keyward.findIdentity(acme.id)).toEqual(acme)
  })

  it('says the identity has no pool when add or subtract meets none', async () => {
    const { call, d1, keyward } = await world()
    const acme = await keyward.createIdentity('p1', { externalId: 'customer_acme' })
    const answer = await call('POST', `${IDS}/${acme.id}/credits`, {
      key: d1,
      body: JSON.stringify({ op: 'add', amount: 5 }),
    })
    expect([answer.status, answer.json.detail]).toEqual([
      422,
      [
        {
          loc: ['body', 'op'],
          msg: 'This identity has no credit pool: set its credits (op "set") before adding or subtracting.',
          type: 'value_error',
        },
      ],
    ])
  })

  it("is 404 for an unknown identity and another project's, 403 for another developer, and changes nothing", async () => {
    const { call, d1, d2, keyward } = await world()
    const elsewhere = await keyward.createIdentity('p2', { externalId: 'customer_acme', remaining: 10 })
    const body = JSON.stringify({ op: 'add', amount: 5 })
    for (const id of [crypto.randomUUID(), 'not-a-uuid', elsewhere.id]) {
      const answer = await call('POST', `${IDS}/${id}/credits`, { key: d1, body })
      expect([answer.status, answer.json.detail[0].loc]).toEqual([404, ['path', 'identity_id']])
    }
    const acme = await keyward.createIdentity('p1', { externalId: 'customer_acme', remaining: 10 })
    expect((await call('POST', `${IDS}/${acme.id}/credits`, { key: d2, body })).status).toBe(403)
    expect((await keyward.findIdentity(elsewhere.id))?.remaining).toBe(10)
    expect((await keyward.findIdentity(acme.id))?.remaining).toBe(10)
  })

  it('is not mounted over a store that keeps no identities', async () => {
    const store = Object.create(new MemoryKeyStore(), { identities: { value: undefined } })
    const mounted = (keyStore: MemoryKeyStore) =>
      createKeyRoutes(createKeyward({ store: keyStore, projectOwner: () => null })).some(
        (route) => route.method === 'POST' && route.path === IDENTITY_CREDITS_PATH,
      )
    expect([mounted(store), mounted(new MemoryKeyStore())]).toEqual([false, true])
  })
})
