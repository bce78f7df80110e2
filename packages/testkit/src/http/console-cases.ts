import { encodeCursor } from '@keyward/core'
import { developerKey, error, get, type HttpCase } from './case.js'
import { API_KEYS, assert, DEV_KEYS, del, PROJECTS, patch, post } from './endpoint-cases.js'
import { CONFORMANCE_NOW, type ConformanceWorld } from './world.js'

/** dev-1's projects in the listing's order: newest first, then the greater id. */
function projectsOf(w: ConformanceWorld, developerId: string) {
  const position = (p: { createdAt: Date | string; id: string }) =>
    `${new Date(p.createdAt).toISOString()} ${p.id}`
  return [...w.projects.values()]
    .filter((p) => p.developerId === developerId)
    .sort((a, b) => (position(a) < position(b) ? 1 : -1))
}

const inDays = (days: number) => new Date(CONFORMANCE_NOW.getTime() + days * 86_400_000).toISOString()

/** A 422 of `PATCH` of a key for a body that sets no valid expiry. */
const invalidExpiry = (what: string, body: string, type: string, field: string): HttpCase => ({
  name: `PATCH project api-keys/{key_id}: ${what} is 422 ${type}`,
  request: async (w) =>
    patch(`${API_KEYS('proj-1')}/${(await w.keyward.issueProjectKey('proj-1')).record.id}`, w.keys.d1, body),
  expect: error(422, type, ['body', field]),
})

