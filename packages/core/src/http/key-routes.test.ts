import { describe, expect, it } from 'vitest'
import { createKeyward } from '../service/keyward.js'
import { MemoryKeyStore } from '../store/memory.js'
import { NOW, world } from '../test/key-routes-world.js'
import { createKeyRoutes } from './key-routes.js'

describe('createKeyRoutes', () => {
  it('creates, lists and deactivates developer keys in the spec shapes', async () => {
    const { call, d1 } = await world()
    const created = await call('POST', '/api/v1/auth/developer-keys', { key: d1, body: '{"name":"ci"}' })
    expect(created.status).toBe(201)
    expect(created.headers['cache-control']).toBe('no-store')
    expect(Object.keys(created.json)).toEqual([
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
    ])
    expect(created.json).toMatchObject({
      name: 'ci',
      developer_id: 'd1',
      active: true,
      created_at: NOW.toISOString(),
      key_prefix: created.json.key.slice(0, 8),
      display: `${created.json.key.slice(0, 8)}...`,
    })
    const listed = await call('GET', '/api/v1/auth/developer-keys', { key: d1 })
    expect(listed.json.keys).toHaveLength(2)
    expect(listed.json.keys.every((k: object) => !('key' in k))).toBe(true)
    const gone = await call('DELETE', `/api/v1/auth/developer-keys/${created.json.id}`, { key: d1 })
    const { key: _key, ...withoutKey } = created.json
    expect(gone).toMatchObject({
      status: 200,
      json: { ...withoutKey, active: false, revoked_reason: 'revoked' },
    })
    const again = await call('DELETE', `/api/v1/auth/developer-keys/${created.json.id}`, { key: d1 })
    expect(again).toMatchObject({ status: 200, json: { active: false } })
  })

  it("answers 404 for another developer's key, an unknown id and a non-UUID id", async () => {
    const { call, d1, d2 } = await world()
    const created = await call('POST', '/api/v1/auth/developer-keys', { key: d1 })
    for (const [key, id] of [
      [d2, created.json.id],
      [d1, crypto.randomUUID()],
      [d1, 'not-a-uuid'],
    ]) {
      const r = await call('DELETE', `/api/v1/auth/developer-keys/${id}`, { key })
      expect(r).toEqual({
        status: 404,
        headers: expect.any(Object),
        json: { detail: [{ loc: ['path', 'key_id'], msg: 'Key not found.', type: 'not_found' }] },
      })
    }
  })

  it("reads one key as listings show it, of the caller's only: 404 for another's, a key of another kind or project", async () => {
    const { call, d1, d2 } = await world()
    const developerKey = (
      await call('POST', '/api/v1/auth/developer-keys', { key: d1, body: '{"name":"ci"}' })
    ).json
    const apiKey = (await call('POST', '/api/v1/projects/p1/api-keys', { key: d1, body: '{"name":"web"}' }))
      .json
    const { key: _d, ...developerListed } = developerKey
    const { key: _a, ...apiListed } = apiKey
    const one = await call('GET', `/api/v1/auth/developer-keys/${developerKey.id}`, { key: d1 })
    expect(one).toMatchObject({
      status: 200,
      headers: { 'cache-control': 'no-store' },
      json: developerListed,
    })
    expect(one.json).toEqual(developerListed)
    expect((await call('GET', `/api/v1/projects/p1/api-keys/${apiKey.id}`, { key: d1 })).json).toEqual(
      apiListed,
    )
    for (const [path, key] of [
      [`/api/v1/auth/developer-keys/${developerKey.id}`, d2],
      [`/api/v1/auth/developer-keys/${apiKey.id}`, d1],
      [`/api/v1/projects/p1/api-keys/${developerKey.id}`, d1],
      [`/api/v1/auth/developer-keys/${crypto.randomUUID()}`, d1],
      ['/api/v1/auth/developer-keys/not-a-uuid', d1],
    ] as const) {
      const refused = await call('GET', path, { key })
      expect([path, refused.status, refused.json.detail]).toEqual([
        path,
        404,
        [{ loc: ['path', 'key_id'], msg: 'Key not found.', type: 'not_found' }],
      ])
    }
    const other = await call('GET', `/api/v1/projects/p1/api-keys/${apiKey.id}`, { key: d2 })
    expect([other.status, other.json.detail[0].type]).toEqual([403, 'not_project_owner'])
  })

  it('validates names: absent or null is fine, 1-100 characters', async () => {
    const { call, d1 } = await world()
    expect(
      (await call('POST', '/api/v1/auth/developer-keys', { key: d1, body: '{"name":null}' })).json.name,
    ).toBe(null)
    const cases: Array<[string, string]> = [
      ['{"name":""}', 'string_too_short'],
      [JSON.stringify({ name: 'x'.repeat(101) }), 'string_too_long'],
      ['{"name":5}', 'string_type'],
      ['[1]', 'dict_type'],
      ['{"name":', 'json_invalid'],
    ]
    for (const [body, type] of cases) {
      const r = await call('POST', '/api/v1/auth/developer-keys', { key: d1, body })
      expect([r.status, r.json.detail[0].type]).toEqual([422, type])
    }
    const big = await call('POST', '/api/v1/auth/developer-keys', { key: d1, body: 'x'.repeat(2000) })
    expect([big.status, big.json.detail[0].type]).toEqual([413, 'payload_too_large'])
    const ok = await call('POST', '/api/v1/auth/developer-keys', {
      key: d1,
      body: JSON.stringify({ name: 'é'.repeat(100) }),
    })
    expect(ok.status).toBe(201)
  })

  it('authenticates before it reads the body', async () => {
    const { call } = await world()
    const r = await call('POST', '/api/v1/auth/developer-keys', { body: '{' })
    expect([r.status, r.json.detail[0].type]).toEqual([401, 'key_missing'])
  })

  it('manages project keys for the owner only', async () => {
    const { call, d1, d2 } = await world()
    const created = await call('POST', '/api/v1/projects/p1/api-keys', { key: d1, body: '{"name":"web"}' })
    expect(created).toMatchObject({ status: 201, json: { project_id: 'p1', name: 'web' } })
    expect('developer_id' in created.json).toBe(false)
    const other = await call('GET', '/api/v1/projects/p1/api-keys', { key: d2 })
    expect([other.status, other.json.detail[0].type]).toEqual([403, 'not_project_owner'])
    const missing = await call('GET', '/api/v1/projects/p9/api-keys', { key: d1 })
    expect([missing.status, missing.json.detail[0].type]).toEqual([404, 'not_found'])
    expect((await call('GET', '/api/v1/projects/p1/api-keys', { key: d1 })).json.keys).toHaveLength(1)
    const devKey = (await call('POST', '/api/v1/auth/developer-keys', { key: d1 })).json.id
    const wrong = await call('DELETE', `/api/v1/projects/p1/api-keys/${devKey}`, { key: d1 })
    expect(wrong.status).toBe(404)
    const gone = await call('DELETE', `/api/v1/projects/p1/api-keys/${created.json.id}`, { key: d1 })
    expect(gone).toMatchObject({ status: 200, json: { id: created.json.id, active: false } })
  })

  it('creates a project with its default key, whether the host or the routes issue it', async () => {
    for (const mode of ['router', 'host'] as const) {
      const { call, d1, keyward } = await world({ createProject: mode })
      const r = await call('POST', '/api/v1/projects', { key: d1, body: '{"name":"Shop"}' })
      expect(r.status).toBe(201)
      expect(r.json.project).toEqual({
        id: 'p2',
        name: 'Shop',
        developer_id: 'd1',
        created_at: NOW.toISOString(),
      })
      expect(r.json.api_key).toMatchObject({ name: 'default', project_id: 'p2', active: true })
      const auth = await keyward.authenticate(
        { projectKey: r.json.api_key.key },
        { scope: 'project', projectId: 'p2' },
      )
      expect(auth.projectId).toBe('p2')
    }
  })

  it('validates the project body and reports host mistakes as a bare 500', async () => {
    const { call, d1 } = await world()
    const cases: Array<[string | undefined, string, string[]]> = [
      [undefined, 'missing', ['body']],
      ['{}', 'missing', ['body', 'name']],
      ['{"name":null}', 'string_type', ['body', 'name']],
      ['{"name":""}', 'string_too_short', ['body', 'name']],
    ]
    for (const [body, type, loc] of cases) {
      const r = await call('POST', '/api/v1/projects', { key: d1, ...(body === undefined ? {} : { body }) })
      expect([r.status, r.json.detail[0].type, r.json.detail[0].loc]).toEqual([422, type, loc])
    }
    for (const mode of ['twice', 'other'] as const) {
      const w = await world({ createProject: mode })
      const r = await w.call('POST', '/api/v1/projects', { key: w.d1, body: '{"name":"x"}' })
      expect([r.status, r.json.detail[0].type]).toEqual([500, 'internal_error'])
    }
  })

  it('mounts project creation only with createProject, and checks options', async () => {
    const { routes, keyward } = await world({ createProject: 'none' })
    expect(routes.map((r) => `${r.method} ${r.path}`)).not.toContain('POST /api/v1/projects')
    expect(() => createKeyRoutes(keyward, { bodyLimit: 0 })).toThrow(
      'option `bodyLimit` must be a positive integer',
    )
    expect(() => createKeyRoutes(keyward, { createProject: 1 as never })).toThrow('option `createProject`')
    expect(() => createKeyRoutes(createKeyward({ store: new MemoryKeyStore() }))).toThrow(
      "createKeyRoutes (the project API-key routes check the project's owner) needs to know who owns a project",
    )
  })
})

