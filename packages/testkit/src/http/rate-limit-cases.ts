import { apiKeyGuard, type KeywardRequest, type StoredRateLimit } from '@keyward/core'
import { apiKey, error, get, type HttpCase, ROUTES } from './case.js'
import { API_KEYS, assert, patch, post } from './endpoint-cases.js'
import type { ConformanceWorld } from './world.js'

const ONE_PER_MINUTE: readonly StoredRateLimit[] = [{ name: 'requests', limit: 1, duration: 60_000 }]

/** One request of `key` through a guard of the world's own service, in process: it counts as any other. */
async function spendInProcess(w: ConformanceWorld, key: string): Promise<void> {
  const request: KeywardRequest = {
    method: 'GET',
    url: '/',
    params: {},
    header: (name) => (name === 'x-api-key' ? key : undefined),
  }
  const result = await apiKeyGuard(w.keyward)(request)
  if (!result.ok) throw new Error(`the first request was refused: ${result.response.body}`)
}

/**
 * Stored rate limits on every adapter (counted by the service in memory, on the worlds' fixed
 * clock): the guard refuses past a limit with its name, an identity's limit is shared by its
 * keys, and the key routes take, answer and change a key's limits.
 */
export const rateLimitCases: readonly HttpCase[] = [
  {
    name: 'rate limits: a key past its stored limit is 429 rate_limited naming it, with Retry-After',
    request: async (w) => {
      const { key } = await w.keyward.issueProjectKey('proj-1', { ratelimits: ONE_PER_MINUTE })
      await spendInProcess(w, key)
      return get(ROUTES.project('proj-1'), apiKey(key))
    },
    expect: error(
      429,
      'rate_limited',
      ['header', 'x-api-key'],
      'The rate limit `requests` of this API key is spent: 1 per 60 seconds; try again in 60 seconds.',
    ),
  },
  {
    name: "rate limits: an identity's limit is shared by its keys: one key's request stops the other",
    request: async (w) => {
      const identity = await w.keyward.createIdentity('proj-1', {
        externalId: `customer-${crypto.randomUUID()}`,
        ratelimits: ONE_PER_MINUTE,
      })
      const first = await w.keyward.issueProjectKey('proj-1', { identityId: identity.id })
      const second = await w.keyward.issueProjectKey('proj-1', { identityId: identity.id })
      await spendInProcess(w, first.key)
      return get(ROUTES.project('proj-1'), apiKey(second.key))
    },
    expect: error(
      429,
      'rate_limited',
      ['header', 'x-api-key'],
      "The rate limit `requests` of this API key's identity is spent: 1 per 60 seconds; try again in 60 seconds.",
    ),
  },
  {
    name: 'rate limits: POST api-keys takes `ratelimits` and the key answers them',
    request: (w) => post(API_KEYS('proj-1'), w.keys.d1, JSON.stringify({ ratelimits: ONE_PER_MINUTE })),
    expect: {
      status: 201,
      check: (body) =>
        assert(JSON.stringify(body.ratelimits) === JSON.stringify(ONE_PER_MINUTE), 'ratelimits', body),
    },
  },
  {
    name: 'rate limits: PATCH api-keys/{key_id} with `ratelimits: null` clears them: the key answers []',
    request: async (w) => {
      const { record } = await w.keyward.issueProjectKey('proj-1', { ratelimits: ONE_PER_MINUTE })
      return patch(`${API_KEYS('proj-1')}/${record.id}`, w.keys.d1, '{"ratelimits":null}')
    },
    expect: {
      status: 200,
      check: (body) =>
        assert(Array.isArray(body.ratelimits) && body.ratelimits.length === 0, 'no limits', body),
    },
  },
  {
    name: 'rate limits: a duration that is not whole seconds is 422 at its field, creating nothing',
    request: (w) =>
      post(
        API_KEYS('proj-1'),
        w.keys.d1,
        JSON.stringify({ ratelimits: [{ name: 'requests', limit: 5, duration: 1500 }] }),
      ),
    expect: error(
      422,
      'value_error',
      ['body', 'ratelimits', '0', 'duration'],
      'A duration is in milliseconds of whole seconds (e.g. 60000 for a minute), got 1500.',
    ),
  },
]
