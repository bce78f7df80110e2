import { describe, expect, it } from 'vitest'
import { MemoryKeyStore } from '../store/memory.js'
import { rejection } from '../test/rejection.js'
import { createKeyward } from './keyward.js'

const PERMISSIONS = ['reports:read', 'reports:write', 'billing:read', 'billing:write', 'admin']

function setup(cache = false) {
  const store = new MemoryKeyStore()
  const options = {
    projectOwner: (projectId: string) => ({ proj_a: 'dev_a', proj_b: 'dev_b' })[projectId] ?? null,
    permissions: PERMISSIONS,
    ...(cache ? { cache: {} } : {}),
  }
  // Two services over one store: the second hears the first's writes only through the feed.
  return { store, keyward: createKeyward({ store, ...options }), other: createKeyward({ store, ...options }) }
}

const actions = async (keyward: ReturnType<typeof setup>['keyward']) =>
  (await keyward.listAudit('dev_a')).records.map((row) => `${row.action} ${row.targetType}`)

describe('roles', () => {
  it('give a key their permissions besides its own, as a key with roles and no permissions has only theirs', async () => {
    const { keyward } = setup()
    await keyward.createRole('proj_a', { name: 'billing', permissions: ['billing:read', 'billing:write'] })
    await keyward.createRole('proj_a', { name: 'reader', permissions: ['reports:*'] })
    const { key } = await keyward.issueProjectKey('proj_a', {
      roles: ['billing', 'reader'],
      permissions: ['admin'],
    })
    const onlyRoles = (await keyward.issueProjectKey('proj_a', { roles: ['billing'] })).key
    const check = (projectKey: string, permissions: string) =>
      keyward.authenticate({ projectKey }, { scope: 'project', projectId: 'proj_a', permissions }).then(
        () => 'ok',
        (error) => error.type,
      )
    expect(await check(key, 'admin and billing:write and reports:write')).toBe('ok')
    expect(await check(onlyRoles, 'billing:read')).toBe('ok')
    expect(await check(onlyRoles, 'admin')).toBe('permission_denied')
    expect(await check(onlyRoles, 'reports:read or billing:write')).toBe('ok')
    const auth = await keyward.authenticate(
      { projectKey: onlyRoles },
      { scope: 'project', projectId: 'proj_a' },
    )
    expect(auth.permissions).toEqual(['billing:read', 'billing:write'])
  })

  it('reach every key that holds them when they change, in another service through the feed, cached', async () => {
    const { keyward, other } = setup(true)
    const role = await keyward.createRole('proj_a', { name: 'billing', permissions: ['billing:read'] })
    const { key } = await keyward.issueProjectKey('proj_a', { roles: ['billing'] })
    const check = () =>
      other
        .authenticate(
          { projectKey: key },
          { scope: 'project', projectId: 'proj_a', permissions: 'billing:write' },
        )
        .then(
          () => 'ok',
          (error) => error.type,
        )
    expect(await check()).toBe('permission_denied')
    expect(await check()).toBe('permission_denied')
    expect(other.cacheStats()?.hits).toBeGreaterThan(0)
    await keyward.updateRole(role.id, { permissions: ['billing:read', 'billing:write'] })
    expect(await check()).toBe('ok')
    await keyward.updateRole(role.id, { permissions: [] })
    expect(await check()).toBe('permission_denied')
  })

  it('are refused with 409 on deletion while keys hold them, unless detached in the same call', async () => {
    const { keyward } = setup(true)
    const role = await keyward.createRole('proj_a', { name: 'admin', permissions: ['*'] })
    const { key, record } = await keyward.issueProjectKey('proj_a', { roles: ['admin'], permissions: [] })
    const admin = () =>
      keyward
        .authenticate({ projectKey: key }, { scope: 'project', projectId: 'proj_a', permissions: 'admin' })
        .then(
          () => 'ok',
          (error) => error.type,
        )
    expect(await admin()).toBe('ok')
    expect(await rejection(keyward.deleteRole(role.id))).toMatchObject({
      type: 'role_in_use',
      status: 409,
      loc: ['path', 'role_id'],
      msg: '1 key holds the role: take it from them first, or delete it with detach.',
    })
    expect(await keyward.findRole(role.id)).toEqual(role)
    const deleted = await keyward.deleteRole(role.id, { detach: true })
    expect(deleted?.detached.map((detached) => detached.id)).toEqual([record.id])
    expect(await keyward.findRole(role.id)).toBeNull()
    expect((await keyward.findKey(record.id))?.roleIds ?? null).toBeNull()
    expect(await admin()).toBe('permission_denied')
    expect(await actions(keyward)).toEqual(
      expect.arrayContaining(['role.created role', 'role.deleted role', 'key.policies_set key']),
    )
  })

  it('are given and taken by name with setKeyPolicies, kept by a roll, audited', async () => {
    const { keyward } = setup()
    const billing = await keyward.createRole('proj_a', { name: 'billing', permissions: ['billing:read'] })
    const { record } = await keyward.issueProjectKey('proj_a', { permissions: [] })
    const updated = await keyward.setKeyPolicies(record.id, { roles: ['billing'] })
    expect(updated?.roleIds).toEqual([billing.id])
    const rolled = await keyward.rollKey(record.id)
    expect(rolled?.record.roleIds).toEqual([billing.id])
    expect((await keyward.setKeyPolicies(record.id, { roles: null }))?.roleIds ?? null).toBeNull()
    const rows = (await keyward.listAudit('dev_a')).records.filter((row) => row.action === 'key.policies_set')
    expect(rows[0]).toMatchObject({ after: { role_ids: null } })
    expect(rows[1]).toMatchObject({ after: { role_ids: [billing.id] } })
  })

  it('refuse what is not theirs: unknown names, another project, duplicates, developer keys, bad values', async () => {
    const { keyward } = setup()
    await keyward.createRole('proj_b', { name: 'billing', permissions: ['billing:read'] })
    expect(await rejection(keyward.issueProjectKey('proj_a', { roles: ['billing'] }))).toMatchObject({
      type: 'role_unknown',
      status: 422,
      loc: ['body', 'roles', '0'],
    })
    expect(await rejection(keyward.issueDeveloperKey('dev_a', { roles: ['billing'] }))).toMatchObject({
      type: 'value_error',
      loc: ['body'],
    })
    expect(await rejection(keyward.createRole('proj_b', { name: 'billing', permissions: [] }))).toMatchObject(
      { type: 'role_exists', status: 409, loc: ['body', 'name'] },
    )
    expect(
      await rejection(keyward.createRole('proj_a', { name: 'x'.repeat(101), permissions: [] })),
    ).toMatchObject({ type: 'string_too_long', loc: ['body', 'name'] })
    expect(
      await rejection(keyward.createRole('proj_a', { name: 'ops', permissions: ['nope'] })),
    ).toMatchObject({ type: 'permission_unknown', loc: ['body', 'permissions', '0'] })
    const ops = await keyward.createRole('proj_a', { name: 'ops', permissions: ['admin'] })
    await keyward.createRole('proj_a', { name: 'billing', permissions: [] })
    expect(await rejection(keyward.updateRole(ops.id, { name: 'billing' }))).toMatchObject({
      type: 'role_exists',
    })
    expect(await keyward.updateRole(ops.id, { name: 'operations' })).toMatchObject({ name: 'operations' })
    expect(await keyward.listRolesPage('proj_a')).toMatchObject({ next: null })
    expect((await keyward.listRolesPage('proj_a')).records.map((role) => role.name).sort()).toEqual([
      'billing',
      'operations',
    ])
    expect(await actions(keyward)).toEqual(expect.arrayContaining(['role.created role', 'role.updated role']))
  })
})
