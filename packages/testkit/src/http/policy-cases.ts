import { createKeyward } from '@keyward/core'
import { apiKey, error, get, type HttpCase, ROUTES } from './case.js'
import { API_KEYS, assert, patch, post } from './endpoint-cases.js'
import {
  CONFORMANCE_MAX_LIFETIME_DAYS,
  CONFORMANCE_NOW,
  CONFORMANCE_PERMISSIONS,
  type ConformanceWorld,
} from './world.js'

// The servers listen on 127.0.0.1: a client of the suite comes from there (or ::ffff:127.0.0.1 on
// a dual-stack socket), so an allowlist of loopback admits it and any other refuses it.
const LOOPBACK = ['127.0.0.0/8', '::1']

/** A request to a protected route with a new API key of proj-1 that has these policies. */
const withKey =
  (
    route: (projectId: string) => string,
    policies: Parameters<ConformanceWorld['keyward']['issueProjectKey']>[1],
  ) =>
  async (w: ConformanceWorld) => {
    const { key } = await w.keyward.issueProjectKey('proj-1', policies)
    return get(route('proj-1'), apiKey(key))
  }

/** Access policies of API keys: IP allowlists, permissions and metadata, on every adapter. */
export const policyCases: readonly HttpCase[] = [
  {
    name: 'policies: an API key used from outside its IP allowlist is 403 ip_not_allowed',
    request: withKey(ROUTES.project, { ipAllowlist: ['198.51.100.0/24', '2001:db8::/32'] }),
    expect: error(
      403,
      'ip_not_allowed',
      ['header', 'x-api-key'],
      "The API key may not be used from this address: it is not in the key's IP allowlist.",
    ),
  },
  {
    name: 'policies: an API key used from its allowlist passes (the adapter hands the socket address over)',
    request: withKey(ROUTES.project, { ipAllowlist: LOOPBACK }),
    expect: { status: 200, check: (body) => assert(body.auth?.projectId === 'proj-1', 'passed', body) },
  },
  {
    name: 'policies: a route that requires a permission refuses a key without it, naming it',
    request: withKey(ROUTES.permitted, { permissions: ['reports:write'] }),
    expect: error(
      403,
      'permission_denied',
      ['header', 'x-api-key'],
      'The API key lacks the permission reports:read.',
    ),
  },
  {
    name: 'policies: a key with the permission passes, and the route gets its permissions and metadata',
    request: withKey(ROUTES.permitted, {
      permissions: ['reports:read'],
      metadata: { plan: 'pro', seats: 3 },
    }),
    expect: {
      status: 200,
      check: (body) =>
        assert(
          JSON.stringify([body.auth?.permissions, body.auth?.metadata]) ===
            JSON.stringify([['reports:read'], { plan: 'pro', seats: 3 }]),
          'permissions and metadata in the context',
          body,
        ),
    },
  },
  {
    name: 'policies: a key created without permissions has them all',
    request: withKey(ROUTES.permitted, {}),
    expect: {
      status: 200,
      check: (body) => assert(body.auth?.permissions === null, 'every permission', body),
    },
  },
  {
    name: 'policies: POST api-keys with policies answers them, and an invalid entry is 422 at its index',
    request: (w) =>
      post(
        API_KEYS('proj-1'),
        w.keys.d1,
        '{"ip_allowlist":["10.0.0.0/8","10.0.0.1/8"],"permissions":["reports:read"]}',
      ),
    expect: error(422, 'ip_invalid', ['body', 'ip_allowlist', '1']),
  },
  {
    name: 'policies: POST api-keys with an undeclared permission is 422 permission_unknown',
    request: (w) => post(API_KEYS('proj-1'), w.keys.d1, '{"permissions":["reports:read","admin:all"]}'),
    expect: error(422, 'permission_unknown', ['body', 'permissions', '1']),
  },
  {
    name: 'policies: POST api-keys with metadata that is not an object is 422 dict_type',
    request: (w) => post(API_KEYS('proj-1'), w.keys.d1, '{"metadata":["a"]}'),
    expect: error(422, 'dict_type', ['body', 'metadata']),
  },
  {
    name: 'policies: POST api-keys keeps the policies and answers them',
    request: (w) =>
      post(
        API_KEYS('proj-1'),
        w.keys.d1,
        '{"name":"reporting","ip_allowlist":["::ffff:10.0.0.0/104"],"permissions":["reports:read"],"metadata":{"customer":"c_42"}}',
      ),
    expect: {
      status: 201,
      check: async (body, w) => {
        assert(
          JSON.stringify([body.ip_allowlist, body.permissions, body.metadata]) ===
            JSON.stringify([['::ffff:10.0.0.0/104'], ['reports:read'], { customer: 'c_42' }]),
          'the policies answered',
          body,
        )
        const stored = await w.keyward.findKey(body.id)
        assert(stored?.permissions?.[0] === 'reports:read', 'the policies stored', body)
      },
    },
  },
  {
    name: 'policies: PATCH api-keys/{key_id} narrows the permissions and clears the allowlist',
    request: async (w) => {
      const { record } = await w.keyward.issueProjectKey('proj-1', { ipAllowlist: ['10.0.0.0/8'] })
      return patch(`${API_KEYS('proj-1')}/${record.id}`, w.keys.d1, '{"permissions":[],"ip_allowlist":null}')
    },
    expect: {
      status: 200,
      check: (body) =>
        assert(
          Array.isArray(body.permissions) && body.permissions.length === 0 && body.ip_allowlist === null,
          'permissions [] and no allowlist',
          body,
        ),
    },
  },
  ...lifetimeCases(),
]

