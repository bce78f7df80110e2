import { apiKey, error, get, type HttpCase, ROUTES } from './case.js'
import { API_KEYS, assert, post } from './endpoint-cases.js'
import type { ConformanceWorld } from './world.js'

/** A request to the project route (cost 1) with a new API key of proj-1 holding `remaining` credits. */
const withCredits =
  (remaining: number, refill?: { amount: number; interval: 'daily' }) => async (w: ConformanceWorld) => {
    const { key } = await w.keyward.issueProjectKey('proj-1', { remaining, ...(refill ? { refill } : {}) })
    return get(ROUTES.project('proj-1'), apiKey(key))
  }

/** A change of the credits of a new API key of proj-1 holding 10 credits. */
const changeOf = (body: unknown) => async (w: ConformanceWorld) => {
  const { record } = await w.keyward.issueProjectKey('proj-1', { remaining: 10 })
  return post(`${API_KEYS('proj-1')}/${record.id}/credits`, w.keys.d1, JSON.stringify(body))
}

// A faulty field of a refill rule, where it is given, and the error that names it.
const REFILL_ERRORS: readonly [string, Record<string, unknown>, string, string][] = [
  ['a day of 0', { amount: 5, interval: 'monthly', day: 0 }, 'day', 'greater_than_equal'],
  ['a day of 32', { amount: 5, interval: 'monthly', day: 32 }, 'day', 'less_than_equal'],
  ['an amount of 0', { amount: 0, interval: 'daily' }, 'amount', 'greater_than_equal'],
  ['an unknown interval', { amount: 5, interval: 'weekly' }, 'interval', 'value_error'],
  ['no interval', { amount: 5 }, 'interval', 'missing'],
]

/** Credits of API keys on every adapter: the guard spends them last, and says what is left. */
export const creditCases: readonly HttpCase[] = [
  {
    name: 'credits: a key with credits passes and the response says how many are left (X-Credits-Remaining)',
    request: withCredits(5),
    expect: {
      status: 200,
      check: (body, _w, headers) => {
        assert(body.auth?.projectId === 'proj-1', 'passed', body)
        assert(headers['x-credits-remaining']?.[0] === '4', 'x-credits-remaining: 4', headers)
      },
    },
  },
  {
    name: 'credits: a key without credits is 429 usage_exceeded, with the credits left and no Retry-After without a refill',
    request: withCredits(0),
    expect: error(
      429,
      'usage_exceeded',
      ['header', 'x-api-key'],
      'The credits of this API key are spent: this request costs 1, 0 remain.',
    ),
  },
  {
    name: 'credits: POST api-keys/{key_id}/credits adds atomically and answers the key',
    request: async (w) => {
      const { record } = await w.keyward.issueProjectKey('proj-1', { remaining: 10 })
      return post(`${API_KEYS('proj-1')}/${record.id}/credits`, w.keys.d1, '{"op":"add","amount":5}')
    },
    expect: { status: 200, check: (body) => assert(body.remaining === 15, 'remaining 15', body) },
  },
  {
    name: 'credits: a subtraction below zero is 422 and changes nothing',
    request: async (w) => {
      const { record } = await w.keyward.issueProjectKey('proj-1', { remaining: 3 })
      return post(`${API_KEYS('proj-1')}/${record.id}/credits`, w.keys.d1, '{"op":"subtract","amount":4}')
    },
    expect: error(
      422,
      'greater_than_equal',
      ['body', 'amount'],
      'Cannot subtract 4 credits: the key holds 3.',
    ),
  },
  {
    name: "credits: a key of an identity whose pool is spent is 429 usage_exceeded, naming the identity's credits",
    request: async (w) => {
      const identity = await w.keyward.createIdentity('proj-1', {
        externalId: 'customer_spent',
        remaining: 0,
      })
      const { key } = await w.keyward.issueProjectKey('proj-1', { identityId: identity.id, remaining: 10 })
      return get(ROUTES.project('proj-1'), apiKey(key))
    },
    expect: error(
      429,
      'usage_exceeded',
      ['header', 'x-api-key'],
      "The credits of this API key's identity are spent: this request costs 1, 0 remain.",
    ),
  },
  {
    name: 'credits: POST identities/{identity_id}/credits adds to the pool atomically and answers the identity',
    request: async (w) => {
      const identity = await w.keyward.createIdentity('proj-1', {
        externalId: 'customer_pool',
        remaining: 10,
      })
      const path = `/api/v1/projects/proj-1/identities/${identity.id}/credits`
      return post(path, w.keys.d1, '{"op":"add","amount":5}')
    },
    expect: {
      status: 200,
      check: (body) =>
        assert(body.remaining === 15 && body.external_id === 'customer_pool', 'remaining 15', body),
    },
  },
  ...REFILL_ERRORS.flatMap(([what, refill, field, type]): HttpCase[] => [
    {
      name: `credits: a refill with ${what} is 422 at its field, at creation`,
      request: (w) => post(API_KEYS('proj-1'), w.keys.d1, JSON.stringify({ remaining: 5, refill })),
      expect: error(422, type, ['body', 'refill', field]),
    },
    {
      name: `credits: a refill with ${what} is 422 at its field, in POST api-keys/{key_id}/credits`,
      request: changeOf({ op: 'set', amount: 5, refill }),
      expect: error(422, type, ['body', 'refill', field]),
    },
  ]),
]
