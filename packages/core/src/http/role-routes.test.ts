import { describe, expect, it } from 'vitest'
import { NOW, world } from '../test/key-routes-world.js'

const ROLES = '/api/v1/projects/p1/roles'
const KEYS = '/api/v1/projects/p1/api-keys'
const PERMISSIONS = ['reports:read', 'reports:write', 'billing:read', 'billing:write', 'admin']

// The routes with declared permissions and a second project, p2, owned by d2.
async function roles() {
  const w = await world({ service: { permissions: PERMISSIONS } })
  w.projects.set('p2', { id: 'p2', name: 'two', developerId: 'd2', createdAt: NOW })
  const send = async (method: string, path: string, body?: object, key = w.d1) =>
    w.call(method, path, { key, ...(body ? { body: JSON.stringify(body) } : {}) })
  const create = async (body: object, project = 'p1', key = w.d1) => {
    const r = await send('POST', `/api/v1/projects/${project}/roles`, body, key)
    expect(r.status, JSON.stringify(r.json)).toBe(201)
    return r.json
  }
  const createKey = async (body: object) => {
    const r = await send('POST', KEYS, body)
    expect(r.status, JSON.stringify(r.json)).toBe(201)
    return r.json
  }
  // Whether the key may do what `permissions` asks, as a guard would answer.
  const allowed = (projectKey: string, permissions: string) =>
    w.keyward.authenticate({ projectKey }, { scope: 'project', projectId: 'p1', permissions }).then(
      () => 'ok',
      (error) => error.type,
    )
  return { ...w, send, create, createKey, allowed }
}

const problem = (r: { status: number; json: { detail: unknown } }) => ({
  status: r.status,
  detail: r.json.detail,
})

