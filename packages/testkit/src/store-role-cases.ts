import type { KeyStore, RoleRecord, RoleStore } from '@keyward/core'
import { expect, it } from 'vitest'
import type { StoreHarness } from './store-conformance.js'
import { connectedFeed, recordFor, reportsEach } from './store-record.js'

let counter = 0
const uniqueProject = () => `proj-role-${Date.now().toString(36)}-${(counter++).toString(36)}`

const second = (offsetMs = 0) => new Date(Math.floor(Date.now() / 1000) * 1000 + offsetMs)

/** @internal A new role of `projectId`, as a service would build it. */
export function roleFor(
  projectId: string,
  name: string,
  permissions: readonly string[],
  createdAt = second(),
): RoleRecord {
  return { id: crypto.randomUUID(), projectId, name, permissions, createdAt, updatedAt: createdAt }
}

const NO_ROLES = 'the store keeps no roles (store.roles is optional)'

async function withRoles(
  make: () => Promise<StoreHarness>,
): Promise<{ store: KeyStore; roles: RoleStore } | null> {
  const { store } = await make()
  return store.roles ? { store, roles: store.roles } : null
}

/**
 * @internal The conformance cases of a store's roles (`store.roles`), registered inside the
 * suite's `describe`: each skipped, saying why, for a store that keeps none.
 */
export function roleCases(make: () => Promise<StoreHarness>): void {
  it('inserts a role, finds it by id, by name and among ids, and keeps names unique in a project (when it keeps roles)', async (context) => {
    const given = await withRoles(make)
    if (!given) return context.skip(NO_ROLES)
    const { roles } = given
    const project = uniqueProject()
    const billing = roleFor(project, 'billing', ['billing:read', 'reports:*'])
    expect(await roles.insertRole(billing)).toEqual(billing)
    expect(await roles.insertRole(roleFor(project, 'billing', []))).toBeNull()
    expect(await roles.findRole(billing.id)).toEqual(billing)
    expect(await roles.findRole(crypto.randomUUID())).toBeNull()
    expect(await roles.findRolesByName(project, ['billing', 'nope'])).toEqual([billing])
    expect(await roles.findRolesByName(uniqueProject(), ['billing'])).toEqual([])
    expect(await roles.findRoles([billing.id, crypto.randomUUID()])).toEqual([billing])
    const other = roleFor(uniqueProject(), 'billing', [])
    expect(await roles.insertRole(other)).toEqual(other)
  })

  it("lists a project's roles newest first, a page at a time, and renames one unless the name is taken (when it keeps roles)", async (context) => {
    const given = await withRoles(make)
    if (!given) return context.skip(NO_ROLES)
    const { roles } = given
    const project = uniqueProject()
    // One reading of the clock: two readings may fall on either side of a second's boundary.
    const base = second()
    const at = (offsetMs: number) => new Date(base.getTime() + offsetMs)
    const made = [0, 1, 2].map((i) => roleFor(project, `role-${i}`, [], at(i * 1000)))
    for (const role of made) await roles.insertRole(role)
    const first = await roles.listRolesPage(project, { limit: 2 })
    expect(first.records.map((role) => role.name)).toEqual(['role-2', 'role-1'])
    const rest = await roles.listRolesPage(project, { limit: 2, after: first.next! })
    expect(rest.records.map((role) => role.name)).toEqual(['role-0'])
    expect(rest.next).toBeNull()
    expect(await roles.updateRole(made[0]!.id, { name: 'role-1' }, at(5000))).toBe('name_taken')
    const renamed = await roles.updateRole(made[0]!.id, { name: 'zero', permissions: ['admin'] }, at(5000))
    expect(renamed).toEqual({ ...made[0], name: 'zero', permissions: ['admin'], updatedAt: at(5000) })
    expect(await roles.findRolesByName(project, ['role-0', 'zero'])).toEqual([renamed])
    expect(await roles.updateRole(crypto.randomUUID(), { name: 'x' }, second())).toBeNull()
  })

  it('keeps the roles of a key inserted with them, and deletes a held role only when asked to detach it (when it keeps roles)', async (context) => {
    const given = await withRoles(make)
    if (!given) return context.skip(NO_ROLES)
    const { store, roles } = given
    const project = uniqueProject()
    const billing = (await roles.insertRole(roleFor(project, 'billing', ['billing:read'])))!
    const admin = (await roles.insertRole(roleFor(project, 'admin', ['*'])))!
    const key = await store.insertKey({
      ...(await recordFor(undefined, 'project', project)),
      roleIds: [billing.id, admin.id],
    })
    expect((await store.findKeyById(key.id))?.roleIds).toEqual([billing.id, admin.id])
    expect(await roles.deleteRole(billing.id, false)).toMatchObject({ kept: billing, keys: 1 })
    expect(await roles.findRole(billing.id)).toEqual(billing)
    const deleted = await roles.deleteRole(billing.id, true)
    expect(deleted && 'deleted' in deleted && deleted.detached.map((k) => k.id)).toEqual([key.id])
    expect(await roles.findRole(billing.id)).toBeNull()
    expect((await store.findKeyById(key.id))?.roleIds).toEqual([admin.id])
    expect(await roles.deleteRole(billing.id, true)).toBeNull()
    const updated = await store.setKeyPolicies?.(key.id, { roleIds: null })
    if (updated) expect(updated.roleIds ?? null).toBeNull()
    expect(await roles.deleteRole(admin.id, false)).toMatchObject({ deleted: admin, detached: [] })
  })

  it("a change feed reports a role's change and deletion for each key that holds it (when it keeps roles)", async (context) => {
    const given = await withRoles(make)
    if (!given) return context.skip(NO_ROLES)
    const { store, roles } = given
    const feed = await connectedFeed(store, context)
    const project = uniqueProject()
    const billing = (await roles.insertRole(roleFor(project, 'billing', ['billing:read'])))!
    const keys = await Promise.all(
      [1, 2].map(async () =>
        store.insertKey({ ...(await recordFor(undefined, 'project', project)), roleIds: [billing.id] }),
      ),
    )
    await reportsEach(feed, keys, () =>
      roles.updateRole(billing.id, { permissions: ['billing:read', 'billing:write'] }, second()),
    )
    await reportsEach(feed, keys, () => roles.deleteRole(billing.id, true))
  })
}
