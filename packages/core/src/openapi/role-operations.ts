import type { ApiOperation } from './operations.js'

const ROLES = '/api/v1/projects/{project_id}/roles'
const BODY_ERRORS = [413, 415, 422]

/** @internal The roles' operations, guarded by the developer key of the project's owner. */
export const ROLE_OPERATIONS: readonly ApiOperation[] = [
  {
    method: 'post',
    path: ROLES,
    operationId: 'createRole',
    summary:
      'Create a role in a project of the calling developer: a name for a set of declared permissions (wildcards among them), given to API keys by name.',
    tag: 'Roles',
    credential: 'owner',
    body: { schema: 'CreateRoleBody', required: true },
    success: { status: 201, schema: 'Role' },
    errors: [409, ...BODY_ERRORS],
    keyRoute: 'roles',
  },
  {
    method: 'get',
    path: ROLES,
    operationId: 'listRoles',
    summary: "List a project's roles, newest first, a page at a time.",
    tag: 'Roles',
    credential: 'owner',
    query: ['limit', 'cursor'],
    success: { status: 200, schema: 'RoleList' },
    errors: [422],
    keyRoute: 'roles',
  },
  {
    method: 'get',
    path: `${ROLES}/{role_id}`,
    operationId: 'getRole',
    summary: "One of a project's roles (404 for any other).",
    tag: 'Roles',
    credential: 'owner',
    success: { status: 200, schema: 'Role' },
    errors: [404],
    keyRoute: 'roles',
  },
  {
    method: 'patch',
    path: `${ROLES}/{role_id}`,
    operationId: 'updateRole',
    summary:
      "Change a role's name or permissions; every key that holds it has the new permissions within the revocation bound.",
    tag: 'Roles',
    credential: 'owner',
    body: { schema: 'UpdateRoleBody', required: true },
    success: { status: 200, schema: 'Role' },
    errors: [404, 409, ...BODY_ERRORS],
    keyRoute: 'roles',
  },
  {
    method: 'delete',
    path: `${ROLES}/{role_id}`,
    operationId: 'deleteRole',
    summary:
      'Delete a role: 409 `role_in_use` (naming how many keys hold it) while keys hold it, unless `detach=true`, which takes it from them in the same transaction.',
    tag: 'Roles',
    credential: 'owner',
    query: ['detach'],
    success: { status: 200, schema: 'DeletedRole' },
    errors: [404, 409, 422],
    keyRoute: 'roles',
  },
]
