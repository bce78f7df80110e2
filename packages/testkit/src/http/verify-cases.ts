import { apiKey, developerKey, error, type HttpCase, type JsonBody, json, unknownKey } from './case.js'
import { assert } from './endpoint-cases.js'
import type { RawRequest } from './raw-client.js'
import type { ConformanceWorld } from './world.js'

/** The verification endpoint, `POST /api/v1/keys/verify`, mounted with the key routes. */
export const VERIFY = '/api/v1/keys/verify'

/** A verification of `body` (an object, sent as JSON) with the developer key `caller`. */
export const verify = (
  caller: string | undefined,
  body: unknown,
  headers: NonNullable<RawRequest['headers']> = [],
): RawRequest => ({
  method: 'POST',
  path: VERIFY,
  headers: [...(caller === undefined ? [] : [developerKey(caller)]), json, ...headers],
  body: JSON.stringify(body),
})

const FIELDS = [
  'valid',
  'code',
  'key_id',
  'owner',
  'permissions',
  'metadata',
  'identity',
  'remaining',
  'expires_at',
  'ratelimit',
]

/** The exact answer of a refused key: every field, in order, `null` but the verdict. Nothing about the key. */
export const refusedAnswer = (code: string) => ({
  ...Object.fromEntries(FIELDS.map((field) => [field, null])),
  valid: false,
  code,
})

/** A 200 whose body is the refusal of `code`, byte for byte the same whatever the key. */
const refused = (code: string) => ({
  status: 200,
  check: (body: JsonBody) =>
    assert(JSON.stringify(body) === JSON.stringify(refusedAnswer(code)), `refused as ${code}`, body),
})

/** A 200 that says the key is valid, with its fields in order and `expected` among them. */
const valid = (
  expected: (w: ConformanceWorld) => Promise<Record<string, unknown>> | Record<string, unknown>,
) => ({
  status: 200,
  check: async (body: JsonBody, w: ConformanceWorld) => {
    assert(JSON.stringify(Object.keys(body)) === JSON.stringify(FIELDS), 'the fields, in order', body)
    assert(body.valid === true && body.code === null, 'valid', body)
    for (const [field, value] of Object.entries(await expected(w))) {
      assert(JSON.stringify(body[field]) === JSON.stringify(value), field, body)
    }
  },
})

// The servers listen on 127.0.0.1; the caller names its client's address in the body.
const LOOPBACK = ['127.0.0.0/8', '::1']
const OUTSIDE = '198.51.100.7'

/** A new API key of `projectId` with these policies, verified by `caller` with `body`'s other fields. */
const withKey =
  (
    projectId: string,
    policies: Parameters<ConformanceWorld['keyward']['issueProjectKey']>[1],
    body: Record<string, unknown>,
    caller: (w: ConformanceWorld) => string = (w) => w.keys.d1,
  ) =>
  async (w: ConformanceWorld) => {
    const { key } = await w.keyward.issueProjectKey(projectId, policies)
    return verify(caller(w), { key, ...body })
  }

