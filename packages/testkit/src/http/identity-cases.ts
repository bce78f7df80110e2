import { decodeCursor } from '@keyward/core'
import { apiKey, developerKey, error, get, type HttpCase } from './case.js'
import { API_KEYS, assert, CREATED_AT, del, patch, post } from './endpoint-cases.js'
import { CONFORMANCE_NOW, type ConformanceWorld } from './world.js'

/** The identities of a project. */
export const IDENTITIES = (projectId: string) => `/api/v1/projects/${projectId}/identities`

const PER_SECOND = { name: 'requests', limit: 10, duration: 1000 }
const IDENTITY_FIELDS = [
  'id',
  'project_id',
  'external_id',
  'metadata',
  'ratelimits',
  'remaining',
  'refill',
  'credits_low_at',
  'roles',
  'created_at',
  'updated_at',
]

// A real key's shape, sent where it does not belong (never one the world issued).
const KEY_SHAPED = `ak_${'Zq9x'.repeat(8)}`

// What a case made before its request, kept to check the world after the answer.
const made = new WeakMap<ConformanceWorld, { identityId: string; keyId: string; key: string }>()

/** An identity of proj-1 with one API key, kept in `made`. */
async function identityWithKey(w: ConformanceWorld, externalId: string) {
  const identity = await w.keyward.createIdentity('proj-1', { externalId })
  const { record, key } = await w.keyward.issueProjectKey('proj-1', { identityId: identity.id })
  made.set(w, { identityId: identity.id, keyId: record.id, key })
  return made.get(w)!
}

const identityNamed = async (w: ConformanceWorld, projectId: string, externalId: string) =>
  w.keyward.findIdentityByExternalId(projectId, externalId)

const noIdentity = (externalId: string) => async (w: ConformanceWorld) =>
  assert((await identityNamed(w, 'proj-1', externalId)) === null, `no identity ${externalId}`, externalId)

const authenticate = (w: ConformanceWorld, key: string) =>
  w.keyward.authenticate({ projectKey: key }, { scope: 'project', projectId: 'proj-1' })

/**
 * Identities on every adapter: create, a duplicate `external_id`, the lookup by it, pages, a
 * change, deletion (refused while keys belong to it, or revoking them), keys joining by creation
 * and by `PATCH`, another project's identity, and bad or unknown fields, which change nothing.
 */
