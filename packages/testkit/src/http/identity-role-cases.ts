import { apiKey, error, get, type HttpCase, ROUTES } from './case.js'
import { assert, del, patch, post } from './endpoint-cases.js'
import { IDENTITIES } from './identity-cases.js'
import { ROLES } from './role-cases.js'
import type { ConformanceWorld } from './world.js'

// What a case made before its request, kept to check the world after the answer.
const made = new WeakMap<ConformanceWorld, { identityId: string; roleId: string; key: string }>()

/**
 * A role `name` of proj-1 giving `reports:read`, an identity holding it and a key of the identity
 * without permissions of its own (it may do what its identity's role allows, nothing else);
 * kept in `made`.
 */
async function identityWithRole(w: ConformanceWorld, name: string) {
  const role = await w.keyward.createRole('proj-1', { name, permissions: ['reports:read'] })
  const identity = await w.keyward.createIdentity('proj-1', {
    externalId: `customer_role_${name}`,
    roles: [name],
  })
  const { key } = await w.keyward.issueProjectKey('proj-1', { identityId: identity.id, permissions: [] })
  made.set(w, { identityId: identity.id, roleId: role.id, key })
  return made.get(w)!
}

const identityRoleIds = async (w: ConformanceWorld) =>
  (await w.keyward.findIdentity(made.get(w)!.identityId))?.roleIds ?? null

// Whether the key `made` holds is refused `reports:read`, which only its identity's role gave it.
const keyRefused = async (w: ConformanceWorld) =>
  w.keyward
    .authenticate(
      { projectKey: made.get(w)!.key },
      { scope: 'project', projectId: 'proj-1', permissions: 'reports:read' },
    )
    .then(
      () => false,
      (failure) => failure.type === 'permission_denied',
    )

/**
 * The roles of identities on every adapter: given by name at creation and shown by name, a key
 * that passes a guard through its identity's role and is refused once the identity's roles are
 * cleared, an unknown role, and a role's deletion while identities hold it (refused, or detached).
 */
export const identityRoleCases: readonly HttpCase[] = [
  {
    name: 'identity roles: POST gives an identity roles by name, and it shows them by name',
    request: async (w) => {
      await w.keyward.createRole('proj-1', { name: 'support', permissions: ['reports:read'] })
      return post(IDENTITIES('proj-1'), w.keys.d1, '{"external_id":"customer_support","roles":["support"]}')
    },
    expect: {
      status: 201,
      check: async (body, w) => {
        assert(JSON.stringify(body.roles) === '["support"]', 'the roles by name', body)
        const [role] = await w.keyward.findRolesByName('proj-1', ['support'])
        const stored = await w.keyward.findIdentity(body.id)
        assert(JSON.stringify(stored?.roleIds) === JSON.stringify([role?.id]), 'held by id', stored)
      },
    },
  },
  {
    name: "identity roles: a key without permissions passes a guard through its identity's role",
    request: async (w) => get(ROUTES.permitted('proj-1'), apiKey((await identityWithRole(w, 'viewer')).key)),
    expect: { status: 200 },
  },
  {
    name: "identity roles: PATCH roles null clears them, and the identity's key is refused what they gave it",
    request: async (w) => {
      const { identityId, key } = await identityWithRole(w, 'cleared')
      await w.keyward.authenticate({ projectKey: key }, { scope: 'project', projectId: 'proj-1' })
      return patch(`${IDENTITIES('proj-1')}/${identityId}`, w.keys.d1, '{"roles":null}')
    },
    expect: {
      status: 200,
      check: (body) => assert(body.roles === null, 'no roles shown', body),
      afterwards: async (w) => {
        assert((await identityRoleIds(w)) === null, 'no role left', made.get(w))
        assert(await keyRefused(w), 'the key is refused', made.get(w))
      },
    },
  },
  {
    name: "identity roles: an identity's creation with an unknown role is 422 role_unknown naming it, and none is made",
    request: (w) =>
      post(IDENTITIES('proj-1'), w.keys.d1, '{"external_id":"customer_unknown","roles":["auditor"]}'),
    expect: {
      ...error(422, 'role_unknown', ['body', 'roles', '0'], 'The project has no role named "auditor".'),
      afterwards: async (w) =>
        assert(
          (await w.keyward.findIdentityByExternalId('proj-1', 'customer_unknown')) === null,
          'no identity',
          'customer_unknown',
        ),
    },
  },
  {
    name: 'identity roles: DELETE of a role an identity holds is 409 role_in_use, saying so, and it stays',
    request: async (w) => del(`${ROLES('proj-1')}/${(await identityWithRole(w, 'kept')).roleId}`, w.keys.d1),
    expect: {
      ...error(
        409,
        'role_in_use',
        ['path', 'role_id'],
        '1 identity holds the role: take it from them first, or delete it with detach.',
      ),
      afterwards: async (w) =>
        assert((await identityRoleIds(w))?.length === 1, 'the identity holds it', made.get(w)),
    },
  },
  {
    name: 'identity roles: DELETE ?detach=true takes the role from its identities, and their keys are refused',
    request: async (w) => {
      const { roleId } = await identityWithRole(w, 'detached')
      return del(`${ROLES('proj-1')}/${roleId}?detach=true`, w.keys.d1)
    },
    expect: {
      status: 200,
      check: (body, w) =>
        assert(
          body.id === made.get(w)!.roleId &&
            body.deleted === true &&
            JSON.stringify(body.detached_identities) === JSON.stringify([made.get(w)!.identityId]),
          'deleted, and detached from its identity',
          body,
        ),
      afterwards: async (w) => {
        assert((await identityRoleIds(w)) === null, 'the identity holds no role', made.get(w))
        assert(await keyRefused(w), 'the key is refused', made.get(w))
      },
    },
  },
]
