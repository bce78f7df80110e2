import { KEY_PATTERN } from '@keyward/core'
import { apiKey, developerKey, error, get, type HttpCase, type JsonBody, json, unknownKey } from './case.js'
import type { RawRequest } from './raw-client.js'
import { CONFORMANCE_NOW, type ConformanceWorld } from './world.js'

export const DEV_KEYS = '/api/v1/auth/developer-keys'
export const PROJECTS = '/api/v1/projects'
export const API_KEYS = (projectId: string) => `/api/v1/projects/${projectId}/api-keys`
const K_FIELDS = [
  'id',
  'key',
  'key_prefix',
  'display',
  'name',
  'developer_id',
  'active',
  'created_at',
  'expires_at',
  'last_used_at',
  'rotation_due',
  'revoked_reason',
]
export const CREATED_AT = CONFORMANCE_NOW.toISOString()

export function assert(condition: unknown, what: string, body: unknown): asserts condition {
  if (!condition) throw new Error(`${what}: ${JSON.stringify(body)}`)
}

/** Checks the `K` shape (with `owner` as `developer_id` or `project_id`) and that the key works. */
export async function checkCreated(
  body: JsonBody,
  w: ConformanceWorld,
  owner: [string, string],
  name: string | null,
) {
  const fields = K_FIELDS.map((f) => (f === 'developer_id' ? owner[0] : f))
  // An API key also shows its access policies and its credits.
  if (owner[0] === 'project_id') {
    fields.push(
      'ip_allowlist',
      'permissions',
      'metadata',
      'ratelimits',
      'remaining',
      'refill',
      'credits_low_at',
      'identity_id',
      'roles',
    )
  }
  assert(JSON.stringify(Object.keys(body)) === JSON.stringify(fields), 'K fields in order', body)
  assert(KEY_PATTERN.test(body.key), 'a well-formed key', body)
  assert(
    body.key_prefix === body.key.slice(0, 8) && body.display === `${body.key.slice(0, 8)}...`,
    'prefix',
    body,
  )
  assert(
    body[owner[0]] === owner[1] && body.name === name && body.active === true,
    'owner, name, active',
    body,
  )
  assert(body.created_at === CREATED_AT, 'created_at', body)
  const record = await w.keyward.findKey(body.id)
  assert(
    record !== null && record.keyPrefix === body.key_prefix && record.ownerId === owner[1],
    'stored',
    body,
  )
}

function checkListed(body: JsonBody, owner: [string, string], count: number) {
  assert(Array.isArray(body.keys) && body.keys.length === count, `${count} keys`, body)
  for (const key of body.keys) {
    assert(!('key' in key) && key[owner[0]] === owner[1] && key.display.endsWith('...'), 'L shape', body)
  }
}

export const post = (
  path: string,
  key: string,
  body?: string,
  headers: RawRequest['headers'] = [json],
): RawRequest => ({
  method: 'POST',
  path,
  headers: [developerKey(key), ...(headers ?? [])],
  ...(body === undefined ? {} : { body }),
})
export const patch = (path: string, key: string, body?: string): RawRequest => ({
  method: 'PATCH',
  path,
  headers: [developerKey(key), json],
  ...(body === undefined ? {} : { body }),
})
export const del = (path: string, key: string): RawRequest => ({
  method: 'DELETE',
  path,
  headers: [developerKey(key)],
})

/** A 422 of `POST /api/v1/auth/developer-keys` for a body. */
const invalidBody = (name: string, body: string, type: string, loc: readonly string[]): HttpCase => ({
  name: `POST developer-keys: ${name}`,
  request: (w) => post(DEV_KEYS, w.keys.d1, body),
  expect: error(422, type, loc),
})