/** What the administrative console needs: paged listings, the caller's projects, a key's expiry. */
export const consoleCases: readonly HttpCase[] = [
  {
    name: "GET projects: 200 the caller's projects, newest first, next_cursor null on the last page",
    request: (w) => get(PROJECTS, developerKey(w.keys.d1)),
    expect: {
      status: 200,
      check: (body, w) => {
        const expected = projectsOf(w, 'dev-1').map((p) => p.id)
        assert(JSON.stringify(Object.keys(body)) === '["projects","next_cursor"]', 'the page shape', body)
        assert(
          body.projects.map((p: { id: string }) => p.id).join() === expected.join(),
          'newest first',
          body,
        )
        assert(body.next_cursor === null && body.projects[0].developer_id === 'dev-1', 'one page', body)
      },
    },
  },
  {
    name: 'GET projects?limit=1&cursor=: the page after the cursor',
    request: (w) => {
      const [first] = projectsOf(w, 'dev-1')
      return get(`${PROJECTS}?limit=1&cursor=${encodeCursor(first!)}`, developerKey(w.keys.d1))
    },
    expect: {
      status: 200,
      check: (body, w) => {
        const second = projectsOf(w, 'dev-1')[1]!
        assert(body.projects.length === 1 && body.projects[0].id === second.id, 'the second project', body)
        assert(typeof body.next_cursor === 'string' || projectsOf(w, 'dev-1').length === 2, 'a cursor', body)
      },
    },
  },
  {
    name: 'GET projects?limit=0: 422 at ["query", "limit"]',
    request: (w) => get(`${PROJECTS}?limit=0`, developerKey(w.keys.d1)),
    expect: error(422, 'greater_than_equal', ['query', 'limit']),
  },
  {
    name: 'GET projects?cursor=garbage: 422 at ["query", "cursor"]',
    request: (w) => get(`${PROJECTS}?cursor=not-one-of-ours`, developerKey(w.keys.d1)),
    expect: error(422, 'value_error', ['query', 'cursor']),
  },
  {
    name: 'GET projects: a project key is not a developer key',
    request: (w) => get(PROJECTS, ['X-Developer-Key', w.keys.p1]),
    expect: error(401, 'key_wrong_type', ['header', 'x-developer-key']),
  },
  {
    name: 'GET developer-keys?limit=1: one key and the cursor of the next page',
    request: async (w) => {
      const { key } = await w.keyward.issueDeveloperKey('dev-page', { name: 'page' })
      await w.keyward.issueDeveloperKey('dev-page', { name: 'page' })
      return get(`${DEV_KEYS}?limit=1`, developerKey(key))
    },
    expect: {
      status: 200,
      check: (body) =>
        assert(body.keys.length === 1 && typeof body.next_cursor === 'string', 'one key, a cursor', body),
    },
  },
  {
    name: 'GET project api-keys?limit=201: 422 at ["query", "limit"]',
    request: (w) => get(`${API_KEYS('proj-1')}?limit=201`, developerKey(w.keys.d1)),
    expect: error(422, 'less_than_equal', ['query', 'limit']),
  },
  {
    name: 'GET project api-keys?cursor=: a tampered cursor is 422',
    request: (w) => get(`${API_KEYS('proj-1')}?cursor=WyIyMDI1IiwieCJd`, developerKey(w.keys.d1)),
    expect: error(422, 'value_error', ['query', 'cursor']),
  },
  {
    name: 'PATCH project api-keys/{key_id}: 200 L with the new expiry',
    request: async (w) => {
      const { record } = await w.keyward.issueProjectKey('proj-1', { name: 'expiring' })
      return patch(`${API_KEYS('proj-1')}/${record.id}`, w.keys.d1, '{"expires_in_days":30}')
    },
    expect: {
      status: 200,
      check: async (body, w) => {
        assert(body.expires_at === inDays(30) && !('key' in body), 'L with expires_at', body)
        const stored = await w.keyward.findKey(body.id)
        assert(stored?.expiresAt?.toISOString() === inDays(30), 'stored', body)
      },
    },
  },
  {
    name: 'PATCH developer-keys/{key_id}: expires_at null, never',
    request: async (w) => {
      const { record } = await w.keyward.issueDeveloperKey('dev-1', { expiresInDays: 1 })
      return patch(`${DEV_KEYS}/${record.id}`, w.keys.d1, '{"expires_at":null}')
    },
    expect: { status: 200, check: (body) => assert(body.expires_at === null, 'never expires', body) },
  },
  {
    name: "PATCH developer-keys/{key_id}: a key in a roll's grace window is 409 key_rolled",
    request: async (w) => {
      const { record } = await w.keyward.issueDeveloperKey('dev-1')
      await w.keyward.rollKey(record.id)
      await w.keyward.deactivateKey((await w.keyward.listKeys({ type: 'developer', id: 'dev-1' })).at(-1)!.id)
      return patch(`${DEV_KEYS}/${record.id}`, w.keys.d1, '{"expires_in_days":5}')
    },
    expect: error(409, 'key_rolled', ['path', 'key_id']),
  },
  invalidExpiry('no field', '{}', 'missing', 'expires_at'),
  invalidExpiry(
    'an expiry in the past',
    '{"expires_at":"2020-01-01T00:00:00Z"}',
    'datetime_future',
    'expires_at',
  ),
  invalidExpiry('both fields', '{"expires_at":null,"expires_in_days":2}', 'value_error', 'expires_in_days'),
  {
    name: "PATCH project api-keys/{key_id}: another project's key is not found",
    request: async (w) =>
      patch(
        `${API_KEYS('proj-1')}/${(await w.keyward.issueProjectKey('proj-2')).record.id}`,
        w.keys.d1,
        '{"expires_in_days":1}',
      ),
    expect: error(404, 'not_found', ['path', 'key_id']),
  },
  {
    name: 'DELETE then GET project api-keys: a revoked key reads revoked_reason "revoked"',
    request: async (w) => {
      const { record } = await w.keyward.issueProjectKey('proj-2', { name: 'revoked' })
      return del(`${API_KEYS('proj-2')}/${record.id}`, w.keys.d2)
    },
    expect: { status: 200, check: (body) => assert(body.revoked_reason === 'revoked', 'revoked', body) },
  },
  {
    name: 'GET project api-keys?q=&status=: the keys whose name contains q, of that status, newest first',
    request: async (w) => {
      const searched = await w.keyward.issueProjectKey('proj-1', { name: 'Search Me' })
      await w.keyward.issueProjectKey('proj-1', { name: 'search me too' })
      await w.keyward.deactivateKey(searched.record.id)
      return get(`${API_KEYS('proj-1')}?q=SEARCH%20me&status=active`, developerKey(w.keys.d1))
    },
    expect: {
      status: 200,
      check: (body) => {
        const names = (body.keys as { name: string }[]).map((key) => key.name)
        assert(names.length === 1 && names[0] === 'search me too', 'the active match only', body)
      },
    },
  },
  {
    name: 'GET developer-keys?q=: a key found by the display form of its prefix',
    request: async (w) => {
      const { record } = await w.keyward.issueDeveloperKey('dev-1', { name: 'by prefix' })
      return get(`${DEV_KEYS}?q=${encodeURIComponent(`${record.keyPrefix}...`)}`, developerKey(w.keys.d1))
    },
    expect: {
      status: 200,
      check: (body) => {
        const names = (body.keys as { name: string }[]).map((key) => key.name)
        assert(names.includes('by prefix'), 'the key of that prefix', body)
      },
    },
  },
  {
    name: 'GET project api-keys?status=lost: 422 at ["query", "status"]',
    request: (w) => get(`${API_KEYS('proj-1')}?status=lost`, developerKey(w.keys.d1)),
    expect: error(422, 'value_error', ['query', 'status']),
  },
  {
    name: 'GET developer-keys?q= of 101 characters: 422 string_too_long at ["query", "q"]',
    request: (w) => get(`${DEV_KEYS}?q=${'x'.repeat(101)}`, developerKey(w.keys.d1)),
    expect: error(422, 'string_too_long', ['query', 'q']),
  },
  {
    name: 'GET project api-keys?q= holding a key: 422 key_shaped_value at ["query", "q"], the key not echoed',
    request: (w) => get(`${API_KEYS('proj-1')}?q=${w.keys.p1}`, developerKey(w.keys.d1)),
    expect: error(422, 'key_shaped_value', ['query', 'q']),
  },
  {
    name: 'GET project api-keys/{key_id}: 200 L of one key, as listings show it',
    request: async (w) => {
      const { record } = await w.keyward.issueProjectKey('proj-1', { name: 'one' })
      return get(`${API_KEYS('proj-1')}/${record.id}`, developerKey(w.keys.d1))
    },
    expect: {
      status: 200,
      check: async (body, w) => {
        assert(body.name === 'one' && body.project_id === 'proj-1' && !('key' in body), 'L of the key', body)
        const stored = await w.keyward.findKey(body.id)
        assert(stored?.keyPrefix === body.key_prefix, 'the stored key', body)
      },
    },
  },
  {
    name: "GET developer-keys/{key_id}: another developer's key is not found",
    request: async (w) =>
      get(`${DEV_KEYS}/${(await w.keyward.issueDeveloperKey('dev-2')).record.id}`, developerKey(w.keys.d1)),
    expect: error(404, 'not_found', ['path', 'key_id']),
  },
  {
    name: "GET project api-keys/{key_id}: another project's key is not found",
    request: async (w) =>
      get(
        `${API_KEYS('proj-1')}/${(await w.keyward.issueProjectKey('proj-2')).record.id}`,
        developerKey(w.keys.d1),
      ),
    expect: error(404, 'not_found', ['path', 'key_id']),
  },
  {
    name: 'POST project api-keys: a new key reads revoked_reason null',
    request: (w) => post(API_KEYS('proj-2'), w.keys.d2, '{"name":"fresh"}'),
    expect: { status: 201, check: (body) => assert(body.revoked_reason === null, 'null', body) },
  },
]
