import { describe, expect, it } from 'vitest'
import { MemoryKeyStore } from '../store/memory.js'
import { rejection } from '../test/rejection.js'
import { createKeyward } from './keyward.js'

const PERMISSIONS = ['reports:read', 'billing:read', 'billing:write', 'admin']

function setup() {
  const store = new MemoryKeyStore()
  const options = {
    projectOwner: (projectId: string) => ({ proj_a: 'dev_a' })[projectId] ?? null,
    permissions: PERMISSIONS,
    cache: {},
  }
  // Two services over one store: the second hears the first's writes only through the feed.
  return { keyward: createKeyward({ store, ...options }), other: createKeyward({ store, ...options }) }
}

type Service = ReturnType<typeof setup>['keyward']

const check = (keyward: Service, projectKey: string, permissions: string) =>
  keyward.authenticate({ projectKey }, { scope: 'project', projectId: 'proj_a', permissions }).then(
    () => 'ok',
    (error) => error.type,
  )

describe("an identity's roles", () => {
  it('give every key of the identity their permissions, through the feed and the cache, until they change or are cleared', async () => {
    const { keyward, other } = setup()
    const billing = await keyward.createRole('proj_a', { name: 'billing', permissions: ['billing:read'] })
    const identity = await keyward.createIdentity('proj_a', { externalId: 'acme', roles: ['billing'] })
    expect(identity.roleIds).toEqual([billing.id])
    const { key } = await keyward.issueProjectKey('proj_a', {
      identityId: identity.id,
      permissions: ['reports:read'],
    })
    expect(await check(other, key, 'billing:read and reports:read')).toBe('ok')
    expect(await check(other, key, 'billing:read')).toBe('ok')
    expect(other.cacheStats()?.hits).toBeGreaterThan(0)
    const auth = await other.authenticate({ projectKey: key }, { scope: 'project', projectId: 'proj_a' })
    expect([...(auth.permissions ?? [])].sort()).toEqual(['billing:read', 'reports:read'])

    await keyward.updateRole(billing.id, { permissions: ['billing:write'] })
    expect(await check(other, key, 'billing:read')).toBe('permission_denied')
    expect(await check(other, key, 'billing:write')).toBe('ok')

    const cleared = await keyward.updateIdentity(identity.id, { roles: null })
    expect(cleared?.roleIds ?? null).toBeNull()
    expect(await check(other, key, 'billing:write')).toBe('permission_denied')
    expect(await check(other, key, 'reports:read')).toBe('ok')

    await keyward.updateIdentity(identity.id, { roles: ['billing'] })
    expect(await check(other, key, 'billing:write')).toBe('ok')
  })

  it('add to the roles of the key, and a key without permissions has only the roles', async () => {
    const { keyward } = setup()
    await keyward.createRole('proj_a', { name: 'billing', permissions: ['billing:read'] })
    await keyward.createRole('proj_a', { name: 'admin', permissions: ['admin'] })
    const identity = await keyward.createIdentity('proj_a', { externalId: 'acme', roles: ['billing'] })
    const { key, record } = await keyward.issueProjectKey('proj_a', {
      identityId: identity.id,
      roles: ['admin'],
    })
    expect(await check(keyward, key, 'billing:read and admin')).toBe('ok')
    expect(await check(keyward, key, 'reports:read')).toBe('permission_denied')
    // The key's listing names its own roles, not its identity's.
    const [named] = await keyward.withRoleNames([(await keyward.findKey(record.id))!])
    expect(named?.roles).toEqual(['admin'])
  })

  it('are refused on deletion while identities hold them, unless detached from keys and identities at once', async () => {
    const { keyward, other } = setup()
    const billing = await keyward.createRole('proj_a', { name: 'billing', permissions: ['billing:read'] })
    const identity = await keyward.createIdentity('proj_a', { externalId: 'acme', roles: ['billing'] })
    const { key, record } = await keyward.issueProjectKey('proj_a', {
      identityId: identity.id,
      roles: ['billing'],
      permissions: [],
    })
    await keyward.createIdentity('proj_a', { externalId: 'globex', roles: ['billing'] })
    expect(await check(other, key, 'billing:read')).toBe('ok')
    expect(await rejection(keyward.deleteRole(billing.id))).toMatchObject({
      type: 'role_in_use',
      status: 409,
      msg: '1 key and 2 identities hold the role: take it from them first, or delete it with detach.',
    })
    await keyward.setKeyPolicies(record.id, { roles: null })
    expect(await rejection(keyward.deleteRole(billing.id))).toMatchObject({
      msg: '2 identities hold the role: take it from them first, or delete it with detach.',
    })
    await keyward.setKeyPolicies(record.id, { roles: ['billing'] })
    expect(await check(other, key, 'billing:read')).toBe('ok')
    const deleted = await keyward.deleteRole(billing.id, { detach: true })
    expect(deleted?.detached.map((detached) => detached.id)).toEqual([record.id])
    expect((await keyward.findIdentity(identity.id))?.roleIds ?? null).toBeNull()
    expect(await check(other, key, 'billing:read')).toBe('permission_denied')
    const rows = (await keyward.listAudit('dev_a')).records.filter(
      (row) => row.action === 'identity.updated' && row.targetId === identity.id,
    )
    expect(rows[0]).toMatchObject({ after: { role_ids: null } })
  })

  it('are named by the project: an unknown name is 422 role_unknown at its index, another field is checked first', async () => {
    const { keyward } = setup()
    await keyward.createRole('proj_a', { name: 'billing', permissions: ['billing:read'] })
    expect(
      await rejection(
        keyward.createIdentity('proj_a', { externalId: 'acme', roles: ['billing', 'auditor'] }),
      ),
    ).toMatchObject({ type: 'role_unknown', status: 422, loc: ['body', 'roles', '1'] })
    expect(await keyward.findIdentityByExternalId('proj_a', 'acme')).toBeNull()
    const identity = await keyward.createIdentity('proj_a', { externalId: 'acme' })
    expect(identity.roleIds ?? null).toBeNull()
    expect(await rejection(keyward.updateIdentity(identity.id, { roles: ['auditor'] }))).toMatchObject({
      type: 'role_unknown',
      loc: ['body', 'roles', '0'],
    })
    expect(
      await rejection(keyward.updateIdentity(identity.id, { roles: 'billing' as unknown as string[] })),
    ).toMatchObject({ type: 'list_type', loc: ['body', 'roles'] })
    const updated = await keyward.updateIdentity(identity.id, { roles: ['billing', 'billing'] })
    expect(updated?.roleIds).toHaveLength(1)
    const rows = (await keyward.listAudit('dev_a')).records.filter((row) => row.action === 'identity.updated')
    expect(rows[0]).toMatchObject({ before: { role_ids: null }, after: { role_ids: updated?.roleIds } })
  })
})
