import { developerKey, error, get, type HttpCase } from './case.js'
import { API_KEYS, assert, DEV_KEYS, del, PROJECTS, post } from './endpoint-cases.js'
import { verify } from './verify-cases.js'
import type { ConformanceWorld } from './world.js'

/** An `extra_forbidden` expectation at `["query", name]`, and what must be left as it was. */
const extra = (name: string, msg: string, afterwards?: (world: ConformanceWorld) => Promise<void>) => ({
  ...error(422, 'extra_forbidden', ['query', name], msg),
  ...(afterwards ? { afterwards } : {}),
})

const takesNone = (name: string) => `Unknown query parameter \`${name}\`: this takes no query parameters.`
const meant = (name: string, known: string) =>
  `Unknown query parameter \`${name}\`: did you mean \`${known}\`?`

// The key a case acts on, to check it after.
const keys = new WeakMap<ConformanceWorld, string>()

/**
 * Query strings fail closed, as bodies do: a parameter the route does not read is 422
 * `extra_forbidden` at `["query", name]`, naming the nearest one it reads, after the credential is
 * checked and before anything else, and nothing changes.
 */
export const strictQueryCases: readonly HttpCase[] = [
  {
    name: 'strict queries: a misspelt filter of GET api-keys is 422 extra_forbidden, naming the one it meant',
    request: (w) => get(`${API_KEYS('proj-1')}?staus=active`, developerKey(w.keys.d1)),
    expect: extra('staus', meant('staus', 'status')),
  },
  {
    name: 'strict queries: GET developer-keys names the nearest parameter, beside a valid one',
    request: (w) => get(`${DEV_KEYS}?limit=5&qq=laptop`, developerKey(w.keys.d1)),
    expect: extra('qq', meant('qq', 'q')),
  },
  {
    name: 'strict queries: GET projects refuses a typo of its page size',
    request: (w) => get(`${PROJECTS}?limt=1`, developerKey(w.keys.d1)),
    expect: extra('limt', meant('limt', 'limit')),
  },
  {
    name: "strict queries: a project's usage refuses a typo of its granularity",
    request: (w) => get('/api/v1/projects/proj-1/usage?granularty=day', developerKey(w.keys.d1)),
    expect: extra('granularty', meant('granularty', 'granularity')),
  },
  {
    name: 'strict queries: the audit log refuses a typo of its action filter',
    request: (w) => get('/api/v1/audit?actoin=key.issued', developerKey(w.keys.d1)),
    expect: extra('actoin', meant('actoin', 'action')),
  },
  {
    name: 'strict queries: a parameter near no known one lists those the listing reads',
    request: (w) => get(`${API_KEYS('proj-1')}?colour=red`, developerKey(w.keys.d1)),
    expect: extra(
      'colour',
      'Unknown query parameter `colour`: expected one of `limit`, `cursor`, `q`, `status`.',
    ),
  },
  {
    name: 'strict queries: every parameter a listing reads is taken, a name given encoded too',
    request: (w) =>
      get(`${API_KEYS('proj-1')}?limit=5&cursor=&q=web&st%61tus=active`, developerKey(w.keys.d1)),
    expect: {
      status: 200,
      check: (body) =>
        assert(
          body.keys.length > 0 &&
            body.keys.every(
              (key: { name: string; active: boolean }) => key.name.includes('web') && key.active,
            ),
          'active keys named web only',
          body,
        ),
    },
  },
  {
    name: 'strict queries: without a credential, a bad query is still 401 key_missing (the credential first)',
    request: () => get(`${API_KEYS('proj-1')}?staus=active`),
    expect: error(401, 'key_missing', ['header', 'x-developer-key']),
  },
  {
    name: "strict queries: another developer's project with a bad query is still 403 not_project_owner",
    request: (w) => get(`${API_KEYS('proj-1')}?staus=active`, developerKey(w.keys.d2)),
    expect: error(403, 'not_project_owner', ['header', 'x-developer-key']),
  },
  {
    name: 'strict queries: DELETE api-keys/{key_id} takes no query, and the key stays active',
    request: async (w) => {
      const { record } = await w.keyward.issueProjectKey('proj-1', { name: 'kept' })
      keys.set(w, record.id)
      return del(`${API_KEYS('proj-1')}/${record.id}?force=true`, w.keys.d1)
    },
    expect: extra('force', takesNone('force'), async (w) => {
      const record = await w.keyward.findKey(keys.get(w)!)
      assert(record?.active === true, 'still active', record)
    }),
  },
  {
    name: 'strict queries: the query is refused before the path is read (a key id that is none)',
    request: (w) => del(`${API_KEYS('proj-1')}/not-a-key?force=true`, w.keys.d1),
    expect: extra('force', takesNone('force')),
  },
  {
    name: 'strict queries: POST api-keys with a query it does not take creates no key, before the body is read',
    request: (w) => post(`${API_KEYS('proj-1')}?dry_run=1`, w.keys.d1, '{"nmae":"dry"}'),
    expect: extra('dry_run', takesNone('dry_run'), async (w) => {
      const records = await w.keyward.listKeys({ type: 'project', id: 'proj-1' })
      assert(!records.some((record) => record.name === 'dry'), 'no key named dry', records)
    }),
  },
  {
    name: 'strict queries: POST keys/verify takes no query',
    request: (w) => ({ ...verify(w.keys.d1, { key: w.keys.p1 }), path: '/api/v1/keys/verify?debug=1' }),
    expect: extra('debug', takesNone('debug')),
  },
  {
    name: 'strict queries: a key sent in the query beside the credential is refused, never read or shown',
    request: (w) => get(`${DEV_KEYS}?api_key=${w.keys.p1}`, developerKey(w.keys.d1)),
    expect: extra(
      'api_key',
      'Unknown query parameter `api_key`: expected one of `limit`, `cursor`, `q`, `status`.',
    ),
  },
  {
    name: 'strict queries: a parameter named like a key is refused at the query, and its name is not shown',
    request: (w) => get(`${DEV_KEYS}?${w.keys.p1}`, developerKey(w.keys.d1)),
    expect: error(
      422,
      'extra_forbidden',
      ['query'],
      'Unknown query parameter whose name is shaped like a key (not shown). Never send a key as a query parameter name.',
    ),
  },
]