describe('key lifecycle routes', () => {
  it('creates a key with expires_in_days or expires_at, and refuses a bad expiry with 422, creating nothing', async () => {
    const { call, d1, keyward } = await world()
    const inDays = await call('POST', '/api/v1/auth/developer-keys', {
      key: d1,
      body: '{"expires_in_days":30}',
    })
    expect(inDays.json.expires_at).toBe(new Date(NOW.getTime() + 30 * 86_400_000).toISOString())
    const at = await call('POST', '/api/v1/projects/p1/api-keys', {
      key: d1,
      body: '{"expires_at":"2026-01-01T00:00:00+01:00"}',
    })
    expect(at.json.expires_at).toBe('2025-12-31T23:00:00.000Z')
    for (const [body, type, field] of [
      ['{"expires_in_days":0}', 'greater_than_equal', 'expires_in_days'],
      ['{"expires_in_days":3651}', 'less_than_equal', 'expires_in_days'],
      ['{"expires_in_days":"7"}', 'int_type', 'expires_in_days'],
      ['{"expires_at":"2024-01-01T00:00:00Z"}', 'datetime_future', 'expires_at'],
      ['{"expires_at":"tomorrow"}', 'datetime_parsing', 'expires_at'],
      ['{"expires_at":"2026-01-01T00:00:00Z","expires_in_days":3}', 'value_error', 'expires_in_days'],
    ]) {
      const r = await call('POST', '/api/v1/auth/developer-keys', { key: d1, body })
      expect(r.status).toBe(422)
      expect(r.json.detail).toEqual([{ loc: ['body', field], msg: expect.any(String), type }])
    }
    expect(await keyward.listKeys({ type: 'developer', id: 'd1' })).toHaveLength(2)
  })

  it('rolls a key: 201 with the new key and the old key id and expiry; a second roll is 409 key_rolled', async () => {
    const { call, d1 } = await world()
    const created = await call('POST', '/api/v1/projects/p1/api-keys', { key: d1, body: '{"name":"ci"}' })
    const rolled = await call('POST', `/api/v1/projects/p1/api-keys/${created.json.id}/roll`, {
      key: d1,
      body: '{"grace_seconds":3600}',
    })
    expect(rolled.status).toBe(201)
    expect(rolled.json).toMatchObject({
      key: expect.stringMatching(/^ak_/),
      name: 'ci',
      project_id: 'p1',
      previous_key: { id: created.json.id, expires_at: new Date(NOW.getTime() + 3_600_000).toISOString() },
    })
    const again = await call('POST', `/api/v1/projects/p1/api-keys/${created.json.id}/roll`, { key: d1 })
    expect(again).toMatchObject({ status: 409, json: { detail: [{ type: 'key_rolled' }] } })
    const bad = await call('POST', `/api/v1/projects/p1/api-keys/${rolled.json.id}/roll`, {
      key: d1,
      body: '{"grace_seconds":604801}',
    })
    expect(bad).toMatchObject({
      status: 422,
      json: { detail: [{ type: 'less_than_equal', loc: ['body', 'grace_seconds'] }] },
    })
    const listed = await call('GET', '/api/v1/projects/p1/api-keys', { key: d1 })
    expect(listed.json.keys).toHaveLength(2)
  })

  it("re-activates a key: 200, 409 at the limit, 404 for a key not the caller's", async () => {
    const { call, d1, d2, keyward } = await world()
    const created = await call('POST', '/api/v1/auth/developer-keys', { key: d1 })
    await call('DELETE', `/api/v1/auth/developer-keys/${created.json.id}`, { key: d1 })
    const back = await call('POST', `/api/v1/auth/developer-keys/${created.json.id}/activate`, { key: d1 })
    expect(back).toMatchObject({ status: 200, json: { id: created.json.id, active: true } })
    expect(back.json).not.toHaveProperty('key')
    const foreign = await call('POST', `/api/v1/auth/developer-keys/${created.json.id}/activate`, { key: d2 })
    expect(foreign).toMatchObject({ status: 404, json: { detail: [{ type: 'not_found' }] } })
    await call('DELETE', `/api/v1/auth/developer-keys/${created.json.id}`, { key: d1 })
    for (let i = 0; i < 9; i++) await keyward.issueDeveloperKey('d1')
    const full = await call('POST', `/api/v1/auth/developer-keys/${created.json.id}/activate`, { key: d1 })
    expect(full).toMatchObject({ status: 409, json: { detail: [{ type: 'limit_exceeded' }] } })
  })
})
