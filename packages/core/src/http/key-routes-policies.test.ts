import { describe, expect, it } from 'vitest'
import { NOW, world } from '../test/key-routes-world.js'

const API = '/api/v1/projects/p1/api-keys'
const DAY = 86_400_000
const service = {
  permissions: ['generations:write', 'generations:delete', 'reports:read'],
  keyPolicies: { project: { maxLifetimeDays: 90 } },
}

describe('key routes: access policies of API keys', () => {
  it('creates an API key with an IP allowlist, permissions and metadata, and lists them', async () => {
    const { call, d1 } = await world({ service, bodyLimit: 16_384 })
    const body = {
      name: 'ci',
      ip_allowlist: ['203.0.113.0/24', '2001:db8::/32'],
      permissions: ['reports:read'],
      metadata: { customer: 'c_42', plan: 'pro' },
    }
    const created = await call('POST', API, { key: d1, body: JSON.stringify(body) })
    expect(created.status).toBe(201)
    expect(created.json).toMatchObject({
      ip_allowlist: body.ip_allowlist,
      permissions: body.permissions,
      metadata: body.metadata,
      // The maximum lifetime when none was given.
      expires_at: new Date(NOW.getTime() + 90 * DAY).toISOString(),
    })
    const listed = await call('GET', API, { key: d1 })
    expect(listed.json.keys[0]).toMatchObject({ ip_allowlist: body.ip_allowlist, metadata: body.metadata })
    // A key created without permissions has all of them (null), and developer keys show no policies.
    const plain = await call('POST', API, { key: d1 })
    expect(plain.json).toMatchObject({ ip_allowlist: null, permissions: null, metadata: null })
    const developer = await call('POST', '/api/v1/auth/developer-keys', { key: d1 })
    expect(developer.json).not.toHaveProperty('permissions')
  })

  it.each([
    [
      'a bad 4th entry',
      { ip_allowlist: ['10.0.0.0/8', '::1', '2001:db8::/32', '10.0.0.1/8'] },
      ['body', 'ip_allowlist', '3'],
      'ip_invalid',
    ],
    [
      'an entry not a string',
      { ip_allowlist: ['10.0.0.0/8', 7] },
      ['body', 'ip_allowlist', '1'],
      'ip_invalid',
    ],
    ['a list not a list', { ip_allowlist: '10.0.0.0/8' }, ['body', 'ip_allowlist'], 'list_type'],
    [
      '101 entries',
      { ip_allowlist: Array.from({ length: 101 }, (_, i) => `10.0.0.${i}`) },
      ['body', 'ip_allowlist'],
      'too_long',
    ],
    [
      'an undeclared permission',
      { permissions: ['reports:read', 'admin:all'] },
      ['body', 'permissions', '1'],
      'permission_unknown',
    ],
    ['a permission not a string', { permissions: [3] }, ['body', 'permissions', '0'], 'string_type'],
    ['metadata as an array', { metadata: [1, 2] }, ['body', 'metadata'], 'dict_type'],
    ['metadata as a string', { metadata: 'x' }, ['body', 'metadata'], 'dict_type'],
    ['metadata over 4 KB', { metadata: { blob: 'x'.repeat(4096) } }, ['body', 'metadata'], 'too_long'],
    [
      'a lifetime over the maximum',
      { expires_in_days: 91 },
      ['body', 'expires_in_days'],
      'lifetime_exceeded',
    ],
  ])('refuses %s with 422 at its loc, creating nothing', async (_label, body, loc, type) => {
    const { call, d1 } = await world({ service, bodyLimit: 16_384 })
    const refused = await call('POST', API, { key: d1, body: JSON.stringify(body) })
    expect(refused.status).toBe(422)
    expect(refused.json.detail).toEqual([{ loc, msg: expect.any(String), type }])
    expect((await call('GET', API, { key: d1 })).json.keys).toEqual([])
  })

  it('accepts an IP allowlist of exactly 100 entries, at creation and by PATCH (101 is too_long)', async () => {
    const { call, d1 } = await world({ service, bodyLimit: 16_384 })
    const hundred = Array.from({ length: 100 }, (_, i) => (i % 2 ? `10.0.${i}.0/24` : `2001:db8:${i}::/48`))
    const created = await call('POST', API, { key: d1, body: JSON.stringify({ ip_allowlist: hundred }) })
    expect([created.status, created.json.ip_allowlist]).toEqual([201, hundred])
    const path = `${API}/${created.json.id}`
    const reversed = [...hundred].reverse()
    const patched = await call('PATCH', path, { key: d1, body: JSON.stringify({ ip_allowlist: reversed }) })
    expect([patched.status, patched.json.ip_allowlist]).toEqual([200, reversed])
    const over = await call('PATCH', path, {
      key: d1,
      body: JSON.stringify({ ip_allowlist: [...hundred, '192.0.2.1'] }),
    })
    expect(over.json.detail[0]).toMatchObject({ loc: ['body', 'ip_allowlist'], type: 'too_long' })
  })

  it('names the permission that is not declared, and accepts metadata of exactly 4 KB', async () => {
    const { call, d1 } = await world({ service, bodyLimit: 16_384 })
    const refused = await call('POST', API, { key: d1, body: '{"permissions":["admin:all"]}' })
    expect(refused.json.detail[0].msg).toBe('The permission admin:all is not one this server declares.')
    // {"b":"..."} is 8 bytes around the value.
    const exact = { b: 'x'.repeat(4096 - 8) }
    expect(new TextEncoder().encode(JSON.stringify(exact)).byteLength).toBe(4096)
    const accepted = await call('POST', API, { key: d1, body: JSON.stringify({ metadata: exact }) })
    expect(accepted.status).toBe(201)
    const over = { b: 'é'.repeat(2045) } // 2 bytes each in UTF-8: 4098 bytes
    const refusedOver = await call('POST', API, { key: d1, body: JSON.stringify({ metadata: over }) })
    expect(refusedOver.json.detail[0]).toMatchObject({
      type: 'too_long',
      msg: expect.stringContaining('4098'),
    })
  })

  it('updates policies with PATCH, a field at a time, and null clears one', async () => {
    const { call, d1 } = await world({ service, bodyLimit: 16_384 })
    const created = await call('POST', API, {
      key: d1,
      body: JSON.stringify({ ip_allowlist: ['10.0.0.0/8'], metadata: { a: 1 } }),
    })
    const path = `${API}/${created.json.id}`
    const narrowed = await call('PATCH', path, { key: d1, body: '{"permissions":["generations:write"]}' })
    expect(narrowed).toMatchObject({
      status: 200,
      json: { permissions: ['generations:write'], ip_allowlist: ['10.0.0.0/8'], metadata: { a: 1 } },
    })
    const cleared = await call('PATCH', path, { key: d1, body: '{"ip_allowlist":null,"metadata":{"b":2}}' })
    expect(cleared.json).toMatchObject({
      ip_allowlist: null,
      metadata: { b: 2 },
      permissions: ['generations:write'],
    })
    const bad = await call('PATCH', path, { key: d1, body: '{"ip_allowlist":["::1","nope"]}' })
    expect(bad.json.detail[0]).toMatchObject({ loc: ['body', 'ip_allowlist', '1'], type: 'ip_invalid' })
    // An expiry and policies together; and the maximum lifetime holds for a new expiry too.
    const both = await call('PATCH', path, { key: d1, body: '{"expires_in_days":30,"metadata":null}' })
    expect(both.json).toMatchObject({
      metadata: null,
      expires_at: new Date(NOW.getTime() + 30 * DAY).toISOString(),
    })
    const never = await call('PATCH', path, { key: d1, body: '{"expires_at":null}' })
    expect(never.json.detail[0]).toMatchObject({ type: 'lifetime_exceeded', loc: ['body', 'expires_at'] })
    expect((await call('PATCH', path, { key: d1, body: '{}' })).json.detail[0].type).toBe('missing')
  })

  it('rolls a key with its policies; refuses a roll once a permission is no longer declared', async () => {
    const { call, d1, keyward } = await world({ service, bodyLimit: 16_384 })
    const created = await call('POST', API, {
      key: d1,
      body: JSON.stringify({ permissions: ['reports:read'], ip_allowlist: ['::1'], metadata: { m: true } }),
    })
    const rolled = await call('POST', `${API}/${created.json.id}/roll`, { key: d1 })
    expect(rolled.json).toMatchObject({
      permissions: ['reports:read'],
      ip_allowlist: ['::1'],
      metadata: { m: true },
    })
    // The same store under a service that no longer declares `reports:read`.
    const { createKeyward } = await import('../service/keyward.js')
    const narrower = createKeyward({
      store: keyward.store,
      permissions: ['generations:write'],
      now: () => NOW,
    })
    await expect(narrower.rollKey(rolled.json.id)).rejects.toMatchObject({
      status: 422,
      type: 'permission_unknown',
      loc: ['body', 'permissions', '0'],
    })
  })

  it('creates, answers, changes and clears stored rate limits, each change audited', async () => {
    const { call, d1, keyward } = await world({ service, bodyLimit: 16_384 })
    const limits = [{ name: 'requests', limit: 100, duration: 60_000 }]
    const created = await call('POST', API, { key: d1, body: JSON.stringify({ ratelimits: limits }) })
    expect([created.status, created.json.ratelimits]).toEqual([201, limits])
    const plain = await call('POST', API, { key: d1 })
    expect(plain.json.ratelimits).toEqual([])
    const path = `${API}/${created.json.id}`
    const daily = [...limits, { name: 'exports', limit: 5, duration: 86_400_000 }]
    const patched = await call('PATCH', path, { key: d1, body: JSON.stringify({ ratelimits: daily }) })
    expect([patched.status, patched.json.ratelimits]).toEqual([200, daily])
    const cleared = await call('PATCH', path, { key: d1, body: '{"ratelimits":null}' })
    expect([cleared.status, cleared.json.ratelimits]).toEqual([200, []])
    const bad = await call('PATCH', path, {
      key: d1,
      body: JSON.stringify({ ratelimits: [{ name: 'r', limit: 1, duration: 1500 }] }),
    })
    expect(bad.json.detail).toEqual([
      {
        loc: ['body', 'ratelimits', '0', 'duration'],
        msg: expect.stringContaining('whole seconds'),
        type: 'value_error',
      },
    ])
    const extra = await call('PATCH', path, {
      key: d1,
      body: JSON.stringify({ ratelimits: [{ name: 'r', limit: 1, duration: 1000, cost: 2 }] }),
    })
    expect(extra.json.detail[0]).toMatchObject({
      loc: ['body', 'ratelimits', '0', 'cost'],
      type: 'extra_forbidden',
    })
    const six = Array.from({ length: 6 }, (_, i) => ({ name: `r${i}`, limit: 1, duration: 1000 }))
    const over = await call('POST', API, { key: d1, body: JSON.stringify({ ratelimits: six }) })
    expect(over.json.detail[0]).toMatchObject({ loc: ['body', 'ratelimits'], type: 'too_long' })
    const rows = (await keyward.listAudit('d1')).records.filter((row) => row.action === 'key.policies_set')
    // Newest first; each row holds what changed (and the key's prefix).
    const prefix = created.json.key_prefix
    expect(rows.map((row) => [row.before, row.after])).toEqual([
      [
        { key_prefix: prefix, ratelimits: daily },
        { key_prefix: prefix, ratelimits: null },
      ],
      [
        { key_prefix: prefix, ratelimits: limits },
        { key_prefix: prefix, ratelimits: daily },
      ],
    ])
  })
})
