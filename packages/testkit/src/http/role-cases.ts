import { apiKey, developerKey, error, get, type HttpCase, ROUTES } from './case.js'
import { API_KEYS, assert, CREATED_AT, del, post } from './endpoint-cases.js'
import type { ConformanceWorld } from './world.js'

/** The roles of a project. */
export const ROLES = (projectId: string) => `/api/v1/projects/${projectId}/roles`

const ROLE_FIELDS = ['id', 'project_id', 'name', 'permissions', 'created_at', 'updated_at']

// What a case made before its request, kept to check the world after the answer.
const made = new WeakMap<ConformanceWorld, { roleId: string; keyIds: string[] }>()

/** A role of proj-1 with `permissions`, held by `holders` new API keys; kept in `made`. */
async function roleWithKeys(w: ConformanceWorld, name: string, permissions: string[], holders: number) {
  const role = await w.keyward.createRole('proj-1', { name, permissions })
  const keys = []
  for (let i = 0; i < holders; i++) keys.push(await w.keyward.issueProjectKey('proj-1', { roles: [name] }))
  made.set(w, { roleId: role.id, keyIds: keys.map((key) => key.record.id) })
  return { role, keys }
}

const roleNames = async (w: ConformanceWorld) =>
  (await w.keyward.listRolesPage('proj-1')).records.map((role) => role.name)

/**
 * Roles on every adapter: creation in the role's shape, a taken name, an undeclared permission,
 * a key that passes a guard through its role (and is refused once the role changes), deletion
 * (kept while keys hold it, or detached), an unknown role given to a key, another project's role.
 */
export const roleCases: readonly HttpCase[] = [
  {
    name: 'roles: POST creates a role, 201 in its shape',
    request: (w) =>
      post(ROLES('proj-1'), w.keys.d1, '{"name":"created","permissions":["reports:read","reports:*"]}'),
    expect: {
      status: 201,
      check: (body) => {
        assert(JSON.stringify(Object.keys(body)) === JSON.stringify(ROLE_FIELDS), 'fields in order', body)
        assert(
          body.project_id === 'proj-1' &&
            body.name === 'created' &&
            JSON.stringify(body.permissions) === '["reports:read","reports:*"]' &&
            body.created_at === CREATED_AT,
          'the role as given',
          body,
        )
      },
    },
  },
  {
    name: 'roles: a second role of one name is 409 role_exists',
    request: async (w) => {
      await w.keyward.createRole('proj-1', { name: 'taken', permissions: [] })
      return post(ROLES('proj-1'), w.keys.d1, '{"name":"taken","permissions":[]}')
    },
    expect: error(409, 'role_exists', ['body', 'name']),
  },
  {
    name: 'roles: an undeclared permission is 422 permission_unknown at its index, and no role is made',
    request: (w) =>
      post(ROLES('proj-1'), w.keys.d1, '{"name":"undeclared","permissions":["reports:read","nope"]}'),
    expect: {
      ...error(422, 'permission_unknown', ['body', 'permissions', '1']),
      afterwards: async (w) => assert(!(await roleNames(w)).includes('undeclared'), 'no role', 'undeclared'),
    },
  },
  {
    name: "roles: a key passes a guard through its role's permission",
    request: async (w) => {
      const { keys } = await roleWithKeys(w, 'reader', ['reports:read'], 1)
      return get(ROUTES.permitted('proj-1'), apiKey(keys[0]!.key))
    },
    expect: { status: 200 },
  },
  {
    name: 'roles: once the permission is taken from its role, the key is refused, naming it',
    request: async (w) => {
      const { role, keys } = await roleWithKeys(w, 'narrowed', ['reports:read'], 1)
      const presented = keys[0]!.key
      await w.keyward.authenticate({ projectKey: presented }, { scope: 'project', projectId: 'proj-1' })
      await w.keyward.updateRole(role.id, { permissions: ['reports:write'] })
      return get(ROUTES.permitted('proj-1'), apiKey(presented))
    },
    expect: error(
      403,
      'permission_denied',
      ['header', 'x-api-key'],
      'The API key lacks the permission reports:read.',
    ),
  },
  {
    name: 'roles: DELETE of a role keys hold is 409 role_in_use, saying how many, and it stays',
    request: async (w) => {
      const { role } = await roleWithKeys(w, 'held', ['reports:read'], 2)
      return del(`${ROLES('proj-1')}/${role.id}`, w.keys.d1)
    },
    expect: {
      ...error(
        409,
        'role_in_use',
        ['path', 'role_id'],
        '2 keys hold the role: take it from them first, or delete it with detach.',
      ),
      afterwards: async (w) => assert((await roleNames(w)).includes('held'), 'the role stays', 'held'),
    },
  },
  {
    name: 'roles: DELETE ?detach=true takes it from its keys and deletes it',
    request: async (w) => {
      const { role } = await roleWithKeys(w, 'detached', ['reports:read'], 1)
      return del(`${ROLES('proj-1')}/${role.id}?detach=true`, w.keys.d1)
    },
    expect: {
      status: 200,
      check: (body, w) => {
        const { roleId, keyIds } = made.get(w)!
        assert(
          body.id === roleId &&
            body.deleted === true &&
            JSON.stringify(body.detached_keys) === JSON.stringify(keyIds),
          'deleted, and detached from its key',
          body,
        )
      },
      afterwards: async (w) => {
        const [keyId] = made.get(w)!.keyIds
        assert(!(await w.keyward.findKey(keyId!))?.roleIds?.length, 'the key holds no role', keyId)
      },
    },
  },
  {
    name: "roles: an API key's creation with an unknown role is 422 role_unknown naming it",
    request: (w) => post(API_KEYS('proj-1'), w.keys.d1, '{"roles":["auditor"]}'),
    expect: error(422, 'role_unknown', ['body', 'roles', '0'], 'The project has no role named "auditor".'),
  },
  {
    name: "roles: another project's role is 404",
    request: async (w) => {
      const theirs = await w.keyward.createRole('proj-2', { name: 'theirs', permissions: [] })
      return get(`${ROLES('proj-1')}/${theirs.id}`, developerKey(w.keys.d1))
    },
    expect: error(404, 'not_found', ['path', 'role_id'], 'Role not found.'),
  },
]