describe('role routes', () => {
  it('create, read, list, change and delete a role in the JSON shape, each with its audit row', async () => {
    const { send, create, keyward } = await roles()
    const billing = await create({ name: 'billing', permissions: ['billing:read', 'billing:*'] })
    expect(billing).toEqual({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      project_id: 'p1',
      name: 'billing',
      permissions: ['billing:read', 'billing:*'],
      created_at: NOW.toISOString(),
      updated_at: NOW.toISOString(),
    })
    const read = await send('GET', `${ROLES}/${billing.id}`)
    expect(read).toMatchObject({ status: 200, json: billing, headers: { 'cache-control': 'no-store' } })
    const reader = await create({ name: 'reader', permissions: [] })
    const admin = await create({ name: 'admin', permissions: ['*'] })
    // Created in one instant: the greater id first.
    const newestFirst = [billing, reader, admin].map((role) => role.id).sort((x, y) => (x < y ? 1 : -1))
    const first = await send('GET', `${ROLES}?limit=2`)
    expect(first.json.roles.map((role: { id: string }) => role.id)).toEqual(newestFirst.slice(0, 2))
    const second = await send('GET', `${ROLES}?limit=2&cursor=${first.json.next_cursor}`)
    expect(second.json).toEqual({
      roles: [expect.objectContaining({ id: newestFirst[2] })],
      next_cursor: null,
    })

    const renamed = await send('PATCH', `${ROLES}/${reader.id}`, {
      name: 'reports',
      permissions: ['reports:read'],
    })
    expect(renamed).toMatchObject({
      status: 200,
      json: { ...reader, name: 'reports', permissions: ['reports:read'] },
    })
    // An empty change writes nothing.
    expect(await send('PATCH', `${ROLES}/${reader.id}`, {})).toMatchObject({
      status: 200,
      json: renamed.json,
    })
    const deleted = await send('DELETE', `${ROLES}/${admin.id}`)
    expect(deleted).toMatchObject({ status: 200, json: { id: admin.id, deleted: true, detached_keys: [] } })
    expect((await send('GET', `${ROLES}/${admin.id}`)).status).toBe(404)
    const rows = (await keyward.listAudit('d1')).records.filter((row) => row.targetType === 'role')
    expect(rows.map((row) => row.action).sort()).toEqual([
      'role.created',
      'role.created',
      'role.created',
      'role.deleted',
      'role.updated',
    ])
  })

  it('refuse bad input 422 and a taken name 409 in the error format, changing nothing', async () => {
    const { send, create, keyward } = await roles()
    const billing = await create({ name: 'billing', permissions: ['billing:read'] })
    await create({ name: 'reader', permissions: ['reports:read'] })
    const cases: [string, string, object | undefined, number, string, string[]][] = [
      ['POST', ROLES, { name: 'billing', permissions: [] }, 409, 'role_exists', ['body', 'name']],
      ['POST', ROLES, undefined, 422, 'missing', ['body']],
      ['POST', ROLES, { permissions: [] }, 422, 'missing', ['body', 'name']],
      ['POST', ROLES, { name: 'x' }, 422, 'missing', ['body', 'permissions']],
      ['POST', ROLES, { name: '', permissions: [] }, 422, 'string_too_short', ['body', 'name']],
      ['POST', ROLES, { name: 'x'.repeat(101), permissions: [] }, 422, 'string_too_long', ['body', 'name']],
      [
        'POST',
        ROLES,
        { name: `ci ak_${'Zq9x'.repeat(8)}`, permissions: [] },
        422,
        'key_shaped_value',
        ['body', 'name'],
      ],
      ['POST', ROLES, { name: 'x', permissions: 'admin' }, 422, 'list_type', ['body', 'permissions']],
      [
        'POST',
        ROLES,
        { name: 'x', permissions: ['reports:delete'] },
        422,
        'permission_unknown',
        ['body', 'permissions', '0'],
      ],
      ['POST', ROLES, { name: 'x', permissions: [], perms: [] }, 422, 'extra_forbidden', ['body', 'perms']],
      ['PATCH', `${ROLES}/${billing.id}`, { name: 'reader' }, 409, 'role_exists', ['body', 'name']],
      ['PATCH', `${ROLES}/${billing.id}`, { name: null }, 422, 'string_type', ['body', 'name']],
      [
        'PATCH',
        `${ROLES}/${billing.id}`,
        { permissions: ['admin', 'nope'] },
        422,
        'permission_unknown',
        ['body', 'permissions', '1'],
      ],
      ['DELETE', `${ROLES}/${billing.id}?detach=yes`, undefined, 422, 'value_error', ['query', 'detach']],
      [
        'DELETE',
        `${ROLES}/${billing.id}?detatch=true`,
        undefined,
        422,
        'extra_forbidden',
        ['query', 'detatch'],
      ],
      ['GET', `${ROLES}/not-a-uuid`, undefined, 404, 'not_found', ['path', 'role_id']],
      ['GET', `${ROLES}?limit=0`, undefined, 422, 'greater_than_equal', ['query', 'limit']],
    ]
    const before = JSON.stringify(await keyward.listRolesPage('p1'))
    const audit = (await keyward.listAudit('d1')).records.length
    for (const [method, path, body, status, type, loc] of cases) {
      expect({ method, path, body, ...problem(await send(method, path, body)) }).toEqual({
        method,
        path,
        body,
        status,
        detail: [{ loc, msg: expect.any(String), type }],
      })
    }
    expect(JSON.stringify(await keyward.listRolesPage('p1'))).toBe(before)
    expect((await keyward.listAudit('d1')).records.length).toBe(audit)
  })

  it("answer another project's role 404 and another developer's project 403/404, as for identities", async () => {
    const { send, create, d2 } = await roles()
    const theirs = await create({ name: 'billing', permissions: [] }, 'p2', d2)
    for (const method of ['GET', 'PATCH', 'DELETE']) {
      const r = await send(method, `${ROLES}/${theirs.id}`, method === 'PATCH' ? { name: 'x' } : undefined)
      expect(problem(r)).toEqual({
        status: 404,
        detail: [{ loc: ['path', 'role_id'], msg: 'Role not found.', type: 'not_found' }],
      })
    }
    const foreign = await send('GET', '/api/v1/projects/p2/roles')
    expect(foreign.status).toBe(403)
    expect(foreign.json.detail[0].type).toBe('not_project_owner')
    const anonymous = await send('GET', ROLES, undefined, '')
    expect(anonymous.status).toBe(401)
  })

  it('give roles to keys by name at creation and by PATCH, shown by name in the key JSON', async () => {
    const { send, create, createKey, allowed } = await roles()
    await create({ name: 'billing', permissions: ['billing:*'] })
    await create({ name: 'reader', permissions: ['reports:read'] })
    const created = await createKey({ name: 'ci', roles: ['billing', 'reader'], permissions: ['admin'] })
    expect(created).toMatchObject({ roles: ['billing', 'reader'], permissions: ['admin'] })
    expect(await allowed(created.key, 'admin and billing:write and reports:read')).toBe('ok')
    expect(await allowed(created.key, 'reports:write')).toBe('permission_denied')
    const listed = await send('GET', KEYS)
    expect(listed.json.keys.find((key: { id: string }) => key.id === created.id).roles).toEqual([
      'billing',
      'reader',
    ])
    const patched = await send('PATCH', `${KEYS}/${created.id}`, { roles: ['reader'] })
    expect(patched).toMatchObject({ status: 200, json: { roles: ['reader'] } })
    expect(await allowed(created.key, 'billing:read')).toBe('permission_denied')
    expect((await send('GET', `${KEYS}/${created.id}`)).json.roles).toEqual(['reader'])
    const cleared = await send('PATCH', `${KEYS}/${created.id}`, { roles: null })
    expect(cleared.json.roles).toBeNull()
    // A key without roles shows `roles: null`.
    expect((await createKey({})).roles).toBeNull()
  })

  it('refuse an unknown role name 422 naming it, at creation and in PATCH, writing nothing', async () => {
    const { send, create, createKey, keyward } = await roles()
    await create({ name: 'billing', permissions: ['billing:read'] })
    const key = await createKey({ roles: ['billing'] })
    const count = (await keyward.listKeysPage({ type: 'project', id: 'p1' })).records.length
    const unknown = await send('POST', KEYS, { name: 'ci', roles: ['billing', 'auditor'] })
    expect(problem(unknown)).toEqual({
      status: 422,
      detail: [
        {
          loc: ['body', 'roles', '1'],
          msg: 'The project has no role named "auditor".',
          type: 'role_unknown',
        },
      ],
    })
    expect((await keyward.listKeysPage({ type: 'project', id: 'p1' })).records.length).toBe(count)
    // With an expiry in the same body: neither is written.
    const patch = await send('PATCH', `${KEYS}/${key.id}`, { expires_in_days: 5, roles: ['auditor'] })
    expect(problem(patch)).toMatchObject({
      status: 422,
      detail: [{ type: 'role_unknown', loc: ['body', 'roles', '0'] }],
    })
    expect(await keyward.findKey(key.id)).toMatchObject({ expiresAt: null, roleIds: [expect.any(String)] })
    for (const [roles, type] of [
      ['billing', 'list_type'],
      [[''], 'string_too_short'],
    ] as const) {
      const r = await send('POST', KEYS, { roles })
      expect([r.status, r.json.detail[0].type]).toEqual([422, type])
    }
    // A developer key holds no roles.
    const developer = await send('POST', '/api/v1/auth/developer-keys', { roles: ['billing'] })
    expect([developer.status, developer.json.detail[0].type]).toEqual([422, 'extra_forbidden'])
  })

  it('keep a role keys hold 409, naming how many, and with detach=true take it from them and delete it', async () => {
    const { send, create, createKey, allowed, keyward } = await roles()
    const billing = await create({ name: 'billing', permissions: ['billing:read'] })
    const a = await createKey({ roles: ['billing'], permissions: ['admin'] })
    const b = await createKey({ roles: ['billing'] })
    const kept = await send('DELETE', `${ROLES}/${billing.id}`)
    expect(problem(kept)).toEqual({
      status: 409,
      detail: [
        {
          loc: ['path', 'role_id'],
          msg: '2 keys hold the role: take it from them first, or delete it with detach.',
          type: 'role_in_use',
        },
      ],
    })
    expect((await send('GET', `${ROLES}/${billing.id}`)).status).toBe(200)
    expect(await allowed(a.key, 'billing:read')).toBe('ok')
    const deleted = await send('DELETE', `${ROLES}/${billing.id}?detach=true`)
    expect(deleted.status).toBe(200)
    expect(deleted.json.detached_keys.sort()).toEqual([a.id, b.id].sort())
    expect((await send('GET', `${KEYS}/${a.id}`)).json).toMatchObject({ roles: null, permissions: ['admin'] })
    expect(await allowed(a.key, 'billing:read')).toBe('permission_denied')
    const rows = (await keyward.listAudit('d1')).records.map((row) => row.action)
    expect(rows.filter((action) => action === 'role.deleted')).toHaveLength(1)
  })

  it("change every key's permissions when its role changes", async () => {
    const { send, create, createKey, allowed } = await roles()
    const billing = await create({ name: 'billing', permissions: ['billing:read'] })
    const key = await createKey({ roles: ['billing'] })
    expect(await allowed(key.key, 'billing:write')).toBe('permission_denied')
    await send('PATCH', `${ROLES}/${billing.id}`, { permissions: ['billing:read', 'billing:write'] })
    expect(await allowed(key.key, 'billing:write and billing:read')).toBe('ok')
    await send('PATCH', `${ROLES}/${billing.id}`, { permissions: [] })
    expect(await allowed(key.key, 'billing:read')).toBe('permission_denied')
  })
})
