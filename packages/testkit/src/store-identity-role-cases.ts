import type { IdentityRecord, IdentityStore, KeyStore, RoleStore } from '@keyward/core'
import { expect, it } from 'vitest'
import type { StoreHarness } from './store-conformance.js'
import { identityFor } from './store-identity-cases.js'
import { connectedFeed, recordFor, reportsEach } from './store-record.js'
import { roleFor } from './store-role-cases.js'

let counter = 0
const uniqueProject = () => `proj-idrole-${Date.now().toString(36)}-${(counter++).toString(36)}`

const second = (offsetMs = 0) => new Date(Math.floor(Date.now() / 1000) * 1000 + offsetMs)

// An identity of `projectId` that holds these roles.
const holding = (projectId: string, externalId: string, roleIds: readonly string[]): IdentityRecord => ({
  ...identityFor(projectId, externalId),
  roleIds,
})

type Given = { store: KeyStore; roles: RoleStore; identities: IdentityStore }

// Why a case skips: the store keeps no roles, or no identities to hold them.
async function withIdentityRoles(make: () => Promise<StoreHarness>): Promise<Given | string> {
  const { store } = await make()
  if (!store.roles) return 'the store keeps no roles (store.roles is optional)'
  if (!store.identities) return 'the store keeps no identities (store.identities is optional)'
  return { store, roles: store.roles, identities: store.identities }
}

/**
 * @internal The conformance cases of the roles an identity holds (`IdentityRecord.roleIds`),
 * registered inside the suite's `describe`: each skipped, saying why, for a store that keeps no
 * roles or no identities.
 */
export function identityRoleCases(make: () => Promise<StoreHarness>): void {
  it("keeps an identity's roles as inserted, changed and cleared (when it keeps roles)", async (context) => {
    const given = await withIdentityRoles(make)
    if (typeof given === 'string') return context.skip(given)
    const { roles, identities } = given
    const project = uniqueProject()
    const billing = (await roles.insertRole(roleFor(project, 'billing', ['billing:read'])))!
    const admin = (await roles.insertRole(roleFor(project, 'admin', ['*'])))!
    const acme = holding(project, 'acme', [billing.id, admin.id])
    expect(await identities.insertIdentity(acme)).toEqual(acme)
    expect((await identities.findIdentity(acme.id))?.roleIds).toEqual([billing.id, admin.id])
    const changed = await identities.updateIdentity(acme.id, { roleIds: [admin.id] }, second(1000))
    expect(changed?.roleIds).toEqual([admin.id])
    expect((await identities.findIdentityByExternalId(project, 'acme'))?.roleIds).toEqual([admin.id])
    // A change of other fields leaves them.
    await identities.updateIdentity(acme.id, { metadata: { plan: 'pro' } }, second(2000))
    expect((await identities.findIdentity(acme.id))?.roleIds).toEqual([admin.id])
    const cleared = await identities.updateIdentity(acme.id, { roleIds: null }, second(3000))
    expect(cleared?.roleIds ?? null).toBeNull()
    expect((await identities.findIdentity(acme.id))?.roleIds ?? null).toBeNull()
  })

  it('counts the identities that hold a role it keeps, and detaches it from them and the keys at once (when it keeps roles)', async (context) => {
    const given = await withIdentityRoles(make)
    if (typeof given === 'string') return context.skip(given)
    const { store, roles, identities } = given
    const project = uniqueProject()
    const billing = (await roles.insertRole(roleFor(project, 'billing', ['billing:read'])))!
    const admin = (await roles.insertRole(roleFor(project, 'admin', ['*'])))!
    const acme = (await identities.insertIdentity(holding(project, 'acme', [billing.id, admin.id])))!
    const globex = (await identities.insertIdentity(holding(project, 'globex', [billing.id])))!
    expect(await roles.deleteRole(billing.id, false)).toEqual({ kept: billing, keys: 0, identities: 2 })
    const key = await store.insertKey({
      ...(await recordFor(undefined, 'project', project)),
      roleIds: [billing.id],
    })
    expect(await roles.deleteRole(billing.id, false)).toEqual({ kept: billing, keys: 1, identities: 2 })
    expect(await roles.findRole(billing.id)).toEqual(billing)
    const deleted = await roles.deleteRole(billing.id, true)
    if (!deleted || !('deleted' in deleted)) throw new Error(`not deleted: ${JSON.stringify(deleted)}`)
    expect(deleted.detached.map((k) => k.id)).toEqual([key.id])
    expect(deleted.detachedIdentities?.map((identity) => identity.id).sort()).toEqual(
      [acme.id, globex.id].sort(),
    )
    expect((await identities.findIdentity(acme.id))?.roleIds).toEqual([admin.id])
    expect((await identities.findIdentity(globex.id))?.roleIds ?? null).toBeNull()
    expect((await store.findKeyById(key.id))?.roleIds ?? null).toBeNull()
    expect(await roles.findRole(billing.id)).toBeNull()
  })

  it("a change feed reports a role's change and deletion for each key whose identity holds it (when it keeps roles)", async (context) => {
    const given = await withIdentityRoles(make)
    if (typeof given === 'string') return context.skip(given)
    const { store, roles, identities } = given
    const feed = await connectedFeed(store, context)
    const project = uniqueProject()
    const billing = (await roles.insertRole(roleFor(project, 'billing', ['billing:read'])))!
    const acme = (await identities.insertIdentity(holding(project, 'acme', [billing.id])))!
    const keys = await Promise.all(
      [1, 2].map(async () =>
        store.insertKey({ ...(await recordFor(undefined, 'project', project)), identityId: acme.id }),
      ),
    )
    await reportsEach(feed, keys, () =>
      roles.updateRole(billing.id, { permissions: ['billing:read', 'billing:write'] }, second()),
    )
    await reportsEach(feed, keys, () => identities.updateIdentity(acme.id, { roleIds: null }, second(1000)))
    await reportsEach(feed, keys, () =>
      identities.updateIdentity(acme.id, { roleIds: [billing.id] }, second(2000)),
    )
    await reportsEach(feed, keys, () => roles.deleteRole(billing.id, true))
  })
}
