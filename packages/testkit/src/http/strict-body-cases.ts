import { error, type HttpCase, unknownKey } from './case.js'
import { API_KEYS, assert, DEV_KEYS, PROJECTS, patch, post } from './endpoint-cases.js'
import { verify } from './verify-cases.js'
import type { ConformanceWorld } from './world.js'

/** An `extra_forbidden` expectation at `["body", ...field]`, and what must be left as it was. */
const extra = (
  field: readonly string[],
  msg: string,
  afterwards?: (world: ConformanceWorld) => Promise<void>,
) => ({
  ...error(422, 'extra_forbidden', ['body', ...field], msg),
  ...(afterwards ? { afterwards } : {}),
})

/** Whether proj-1 has a key of this name. */
const hasKeyNamed = async (w: ConformanceWorld, name: string) =>
  (await w.keyward.listKeys({ type: 'project', id: 'proj-1' })).some((record) => record.name === name)

const noKeyNamed = (name: string) => async (w: ConformanceWorld) =>
  assert(!(await hasKeyNamed(w, name)), `no key named ${name}`, name)

// The changes below act on a new API key of proj-1 with 10 credits; its id is kept to check it after.
const keys = new WeakMap<ConformanceWorld, string>()
const onNewKey =
  (make: (keyId: string, w: ConformanceWorld) => ReturnType<HttpCase['request']>) =>
  async (w: ConformanceWorld) => {
    const { record } = await w.keyward.issueProjectKey('proj-1', { remaining: 10 })
    keys.set(w, record.id)
    return make(record.id, w)
  }
const newKeyUnchanged = async (w: ConformanceWorld) => {
  const record = await w.keyward.findKey(keys.get(w)!)
  assert(
    record?.active === true &&
      (record.ipAllowlist ?? null) === null &&
      record.remaining === 10 &&
      (record.refill ?? null) === null &&
      !record.replacedBy &&
      !record.expiresAt,
    'the key unchanged',
    record,
  )
}

// A real key's shape, sent where it does not belong (never one the world issued: no leak to prove).
const KEY_SHAPED = `ak_${'Zq9x'.repeat(8)}`

/**
 * Request bodies fail closed: a field the operation does not know is 422 `extra_forbidden` at
 * its place, naming the nearest known field, and nothing changes; metadata stays free-form. A
 * name that holds a key is refused too (`key_shaped_value`), without repeating it.
 */
