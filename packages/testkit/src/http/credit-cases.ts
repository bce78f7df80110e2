import { apiKey, error, get, type HttpCase, ROUTES } from './case.js'
import { API_KEYS, assert, post } from './endpoint-cases.js'
import type { ConformanceWorld } from './world.js'

/** A request to the project route (cost 1) with a new API key of proj-1 holding `remaining` credits. */
const withCredits =
  (remaining: number, refill?: { amount: number; interval: 'daily' }) => async (w: ConformanceWorld) => {
    const { key } = await w.keyward.issueProjectKey('proj-1', { remaining, ...(refill ? { refill } : {}) })
    return get(ROUTES.project('proj-1'), apiKey(key))
  }

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
]