/** The key-management endpoints: each one's success shape, and its validation and access errors. */
export const endpointCases: readonly HttpCase[] = [
  {
    name: 'POST developer-keys: 201 K with a name',
    request: (w) => post(DEV_KEYS, w.keys.d1, '{"name":"ci runner"}'),
    expect: {
      status: 201,
      check: (body, w) => checkCreated(body, w, ['developer_id', 'dev-1'], 'ci runner'),
    },
  },
  {
    name: 'POST developer-keys: 201 K without a body',
    request: (w) => post(DEV_KEYS, w.keys.d2, undefined, []),
    expect: { status: 201, check: (body, w) => checkCreated(body, w, ['developer_id', 'dev-2'], null) },
  },
  {
    name: 'POST developer-keys: a JSON body sent as text/plain: 415, nothing created',
    request: (w) => post(DEV_KEYS, w.keys.d2, '{"name":"plain"}', [['Content-Type', 'text/plain']]),
    expect: error(415, 'unsupported_media_type', ['header', 'content-type']),
  },
  {
    name: 'POST developer-keys: a JSON body without Content-Type',
    request: (w) => post(DEV_KEYS, w.keys.d2, '{"name":"bare"}', []),
    expect: { status: 201, check: (body, w) => checkCreated(body, w, ['developer_id', 'dev-2'], 'bare') },
  },
  {
    name: 'GET developer-keys: 200 {keys: [L], next_cursor: null}, newest first',
    request: (w) => get(DEV_KEYS, developerKey(w.keys.d2)),
    expect: {
      status: 200,
      check: (body) => {
        checkListed(body, ['developer_id', 'dev-2'], 3)
        // Created in the same instant (the world's clock): the greater id comes first.
        const ids = body.keys.map((k: { id: string }) => k.id)
        assert(ids.join() === [...ids].sort().reverse().join(), 'newest first, then by id', body)
        assert(body.next_cursor === null, 'the last page', body)
      },
    },
  },
  {
    name: 'DELETE developer-keys/{key_id}: 200 L, and the key is inactive in the store',
    request: async (w) => {
      const { record } = await w.keyward.issueDeveloperKey('dev-1', { name: 'to revoke' })
      return del(`${DEV_KEYS}/${record.id}`, w.keys.d1)
    },
    expect: {
      status: 200,
      check: async (body, w) => {
        assert(body.active === false && body.name === 'to revoke' && !('key' in body), 'L, inactive', body)
        assert((await w.keyward.findKey(body.id))?.active === false, 'inactive in the store', body)
      },
    },
  },
  {
    name: "DELETE developer-keys/{key_id}: another developer's key is not found",
    request: async (w) =>
      del(`${DEV_KEYS}/${(await w.keyward.issueDeveloperKey('dev-2')).record.id}`, w.keys.d1),
    expect: error(404, 'not_found', ['path', 'key_id'], 'Key not found.'),
  },
  {
    name: 'DELETE developer-keys/{key_id}: an unknown UUID',
    request: (w) => del(`${DEV_KEYS}/00000000-0000-4000-8000-000000000000`, w.keys.d1),
    expect: error(404, 'not_found', ['path', 'key_id']),
  },
  {
    name: 'DELETE developer-keys/{key_id}: not a UUID',
    request: (w) => del(`${DEV_KEYS}/not-a-uuid`, w.keys.d1),
    expect: error(404, 'not_found', ['path', 'key_id']),
  },
  {
    name: 'POST developer-keys: 409 at the limit of 10 active keys',
    request: async (w) => {
      let key = ''
      for (let i = 0; i < 10; i++) key = (await w.keyward.issueDeveloperKey('dev-limit')).key
      return post(DEV_KEYS, key, '{}')
    },
    expect: error(409, 'limit_exceeded', []),
  },
  {
    name: 'POST developer-keys: an API key instead of a developer key',
    request: (w) => ({ method: 'POST', path: DEV_KEYS, headers: [apiKey(w.keys.p1)] }),
    expect: error(401, 'key_missing', ['header', 'x-developer-key']),
  },
  {
    name: 'POST developer-keys: authentication comes before the body',
    request: () => ({
      method: 'POST',
      path: DEV_KEYS,
      headers: [developerKey(unknownKey()), json],
      body: '{',
    }),
    expect: error(401, 'key_invalid', ['header', 'x-developer-key']),
  },
  invalidBody('invalid JSON', '{"name": ', 'json_invalid', ['body']),
  invalidBody('not an object', '["ci"]', 'dict_type', ['body']),
  invalidBody('name not a string', '{"name": 7}', 'string_type', ['body', 'name']),
  invalidBody('name empty', '{"name": ""}', 'string_too_short', ['body', 'name']),
  invalidBody('name of 101 characters', JSON.stringify({ name: 'n'.repeat(101) }), 'string_too_long', [
    'body',
    'name',
  ]),
  {
    name: 'POST developer-keys: a body over 16 KiB (Content-Length)',
    request: (w) => post(DEV_KEYS, w.keys.d1, JSON.stringify({ name: 'x'.repeat(17 * 1024) })),
    expect: error(413, 'payload_too_large', ['body']),
  },
  {
    name: 'POST developer-keys: a chunked body over 16 KiB',
    request: (w) => ({
      ...post(DEV_KEYS, w.keys.d1, JSON.stringify({ name: 'x'.repeat(17 * 1024) })),
      chunked: true,
    }),
    expect: error(413, 'payload_too_large', ['body']),
  },
  {
    name: 'POST developer-keys: a body of 2 MiB, past the frameworks own limits',
    request: (w) => post(DEV_KEYS, w.keys.d1, JSON.stringify({ name: 'x'.repeat(2 * 1024 * 1024) })),
    expect: error(413, 'payload_too_large', ['body']),
  },
  {
    name: 'POST developer-keys: a chunked body of 2 MiB',
    request: (w) => ({
      ...post(DEV_KEYS, w.keys.d1, JSON.stringify({ name: 'x'.repeat(2 * 1024 * 1024) })),
      chunked: true,
    }),
    expect: error(413, 'payload_too_large', ['body']),
  },
  {
    name: 'POST projects: 201 the project and its default key',
    request: (w) => post(PROJECTS, w.keys.d1, '{"name":"Shop"}'),
    expect: {
      status: 201,
      check: async (body, w) => {
        assert(JSON.stringify(Object.keys(body)) === '["project","api_key"]', 'project and api_key', body)
        const { project } = body
        assert(
          project.name === 'Shop' && project.developer_id === 'dev-1' && project.created_at === CREATED_AT,
          'project',
          body,
        )
        await checkCreated(body.api_key, w, ['project_id', project.id], 'default')
        await w.keyward.authenticate(
          { projectKey: body.api_key.key },
          { scope: 'project', projectId: project.id },
        )
      },
    },
  },
  {
    name: 'POST projects: the host callback fails: a bare 500 that says nothing of it',
    request: (w) => post(PROJECTS, w.keys.d1, '{"name":"explode"}'),
    expect: error(500, 'internal_error', [], 'Internal error.'),
  },
  {
    name: 'POST projects: name missing',
    request: (w) => post(PROJECTS, w.keys.d1, '{}'),
    expect: error(422, 'missing', ['body', 'name']),
  },
  {
    name: 'POST projects: no body',
    request: (w) => post(PROJECTS, w.keys.d1, undefined, []),
    expect: error(422, 'missing', ['body']),
  },
  {
    name: 'POST project api-keys: 201 K for the owner',
    request: (w) => post(API_KEYS('proj-1'), w.keys.d1, '{"name":"mobile"}'),
    expect: { status: 201, check: (body, w) => checkCreated(body, w, ['project_id', 'proj-1'], 'mobile') },
  },
  {
    name: 'GET project api-keys: 200 {keys: [L]}, inactive ones included',
    request: (w) => get(API_KEYS('proj-2'), developerKey(w.keys.d2)),
    expect: { status: 200, check: (body) => checkListed(body, ['project_id', 'proj-2'], 1) },
  },
  {
    name: 'DELETE project api-keys/{key_id}: 200 L, inactive',
    request: async (w) =>
      del(`${API_KEYS('proj-2')}/${(await w.keyward.issueProjectKey('proj-2')).record.id}`, w.keys.d2),
    expect: {
      status: 200,
      check: (body) => assert(body.active === false && body.project_id === 'proj-2', 'L', body),
    },
  },
  {
    name: 'DELETE project api-keys/{key_id}: a key of another project is not found',
    request: async (w) =>
      del(`${API_KEYS('proj-1')}/${(await w.keyward.issueProjectKey('proj-2')).record.id}`, w.keys.d1),
    expect: error(404, 'not_found', ['path', 'key_id']),
  },
  {
    name: 'project api-keys: a developer who does not own the project',
    request: (w) => get(API_KEYS('proj-1'), developerKey(w.keys.d2)),
    expect: error(403, 'not_project_owner', ['header', 'x-developer-key']),
  },
  {
    name: 'project api-keys: no such project',
    request: (w) => post(API_KEYS('proj-404'), w.keys.d1, '{}'),
    expect: error(404, 'not_found', ['path', 'project_id']),
  },
]
