import { error, type HttpCase } from './case.js'
import { API_KEYS, assert, CREATED_AT, checkCreated, DEV_KEYS, post } from './endpoint-cases.js'
import { CONFORMANCE_NOW } from './world.js'

const DAY_MS = 86_400_000
const inDays = (days: number) => new Date(CONFORMANCE_NOW.getTime() + days * DAY_MS).toISOString()

/** A 422 of key creation for an expiry. */
const invalidExpiry = (body: string, type: string, field: string): HttpCase => ({
  name: `POST developer-keys: ${body} is 422 ${type}`,
  request: (w) => post(DEV_KEYS, w.keys.d1, body),
  expect: error(422, type, ['body', field]),
})

/** Expiry at creation, roll and re-activation: the key lifecycle endpoints. */
export const lifecycleCases: readonly HttpCase[] = [
  {
    name: 'POST project api-keys: expires_in_days sets expires_at',
    request: (w) => post(API_KEYS('proj-1'), w.keys.d1, '{"name":"expiring","expires_in_days":30}'),
    expect: {
      status: 201,
      check: async (body, w) => {
        await checkCreated(body, w, ['project_id', 'proj-1'], 'expiring')
        assert(body.expires_at === inDays(30), 'expires_at in 30 days', body)
      },
    },
  },
  {
    name: 'POST developer-keys: expires_at in the future',
    request: (w) => post(DEV_KEYS, w.keys.d1, `{"expires_at":"${inDays(1)}"}`),
    expect: { status: 201, check: (body) => assert(body.expires_at === inDays(1), 'expires_at', body) },
  },
  invalidExpiry('{"expires_in_days":0}', 'greater_than_equal', 'expires_in_days'),
  invalidExpiry('{"expires_in_days":3651}', 'less_than_equal', 'expires_in_days'),
  invalidExpiry('{"expires_in_days":"30"}', 'int_type', 'expires_in_days'),
  invalidExpiry('{"expires_at":"2020-01-01T00:00:00Z"}', 'datetime_future', 'expires_at'),
  invalidExpiry('{"expires_at":"next week"}', 'datetime_parsing', 'expires_at'),
  invalidExpiry(`{"expires_at":"${inDays(1)}","expires_in_days":1}`, 'value_error', 'expires_in_days'),
  {
    name: 'POST project api-keys/{key_id}/roll: 201 K of the new key with the old key id and expiry',
    request: async (w) => {
      const { record } = await w.keyward.issueProjectKey('proj-1', { name: 'to roll' })
      return post(`${API_KEYS('proj-1')}/${record.id}/roll`, w.keys.d1, '{"grace_seconds":3600}')
    },
    expect: {
      status: 201,
      check: async (body, w) => {
        const { previous_key: previous, ...created } = body
        await checkCreated(created, w, ['project_id', 'proj-1'], 'to roll')
        const old = await w.keyward.findKey(previous?.id)
        assert(
          old?.replacedBy === body.id &&
            previous.expires_at === new Date(CONFORMANCE_NOW.getTime() + 3_600_000).toISOString(),
          'the old key, replaced, with its grace expiry',
          body,
        )
        assert(body.created_at === CREATED_AT, 'created now', body)
      },
    },
  },
  {
    name: 'POST developer-keys/{key_id}/roll: a rolled key is 409 key_rolled',
    request: async (w) => {
      const { record } = await w.keyward.issueDeveloperKey('dev-1')
      await w.keyward.rollKey(record.id)
      return post(`${DEV_KEYS}/${record.id}/roll`, w.keys.d1)
    },
    expect: error(409, 'key_rolled', ['path', 'key_id']),
  },
  {
    name: 'POST developer-keys/{key_id}/roll: grace_seconds over 7 days is 422',
    request: async (w) => {
      const { record } = await w.keyward.issueDeveloperKey('dev-1')
      return post(`${DEV_KEYS}/${record.id}/roll`, w.keys.d1, '{"grace_seconds":604801}')
    },
    expect: error(422, 'less_than_equal', ['body', 'grace_seconds']),
  },
  {
    name: "POST developer-keys/{key_id}/roll: another developer's key is not found",
    request: async (w) =>
      post(`${DEV_KEYS}/${(await w.keyward.issueDeveloperKey('dev-2')).record.id}/roll`, w.keys.d1),
    expect: error(404, 'not_found', ['path', 'key_id']),
  },
  {
    name: 'POST developer-keys/{key_id}/activate: 200 L, active again',
    request: async (w) => {
      const { record } = await w.keyward.issueDeveloperKey('dev-1', { name: 'back' })
      await w.keyward.deactivateKey(record.id)
      return post(`${DEV_KEYS}/${record.id}/activate`, w.keys.d1)
    },
    expect: {
      status: 200,
      check: async (body, w) => {
        assert(body.active === true && body.name === 'back' && !('key' in body), 'L, active', body)
        assert((await w.keyward.findKey(body.id))?.active === true, 'active in the store', body)
      },
    },
  },
  {
    name: 'POST project api-keys/{key_id}/activate: a key of another project is not found',
    request: async (w) =>
      post(
        `${API_KEYS('proj-1')}/${(await w.keyward.issueProjectKey('proj-2')).record.id}/activate`,
        w.keys.d1,
      ),
    expect: error(404, 'not_found', ['path', 'key_id']),
  },
  {
    name: 'POST developer-keys/{key_id}/activate: 409 at the limit',
    request: async (w) => {
      const { record } = await w.keyward.issueDeveloperKey('dev-full')
      await w.keyward.deactivateKey(record.id)
      let key = ''
      for (let i = 0; i < 10; i++) key = (await w.keyward.issueDeveloperKey('dev-full')).key
      return post(`${DEV_KEYS}/${record.id}/activate`, key)
    },
    expect: error(409, 'limit_exceeded', []),
  },
]
