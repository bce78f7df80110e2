import type { AuditContext } from '../audit/types.js'
import { KeywardError } from '../errors/error.js'
import { ErrorType } from '../errors/types.js'
import { CreateRoleBodySchema, UpdateRoleBodySchema } from '../openapi/role-schemas.js'
import { checkBody } from '../openapi/validate.js'
import type { RoleRecord } from '../roles/model.js'
import type { Keyward } from '../service/keyward.js'
import type { DeveloperAuth } from '../service/requirements.js'
import { auditContext } from './audit-context.js'
import { guardedRoute, nextCursor, respond, UUID } from './guarded-route.js'
import { PAGE_QUERY, readPageQuery } from './page-query.js'
import { flagValue } from './query-parameters.js'
import { roleToJson } from './shapes.js'
import type { Guard, KeyRoute, KeywardRequest } from './types.js'

const BASE = '/api/v1/projects/:project_id/roles'

const notFound = () => new KeywardError(ErrorType.notFound, 'Role not found.', ['path', 'role_id'])

/**
 * @internal The roles' endpoints under `/api/v1/projects/{project_id}/roles`, guarded by `owner`
 * (the developer key of the project's owner): create, list, read, change, delete (409 while keys
 * hold the role, unless `?detach=true`). A role of another project is 404, as an unknown one.
 */
export function roleRoutes(
  keyward: Keyward,
  owner: Guard<DeveloperAuth>,
  body: (request: KeywardRequest) => Promise<Readonly<Record<string, unknown>> | undefined>,
): KeyRoute[] {
  type Caller = { readonly projectId: string; readonly audit: AuditContext }

  // A route on one role of the caller's project, the role named by the path.
  const onRole = (
    method: KeyRoute['method'],
    run: (role: RoleRecord, request: KeywardRequest, caller: Caller) => Promise<unknown>,
    query: readonly string[] = [],
  ) =>
    guardedRoute(
      method,
      `${BASE}/:role_id`,
      owner,
      async (request, auth) => {
        const projectId = auth.projectId!
        const id = request.params.role_id ?? ''
        const role = UUID.test(id) ? await keyward.findRole(id) : null
        if (role === null || role.projectId !== projectId) throw notFound()
        const audit = auditContext(keyward, request, auth)
        return respond(200, await run(role, request, { projectId, audit }))
      },
      query,
    )

  return [
    guardedRoute('POST', BASE, owner, async (request, auth) => {
      const given = checkBody(CreateRoleBodySchema, await body(request))
      const audit = auditContext(keyward, request, auth)
      return respond(201, roleToJson(await keyward.createRole(auth.projectId!, given, audit)))
    }),
    guardedRoute(
      'GET',
      BASE,
      owner,
      async (request, auth) => {
        const { limit, after } = readPageQuery(request)
        const page = await keyward.listRolesPage(auth.projectId!, after ? { limit, after } : { limit })
        return respond(200, { roles: page.records.map(roleToJson), next_cursor: nextCursor(page.next) })
      },
      PAGE_QUERY,
    ),
    onRole('GET', async (role) => roleToJson(role)),
    onRole('PATCH', async (role, request, { audit }) => {
      const change = checkBody(UpdateRoleBodySchema, await body(request))
      // Nothing to change: nothing is written, and no audit row says otherwise.
      if (Object.keys(change).length === 0) return roleToJson(role)
      const updated = await keyward.updateRole(role.id, change, audit)
      if (updated === null) throw notFound()
      return roleToJson(updated)
    }),
    onRole(
      'DELETE',
      async (role, request, { audit }) => {
        // `?detach=true`: take the role from the keys that hold it, in the deletion's transaction.
        const detach = flagValue(request, 'detach')
        const deleted = await keyward.deleteRole(role.id, { detach }, audit)
        if (deleted === null) throw notFound()
        return {
          id: deleted.role.id,
          deleted: true,
          detached_keys: deleted.detached.map((key) => key.id),
          detached_identities: deleted.detachedIdentities.map((identity) => identity.id),
        }
      },
      ['detach'],
    ),
  ]
}