export const identityCases: readonly HttpCase[] = [
  {
    name: 'identities: POST creates an identity, 201 in its shape',
    request: (w) =>
      post(
        IDENTITIES('proj-1'),
        w.keys.d1,
        JSON.stringify({
          external_id: 'customer_created',
          metadata: { plan: 'pro' },
          ratelimits: [PER_SECOND],
          remaining: 100,
          refill: { amount: 100, interval: 'daily' },
        }),
      ),
    expect: {
      status: 201,
      check: async (body, w) => {
        assert(JSON.stringify(Object.keys(body)) === JSON.stringify(IDENTITY_FIELDS), 'fields in order', body)
        assert(
          body.project_id === 'proj-1' &&
            body.external_id === 'customer_created' &&
            body.metadata?.plan === 'pro' &&
            JSON.stringify(body.ratelimits) === JSON.stringify([PER_SECOND]) &&
            body.remaining === 100 &&
            body.refill?.interval === 'daily' &&
            body.created_at === CREATED_AT &&
            body.updated_at === CREATED_AT,
          'the identity as given',
          body,
        )
        assert((await w.keyward.findIdentity(body.id))?.externalId === 'customer_created', 'stored', body)
      },
    },
  },
  {
    name: 'identities: a second identity with the same external_id is 409 identity_exists, and one remains',
    request: async (w) => {
      await w.keyward.createIdentity('proj-1', { externalId: 'customer_twice' })
      return post(IDENTITIES('proj-1'), w.keys.d1, '{"external_id":"customer_twice","metadata":{"a":1}}')
    },
    expect: {
      ...error(
        409,
        'identity_exists',
        ['body', 'external_id'],
        'The project has an identity with this external_id already.',
      ),
      afterwards: async (w) => {
        const kept = await identityNamed(w, 'proj-1', 'customer_twice')
        assert(kept !== null && kept.metadata === null, 'the first one, unchanged', kept)
      },
    },
  },
  {
    name: 'identities: GET ?external_id= finds the identity of that id, alone on its page',
    request: async (w) => {
      await w.keyward.createIdentity('proj-1', { externalId: 'customer_lookup' })
      return get(`${IDENTITIES('proj-1')}?external_id=customer_lookup`, developerKey(w.keys.d1))
    },
    expect: {
      status: 200,
      check: (body) =>
        assert(
          body.identities.length === 1 &&
            body.identities[0].external_id === 'customer_lookup' &&
            body.next_cursor === null,
          'one identity',
          body,
        ),
    },
  },
  {
    name: 'identities: GET ?external_id= of none is an empty page',
    request: (w) => get(`${IDENTITIES('proj-1')}?external_id=customer_nobody`, developerKey(w.keys.d1)),
    expect: {
      status: 200,
      check: (body) => assert(JSON.stringify(body) === '{"identities":[],"next_cursor":null}', 'empty', body),
    },
  },
  {
    name: 'identities: GET pages with limit and a cursor, newest first',
    request: async (w) => {
      // Newer than any other identity of proj-2, a day apart: the same first page on every adapter.
      for (const [externalId, days] of [
        ['customer_page_older', 1],
        ['customer_page_newer', 2],
      ] as const) {
        const at = new Date(CONFORMANCE_NOW.getTime() + days * 86_400_000)
        await w.keyward.store.identities!.insertIdentity({
          id: crypto.randomUUID(),
          projectId: 'proj-2',
          externalId,
          metadata: null,
          ratelimits: [],
          remaining: null,
          refill: null,
          refilledAt: null,
          createdAt: at,
          updatedAt: at,
        })
      }
      return get(`${IDENTITIES('proj-2')}?limit=1`, developerKey(w.keys.d2))
    },
    expect: {
      status: 200,
      check: (body) => {
        const [first] = body.identities
        assert(
          body.identities.length === 1 && first.external_id === 'customer_page_newer',
          'the newest',
          body,
        )
        const after = decodeCursor(body.next_cursor)
        assert(after.id === first.id, 'a cursor after it', body)
      },
    },
  },
  {
    name: 'identities: PATCH changes metadata and rate limits',
    request: async (w) => {
      const identity = await w.keyward.createIdentity('proj-1', {
        externalId: 'customer_patched',
        metadata: { plan: 'free' },
      })
      return patch(
        `${IDENTITIES('proj-1')}/${identity.id}`,
        w.keys.d1,
        JSON.stringify({ metadata: { plan: 'pro' }, ratelimits: [PER_SECOND] }),
      )
    },
    expect: {
      status: 200,
      check: (body) =>
        assert(
          body.metadata?.plan === 'pro' && JSON.stringify(body.ratelimits) === JSON.stringify([PER_SECOND]),
          'changed',
          body,
        ),
    },
  },
  {
    name: 'identities: DELETE of an identity with keys is 409 identity_has_keys, and both stay',
    request: async (w) => {
      const { identityId } = await identityWithKey(w, 'customer_kept')
      return del(`${IDENTITIES('proj-1')}/${identityId}`, w.keys.d1)
    },
    expect: {
      ...error(409, 'identity_has_keys', ['path', 'identity_id']),
      afterwards: async (w) => {
        const { identityId, keyId } = made.get(w)!
        assert((await w.keyward.findIdentity(identityId)) !== null, 'the identity stays', identityId)
        assert((await w.keyward.findKey(keyId))?.active === true, 'its key stays active', keyId)
      },
    },
  },
  {
    name: 'identities: DELETE ?revoke_keys=true revokes its keys with it, and they fail verification',
    request: async (w) => {
      const { identityId, key } = await identityWithKey(w, 'customer_revoked')
      await authenticate(w, key)
      return del(`${IDENTITIES('proj-1')}/${identityId}?revoke_keys=true`, w.keys.d1)
    },
    expect: {
      status: 200,
      check: async (body, w) => {
        const { identityId, keyId, key } = made.get(w)!
        assert(
          body.id === identityId &&
            body.deleted === true &&
            JSON.stringify(body.revoked_keys) === JSON.stringify([keyId]),
          'deleted with its key',
          body,
        )
        assert((await w.keyward.findIdentity(identityId)) === null, 'gone', identityId)
        const refused = await authenticate(w, key).then(
          () => null,
          (e: { type?: string }) => e.type,
        )
        assert(refused === 'key_invalid', 'the key fails verification', refused)
      },
    },
  },
  {
    name: "identities: PATCH api-keys/{key_id} with identity_id joins an identity of the key's project",
    request: async (w) => {
      const identity = await w.keyward.createIdentity('proj-1', { externalId: 'customer_joined' })
      const { record } = await w.keyward.issueProjectKey('proj-1', { name: 'joins' })
      made.set(w, { identityId: identity.id, keyId: record.id, key: '' })
      return patch(
        `${API_KEYS('proj-1')}/${record.id}`,
        w.keys.d1,
        JSON.stringify({ identity_id: identity.id }),
      )
    },
    expect: {
      status: 200,
      check: async (body, w) => {
        const { identityId, keyId } = made.get(w)!
        assert(body.id === keyId && body.identity_id === identityId, 'joined', body)
        assert((await w.keyward.findKey(keyId))?.identityId === identityId, 'stored', body)
      },
    },
  },
  {
    name: "identities: PATCH api-keys/{key_id} with another project's identity_id is 422, and nothing changes",
    request: async (w) => {
      const theirs = await w.keyward.createIdentity('proj-2', { externalId: 'customer_theirs' })
      const { record } = await w.keyward.issueProjectKey('proj-1', { name: 'stays' })
      made.set(w, { identityId: theirs.id, keyId: record.id, key: '' })
      return patch(
        `${API_KEYS('proj-1')}/${record.id}`,
        w.keys.d1,
        JSON.stringify({ identity_id: theirs.id, metadata: { plan: 'changed' } }),
      )
    },
    expect: {
      ...error(422, 'value_error', ['body', 'identity_id'], 'The project has no such identity.'),
      afterwards: async (w) => {
        const record = await w.keyward.findKey(made.get(w)!.keyId)
        assert(
          (record?.identityId ?? null) === null && (record?.metadata ?? null) === null,
          'unchanged',
          record,
        )
      },
    },
  },
  {
    name: 'identities: POST api-keys with external_id creates the identity on first use and joins it',
    request: (w) =>
      post(API_KEYS('proj-1'), w.keys.d1, '{"name":"first use","external_id":"customer_first_use"}'),
    expect: {
      status: 201,
      check: async (body, w) => {
        const identity = await identityNamed(w, 'proj-1', 'customer_first_use')
        assert(identity !== null && body.identity_id === identity.id, 'joined the new identity', body)
      },
    },
  },
  {
    name: "identities: GET identities/{identity_id}/keys lists the identity's keys, without the keys",
    request: async (w) => {
      const { identityId } = await identityWithKey(w, 'customer_listed')
      return get(`${IDENTITIES('proj-1')}/${identityId}/keys`, developerKey(w.keys.d1))
    },
    expect: {
      status: 200,
      check: (body, w) => {
        const { keyId, identityId } = made.get(w)!
        assert(
          body.keys.length === 1 &&
            body.keys[0].id === keyId &&
            body.keys[0].identity_id === identityId &&
            !('key' in body.keys[0]) &&
            body.next_cursor === null,
          'its one key',
          body,
        )
      },
    },
  },
  {
    name: "identities: another project's identity is 404 not_found",
    request: async (w) => {
      const theirs = await w.keyward.createIdentity('proj-2', { externalId: 'customer_hidden' })
      return get(`${IDENTITIES('proj-1')}/${theirs.id}`, developerKey(w.keys.d1))
    },
    expect: error(404, 'not_found', ['path', 'identity_id'], 'Identity not found.'),
  },
  {
    name: "identities: an API key cannot manage its project's identities (a developer key of the owner must)",
    request: (w) => get(IDENTITIES('proj-1'), apiKey(w.keys.p1)),
    expect: error(401, 'key_missing', ['header', 'x-developer-key']),
  },
  {
    name: 'identities: a duration of no whole seconds is 422 at its field, and nothing is created',
    request: (w) =>
      post(
        IDENTITIES('proj-1'),
        w.keys.d1,
        JSON.stringify({
          external_id: 'customer_bad_limit',
          ratelimits: [{ ...PER_SECOND, duration: 1500 }],
        }),
      ),
    expect: {
      ...error(422, 'value_error', ['body', 'ratelimits', '0', 'duration']),
      afterwards: noIdentity('customer_bad_limit'),
    },
  },
  {
    name: 'identities: an unknown field is 422 extra_forbidden naming the nearest, and nothing is created',
    request: (w) => post(IDENTITIES('proj-1'), w.keys.d1, '{"external_id":"customer_typo","ratelimit":[]}'),
    expect: {
      ...error(
        422,
        'extra_forbidden',
        ['body', 'ratelimit'],
        'Unknown field `ratelimit`: did you mean `ratelimits`?',
      ),
      afterwards: noIdentity('customer_typo'),
    },
  },
  {
    name: 'identities: an external_id shaped like a key is 422 key_shaped_value, and the message does not repeat it',
    request: (w) => post(IDENTITIES('proj-1'), w.keys.d1, JSON.stringify({ external_id: KEY_SHAPED })),
    expect: {
      ...error(
        422,
        'key_shaped_value',
        ['body', 'external_id'],
        'The value holds something shaped like a key (ak_ or dk_ followed by random characters); it is not ' +
          'stored or shown. Choose a name without it, and if it is a real key, deactivate that key.',
      ),
      afterwards: noIdentity(KEY_SHAPED),
    },
  },
]