export const strictBodyCases: readonly HttpCase[] = [
  {
    name: 'strict bodies: a typo of a policy in POST api-keys is 422 extra_forbidden, and no key is created',
    request: (w) =>
      post(API_KEYS('proj-1'), w.keys.d1, '{"name":"typo","remainig":5,"ip_alowlist":["10.0.0.0/8"]}'),
    expect: extra(['remainig'], 'Unknown field `remainig`: did you mean `remaining`?', noKeyNamed('typo')),
  },
  {
    name: 'strict bodies: POST developer-keys names the nearest field',
    request: (w) => post(DEV_KEYS, w.keys.d1, '{"name":"ci","expires_in_day":30}'),
    expect: extra(['expires_in_day'], 'Unknown field `expires_in_day`: did you mean `expires_in_days`?'),
  },
  {
    name: 'strict bodies: POST projects refuses the typo before asking for the missing name',
    request: (w) => post(PROJECTS, w.keys.d1, '{"nmae":"Shop"}'),
    expect: extra(['nmae'], 'Unknown field `nmae`: did you mean `name`?'),
  },
  {
    name: 'strict bodies: a field near no known one lists those the operation takes',
    request: (w) => post(PROJECTS, w.keys.d1, '{"name":"Shop","colour":"red"}'),
    expect: extra(['colour'], 'Unknown field `colour`: expected one of `name`.'),
  },
  {
    name: 'strict bodies: PATCH api-keys/{key_id} with a typo of a policy changes nothing',
    request: onNewKey((id, w) =>
      patch(`${API_KEYS('proj-1')}/${id}`, w.keys.d1, '{"ipAllowlist":["10.0.0.0/8"]}'),
    ),
    expect: extra(
      ['ipAllowlist'],
      'Unknown field `ipAllowlist`: did you mean `ip_allowlist`?',
      newKeyUnchanged,
    ),
  },
  {
    name: 'strict bodies: PATCH developer-keys/{key_id} refuses a field besides a valid one',
    request: async (w) => {
      const { record } = await w.keyward.issueDeveloperKey('dev-1', { name: 'strict' })
      return patch(`${DEV_KEYS}/${record.id}`, w.keys.d1, '{"expires_in_days":30,"permissions":["a"]}')
    },
    expect: extra(
      ['permissions'],
      'Unknown field `permissions`: expected one of `expires_at`, `expires_in_days`.',
    ),
  },
  {
    name: 'strict bodies: a nested refill rule refuses an unknown field at its path, and the credits stay',
    request: onNewKey((id, w) =>
      post(
        `${API_KEYS('proj-1')}/${id}/credits`,
        w.keys.d1,
        '{"op":"set","amount":5,"refill":{"amount":5,"interval":"monthly","dya":3}}',
      ),
    ),
    expect: extra(['refill', 'dya'], 'Unknown field `dya`: did you mean `day`?', newKeyUnchanged),
  },
  {
    name: 'strict bodies: a roll with a typo of its grace window rolls nothing',
    request: onNewKey((id, w) => post(`${API_KEYS('proj-1')}/${id}/roll`, w.keys.d1, '{"grace_second":0}')),
    expect: extra(
      ['grace_second'],
      'Unknown field `grace_second`: did you mean `grace_seconds`?',
      newKeyUnchanged,
    ),
  },
  {
    name: 'strict bodies: re-activation takes no field, and the key stays inactive',
    request: async (w) => {
      const { record } = await w.keyward.issueProjectKey('proj-1', { name: 'to re-activate' })
      await w.keyward.deactivateKey(record.id)
      keys.set(w, record.id)
      return post(`${API_KEYS('proj-1')}/${record.id}/activate`, w.keys.d1, '{"force":true}')
    },
    expect: extra(['force'], 'Unknown field `force`: this takes no fields.', async (w) => {
      const record = await w.keyward.findKey(keys.get(w)!)
      assert(record?.active === false, 'still inactive', record)
    }),
  },
  {
    name: 'strict bodies: re-activation with an empty object is a re-activation',
    request: async (w) => {
      const { record } = await w.keyward.issueDeveloperKey('dev-2', { name: 'back again' })
      await w.keyward.deactivateKey(record.id)
      return post(`${DEV_KEYS}/${record.id}/activate`, w.keys.d2, '{}')
    },
    expect: { status: 200, check: (body) => assert(body.active === true, 'active', body) },
  },
  {
    name: 'strict bodies: POST keys/verify refuses a typo of a required permission',
    request: (w) => verify(w.keys.d1, { key: w.keys.p1, permisions: ['reports:read'] }),
    expect: extra(['permisions'], 'Unknown field `permisions`: did you mean `permissions`?'),
  },
  {
    name: 'strict bodies: a field named like a key is refused at the body, and its name is not shown',
    request: (w) => post(API_KEYS('proj-1'), w.keys.d1, JSON.stringify({ [KEY_SHAPED]: 1 })),
    expect: error(
      422,
      'extra_forbidden',
      ['body'],
      'Unknown field whose name is shaped like a key (not shown). Never send a key as a field name.',
    ),
  },
  {
    name: 'strict bodies: metadata is free-form, any field in it is kept',
    request: (w) =>
      post(
        API_KEYS('proj-1'),
        w.keys.d1,
        '{"name":"free-form","metadata":{"remainig":1,"anything":{"x":2}}}',
      ),
    expect: {
      status: 201,
      check: (body) =>
        assert(
          JSON.stringify(body.metadata) === '{"remainig":1,"anything":{"x":2}}',
          'the metadata as sent',
          body,
        ),
    },
  },
  {
    name: 'key names: a key as the name of an API key is 422 key_shaped_value, not repeated, nothing created',
    request: (w) => post(API_KEYS('proj-1'), w.keys.d1, JSON.stringify({ name: `ci ${w.keys.p1}` })),
    expect: {
      ...error(422, 'key_shaped_value', ['body', 'name']),
      afterwards: async (w: ConformanceWorld) => {
        const records = await w.keyward.listKeys({ type: 'project', id: 'proj-1' })
        assert(!records.some((record) => record.name?.includes('ak_')), 'no key named with a key', records)
      },
    },
  },
  {
    name: 'key names: a legacy dk_ key as the name of a project is 422 key_shaped_value',
    request: (w) => post(PROJECTS, w.keys.d1, JSON.stringify({ name: `dk_${unknownKey().slice(3)}` })),
    expect: error(422, 'key_shaped_value', ['body', 'name']),
  },
  {
    name: 'key names: a snake_case name that starts like a key is a name',
    request: (w) => post(DEV_KEYS, w.keys.d2, '{"name":"ak_billing_service_for_the_eu_west_region"}'),
    expect: {
      status: 201,
      check: (body) => assert(body.name === 'ak_billing_service_for_the_eu_west_region', 'the name', body),
    },
  },
]