/** The verification service: who may call it, and the guard's refusals as verdicts, on every adapter. */
export const verifyCases: readonly HttpCase[] = [
  {
    name: 'verify: without a credential is 401 key_missing (the endpoint needs a developer key)',
    request: (w) => verify(undefined, { key: w.keys.p1 }),
    expect: error(401, 'key_missing', ['header', 'x-developer-key']),
  },
  {
    name: 'verify: the key being verified is no credential: sent as X-API-Key alone it is 401 key_missing',
    request: (w) => verify(undefined, { key: w.keys.p1 }, [apiKey(w.keys.p1)]),
    expect: error(401, 'key_missing', ['header', 'x-developer-key']),
  },
  {
    name: 'verify: an unknown developer key is 401 key_invalid',
    request: (w) => verify(unknownKey(), { key: w.keys.p1 }),
    expect: error(401, 'key_invalid', ['header', 'x-developer-key']),
  },
  {
    name: "verify: a key of the caller's project is valid, with its id, owner and policies",
    request: (w) => verify(w.keys.d1, { key: w.keys.p1 }),
    expect: valid(async (w) => {
      const [record] = (await w.keyward.listKeys({ type: 'project', id: 'proj-1' })).filter(
        (r) => r.name === 'web',
      )
      return {
        key_id: record!.id,
        owner: { type: 'project', id: 'proj-1' },
        permissions: null,
        metadata: null,
        identity: null,
        remaining: null,
        expires_at: null,
        ratelimit: null,
      }
    }),
  },
  {
    name: 'verify: with the project it belongs to, a key is valid',
    request: (w) => verify(w.keys.d1, { key: w.keys.p1, project_id: 'proj-1', cost: 0 }),
    expect: valid(() => ({ owner: { type: 'project', id: 'proj-1' } })),
  },
  {
    name: 'verify: an unknown key is key_invalid',
    request: (w) => verify(w.keys.d1, { key: unknownKey() }),
    expect: refused('key_invalid'),
  },
  {
    name: "verify: a key of another developer's project answers exactly as an unknown key",
    request: (w) => verify(w.keys.d1, { key: w.keys.p2 }),
    expect: refused('key_invalid'),
  },
  {
    name: "verify: another developer's key says nothing of its project, allowlist or permissions",
    request: withKey(
      'proj-2',
      { ipAllowlist: ['203.0.113.0/24'], permissions: ['reports:write'] },
      { project_id: 'proj-1', permissions: ['reports:read'], ip: OUTSIDE },
    ),
    expect: refused('key_invalid'),
  },
  {
    name: 'verify: a deactivated key is key_invalid',
    request: (w) => verify(w.keys.d1, { key: w.inactiveKey }),
    expect: refused('key_invalid'),
  },
  {
    name: 'verify: a key of the wrong length is key_malformed',
    request: (w) => verify(w.keys.d1, { key: w.keys.p1.slice(0, 34) }),
    expect: refused('key_malformed'),
  },
  {
    name: 'verify: an empty key is key_missing',
    request: (w) => verify(w.keys.d1, { key: '' }),
    expect: refused('key_missing'),
  },
  {
    name: 'verify: a developer key is key_wrong_type, as in X-API-Key',
    request: (w) => verify(w.keys.d1, { key: w.keys.d1 }),
    expect: refused('key_wrong_type'),
  },
  {
    name: 'verify: a key of another project than project_id is project_mismatch',
    request: (w) => verify(w.keys.d1, { key: w.keys.p1, project_id: 'proj-9' }),
    expect: refused('project_mismatch'),
  },
  {
    name: 'verify: a key with an IP allowlist and no ip is ip_not_allowed (an unknown address)',
    request: withKey('proj-1', { ipAllowlist: LOOPBACK }, {}),
    expect: refused('ip_not_allowed'),
  },
  {
    name: "verify: the ip given, not the caller's address, is checked against the allowlist",
    request: withKey('proj-1', { ipAllowlist: LOOPBACK }, { ip: OUTSIDE }),
    expect: refused('ip_not_allowed'),
  },
  {
    name: 'verify: a key used from its allowlist is valid',
    request: withKey('proj-1', { ipAllowlist: ['198.51.100.0/24'] }, { ip: OUTSIDE }),
    expect: valid(() => ({ owner: { type: 'project', id: 'proj-1' } })),
  },
  {
    name: 'verify: a key without a permission asked for is permission_denied',
    request: withKey('proj-1', { permissions: ['reports:write'] }, { permissions: ['reports:read'] }),
    expect: refused('permission_denied'),
  },
  {
    name: 'verify: a key with the permissions is valid, with its permissions and metadata',
    request: withKey(
      'proj-1',
      { permissions: ['reports:read'], metadata: { plan: 'pro' }, expiresInDays: 30 },
      { permissions: ['reports:read'] },
    ),
    expect: valid(() => ({
      permissions: ['reports:read'],
      metadata: { plan: 'pro' },
      expires_at: '2025-07-01T12:00:00.000Z',
    })),
  },
  {
    name: 'verify: a permission the server does not declare is 422 permission_unknown',
    request: (w) => verify(w.keys.d1, { key: w.keys.p1, permissions: ['reports:read', 'admin:all'] }),
    expect: error(422, 'permission_unknown', ['body', 'permissions', '1']),
  },
  {
    name: 'verify: an ip that is no address is 422 ip_invalid',
    request: (w) => verify(w.keys.d1, { key: w.keys.p1, ip: '10.0.0.0/8' }),
    expect: error(422, 'ip_invalid', ['body', 'ip']),
  },
  {
    name: 'verify: a cost over 1000 is 422 less_than_equal',
    request: (w) => verify(w.keys.d1, { key: w.keys.p1, cost: 1001 }),
    expect: error(422, 'less_than_equal', ['body', 'cost']),
  },
  {
    name: 'verify: a body without the key is 422 missing',
    request: (w) => verify(w.keys.d1, { project_id: 'proj-1' }),
    expect: error(422, 'missing', ['body', 'key']),
  },
  {
    name: 'verify: a key that is not a string is 422 string_type',
    request: (w) => verify(w.keys.d1, { key: 42 }),
    expect: error(422, 'string_type', ['body', 'key']),
  },
  {
    name: 'verify: a store outage is 503 store_unavailable, never a verdict',
    request: (w) => {
      w.setStoreDown(true)
      return verify(w.keys.d1, { key: w.keys.p1 })
    },
    expect: error(503, 'store_unavailable'),
  },
]