// The maximum lifetime of API keys (`keyPolicies: { project: { maxLifetimeDays: 30 } }`), in a
// world that has it: at creation, at a change of expiry and at a roll.
function lifetimeCases(): HttpCase[] {
  const max = CONFORMANCE_MAX_LIFETIME_DAYS
  const inDays = (days: number) => new Date(CONFORMANCE_NOW.getTime() + days * 86_400_000).toISOString()
  const tooLong = `API keys live at most ${max} days here: give an earlier expiry.`
  // A key of proj-1 that lives longer than the maximum: issued before the maximum was set.
  const longLived = (w: ConformanceWorld) =>
    createKeyward({
      store: w.keyward.store,
      now: () => CONFORMANCE_NOW,
      permissions: CONFORMANCE_PERMISSIONS,
    })
      .issueProjectKey('proj-1', { expiresInDays: max * 2 })
      .then(({ record }) => record)
  return [
    {
      name: 'max lifetime: POST api-keys without an expiry gets the maximum',
      maxLifetime: true,
      request: (w) => post(API_KEYS('proj-1'), w.keys.d1, '{"name":"bounded"}'),
      expect: {
        status: 201,
        check: (body) => assert(body.expires_at === inDays(max), `expires in ${max} days`, body),
      },
    },
    {
      name: 'max lifetime: POST api-keys with expires_in_days beyond it is 422 lifetime_exceeded',
      maxLifetime: true,
      request: (w) => post(API_KEYS('proj-1'), w.keys.d1, `{"expires_in_days":${max + 1}}`),
      expect: error(422, 'lifetime_exceeded', ['body', 'expires_in_days'], tooLong),
    },
    {
      name: 'max lifetime: POST api-keys with expires_at beyond it is 422 lifetime_exceeded',
      maxLifetime: true,
      request: (w) => post(API_KEYS('proj-1'), w.keys.d1, `{"expires_at":"${inDays(max + 1)}"}`),
      expect: error(422, 'lifetime_exceeded', ['body', 'expires_at'], tooLong),
    },
    {
      name: 'max lifetime: PATCH api-keys/{key_id} with an expiry beyond it (from creation) is 422 lifetime_exceeded',
      maxLifetime: true,
      request: async (w) => {
        const { record } = await w.keyward.issueProjectKey('proj-1', { expiresInDays: 10 })
        return patch(`${API_KEYS('proj-1')}/${record.id}`, w.keys.d1, `{"expires_in_days":${max + 1}}`)
      },
      expect: error(422, 'lifetime_exceeded', ['body', 'expires_in_days'], tooLong),
    },
    {
      name: 'max lifetime: PATCH api-keys/{key_id} with expires_at null is 422 lifetime_exceeded',
      maxLifetime: true,
      request: async (w) => {
        const { record } = await w.keyward.issueProjectKey('proj-1', { expiresInDays: 10 })
        return patch(`${API_KEYS('proj-1')}/${record.id}`, w.keys.d1, '{"expires_at":null}')
      },
      expect: error(
        422,
        'lifetime_exceeded',
        ['body', 'expires_at'],
        'Keys of this owner type have a maximum lifetime here: give an expiry, not null.',
      ),
    },
    {
      name: 'max lifetime: PATCH api-keys/{key_id} within it sets the expiry',
      maxLifetime: true,
      request: async (w) => {
        const { record } = await w.keyward.issueProjectKey('proj-1', { expiresInDays: 10 })
        return patch(`${API_KEYS('proj-1')}/${record.id}`, w.keys.d1, `{"expires_in_days":${max}}`)
      },
      expect: {
        status: 200,
        check: (body) => assert(body.expires_at === inDays(max), `expires in ${max} days`, body),
      },
    },
    {
      name: 'max lifetime: POST api-keys/{key_id}/roll of a key that lives longer is 422 lifetime_exceeded',
      maxLifetime: true,
      request: async (w) => {
        const record = await longLived(w)
        return post(`${API_KEYS('proj-1')}/${record.id}/roll`, w.keys.d1, '{"grace_seconds":0}')
      },
      expect: error(422, 'lifetime_exceeded', ['path', 'key_id'], tooLong),
    },
    {
      name: 'max lifetime: POST api-keys/{key_id}/roll within it gives the new key the same lifetime',
      maxLifetime: true,
      request: async (w) => {
        const { record } = await w.keyward.issueProjectKey('proj-1', { expiresInDays: 10 })
        return post(`${API_KEYS('proj-1')}/${record.id}/roll`, w.keys.d1, '{"grace_seconds":0}')
      },
      expect: {
        status: 201,
        check: (body) => assert(body.expires_at === inDays(10), 'expires in 10 days', body),
      },
    },
  ]
}
