import type { AuditAction, AuditContext } from '../audit/types.js'
import { KeywardError } from '../errors/error.js'
import { ErrorType } from '../errors/types.js'
import type { IdentityRecord } from '../identities/model.js'
import type { KeyKind } from '../key/format.js'
import { checkKeyRoles, checkNewRole, checkRoleChange } from '../roles/checks.js'
import type { RoleChange, RoleRecord } from '../roles/model.js'
import type { RoleAuditWrite, RolePage, RoleStore } from '../roles/store.js'
import type { KeyRecord } from '../store/types.js'
import { auditedFields, changed } from './audit-rows.js'
import { type IdentityPageOptions, pageQuery, projectDeveloper } from './identities.js'
import type { Writes } from './types.js'

/** Options of {@link KeywardRoles.createRole}. */
export interface CreateRoleOptions {
  /** 1 to 100 characters, unique within the project. */
  readonly name: string
  /** Permissions the host declares, or wildcards (`reports:*`, `*`); may be empty. */
  readonly permissions: readonly string[]
}

/** What holds roles by id: a key or an identity. */
export interface RoleHolder {
  readonly roleIds?: readonly string[] | null
}

/** @internal The roles of a project: part of {@link Keyward}. */
export interface KeywardRoles {
  /**
   * Creates a role in a project. 409 `role_exists` when the project has one of its name; 422 at
   * the faulty option. Appends the audit row `role.created`.
   *
   * @example
   * ```ts
   * await keyward.createRole('proj_1', { name: 'billing', permissions: ['billing:read', 'billing:write'] })
   * ```
   */
  createRole(projectId: string, options: CreateRoleOptions, context?: AuditContext): Promise<RoleRecord>
  /** The role with this id, or `null`. */
  findRole(id: string): Promise<RoleRecord | null>
  /**
   * The roles of a project with these names, in the order of `names`: 422 `role_unknown` at
   * `["body", "roles", index]`, naming it, for a name the project has no role of.
   *
   * @example
   * ```ts
   * const [billing] = await keyward.findRolesByName('proj_1', ['billing'])
   * ```
   */
  findRolesByName(projectId: string, names: readonly string[]): Promise<RoleRecord[]>
  /**
   * The records (keys or identities) with `roles`, the names of the roles each holds (in the
   * order it was given them; roles deleted since are left out), as `keyToJson` and
   * `identityToJson` show them. One store call for all of them, none when no record holds a role.
   *
   * @example
   * ```ts
   * const [named] = await keyward.withRoleNames([record])
   * keyToJson(named).roles // ['billing']
   * ```
   */
  withRoleNames<T extends RoleHolder>(
    records: readonly T[],
  ): Promise<Array<T & { readonly roles?: readonly string[] }>>
  /** A project's roles, newest first, a page at a time. */
  listRolesPage(projectId: string, options?: IdentityPageOptions): Promise<RolePage>
  /**
   * Changes a role's name or permissions (absent keeps); `null` when there is no such role. Every
   * key that holds it has the new permissions at once in this process and, through the change
   * feed, in every other within the revocation bound. Appends the audit row `role.updated`.
   */
  updateRole(id: string, change: RoleChange, context?: AuditContext): Promise<RoleRecord | null>
  /**
   * Deletes a role; 409 `role_in_use` while keys or identities hold it, unless `detach`, which
   * takes it from them and deletes it in one transaction (`detached`: the keys, and
   * `detachedIdentities`: the identities, as written). `null` when there is no such role.
   */
  deleteRole(
    id: string,
    options?: { readonly detach?: boolean },
    context?: AuditContext,
  ): Promise<{
    readonly role: RoleRecord
    readonly detached: readonly KeyRecord[]
    readonly detachedIdentities: readonly IdentityRecord[]
  } | null>
}

/** @internal The role store of the service's store; a `TypeError` when it keeps none. */
export function roleStore({ store }: Pick<Writes, 'store'>): RoleStore {
  if (store.roles === undefined) throw new TypeError('This key store keeps no roles (it has no `roles`).')
  return store.roles
}

const roleFields = (role: RoleRecord) => auditedFields({ name: role.name, permissions: role.permissions })

// The rows of a role's write, in the log of the developer who owns its project.
async function roleRows(
  writes: Writes,
  action: AuditAction,
  context: AuditContext | undefined,
  projectId: string,
): Promise<RoleAuditWrite | undefined> {
  const { auditRows } = writes
  if (!auditRows.on) return undefined
  const developerId = await projectDeveloper(writes, projectId)
  const at = writes.now()
  return (role, before, detached, detachedIdentities = []) => {
    const diff =
      before !== null && action === 'role.updated' ? changed(roleFields(before), roleFields(role)) : null
    const event = (fields: Parameters<typeof auditRows.event>[0]) => auditRows.event(fields, context, at)
    return [
      event({
        action,
        targetType: 'role',
        targetId: role.id,
        developerId,
        projectId: role.projectId,
        before: action === 'role.created' ? null : (diff?.before ?? roleFields(before ?? role)),
        after: action === 'role.deleted' ? null : (diff?.after ?? roleFields(role)),
      }),
      ...detached.map((key) =>
        event({
          action: 'key.policies_set',
          targetType: 'key',
          targetId: key.id,
          developerId,
          projectId: role.projectId,
          after: { key_prefix: key.keyPrefix, role_ids: key.roleIds ?? null },
        }),
      ),
      ...detachedIdentities.map((identity) =>
        event({
          action: 'identity.updated',
          targetType: 'identity',
          targetId: identity.id,
          developerId,
          projectId: role.projectId,
          after: { role_ids: identity.roleIds ?? null },
        }),
      ),
    ]
  }
}

// The project's roles of these names, in their order; 422 `role_unknown` at the first the project lacks.
async function rolesNamed(
  writes: Writes,
  projectId: string,
  names: readonly string[],
): Promise<RoleRecord[]> {
  const found = await writes.storeCall('findRolesByName', () =>
    roleStore(writes).findRolesByName(projectId, names),
  )
  const byName = new Map(found.map((role) => [role.name, role]))
  return names.map((name, index) => {
    const role = byName.get(name)
    if (role === undefined) {
      throw new KeywardError(ErrorType.roleUnknown, `The project has no role named "${name}".`, [
        'body',
        'roles',
        String(index),
      ])
    }
    return role
  })
}

/**
 * @internal The ids of the roles a key of `projectId` is given by name, or `null` for none: 422
 * `role_unknown` at the name the project has no role of. API keys only.
 */
export async function roleIdsOf(
  writes: Writes,
  kind: KeyKind,
  projectId: string,
  given: unknown,
): Promise<readonly string[] | null> {
  const loc = ['body', 'roles']
  const names = checkKeyRoles(given, loc)
  if (names === null) return null
  if (kind !== 'project') {
    throw new KeywardError(
      ErrorType.valueError,
      'Roles are given to API keys: a developer key holds none.',
      loc,
    )
  }
  return (await rolesNamed(writes, projectId, names)).map((role) => role.id)
}

const newRole = (
  projectId: string,
  given: { name: string; permissions: readonly string[] },
  at: Date,
): RoleRecord => ({
  id: crypto.randomUUID(),
  projectId,
  name: given.name,
  permissions: given.permissions,
  createdAt: at,
  updatedAt: at,
})

// Who holds a role, for its refusal: "1 key holds", "2 keys and 1 identity hold".
function holdersOf(keys: number, identities: number): string {
  const counted = [
    ...(keys > 0 || identities === 0 ? [keys === 1 ? '1 key' : `${keys} keys`] : []),
    ...(identities > 0 ? [identities === 1 ? '1 identity' : `${identities} identities`] : []),
  ]
  return `${counted.join(' and ')} ${keys + identities === 1 ? 'holds' : 'hold'}`
}

const nameTaken = () =>
  new KeywardError(ErrorType.roleExists, 'The project has a role of this name already.', ['body', 'name'])

/** @internal The roles' part of the service. */
export function roleMethods(writes: Writes): KeywardRoles {
  const { storeCall, now, wrote, rules } = writes
  const roles = () => roleStore(writes)
  const findRole = (id: string) => storeCall('findRole', () => roles().findRole(id))

  return {
    async createRole(projectId, options, context) {
      const given = checkNewRole(options ?? {}, rules.declared)
      const record = newRole(projectId, given, now())
      const audit = await roleRows(writes, 'role.created', context, projectId)
      const inserted = await storeCall('insertRole', () => roles().insertRole(record, audit))
      if (inserted === null) throw nameTaken()
      return inserted
    },
    findRole,
    async findRolesByName(projectId, names) {
      return rolesNamed(writes, projectId, checkKeyRoles(names, ['body', 'roles']) ?? [])
    },
    async withRoleNames(records) {
      const ids = [...new Set(records.flatMap((record) => record.roleIds ?? []))]
      if (ids.length === 0) return [...records]
      const found = await storeCall('findRoles', () => roles().findRoles(ids))
      const names = new Map(found.map((role) => [role.id, role.name]))
      return records.map((record) =>
        record.roleIds?.length
          ? { ...record, roles: record.roleIds.flatMap((id) => names.get(id) ?? []) }
          : record,
      )
    },
    listRolesPage: async (projectId, options) => {
      const query = pageQuery(options)
      return storeCall('listRolesPage', () => roles().listRolesPage(projectId, query))
    },
    async updateRole(id, change, context) {
      const checked = checkRoleChange(change ?? {}, rules.declared)
      const current = await findRole(id)
      if (current === null) return null
      const audit = await roleRows(writes, 'role.updated', context, current.projectId)
      const updated = await storeCall('updateRole', () => roles().updateRole(id, checked, now(), audit))
      if (updated === 'name_taken') throw nameTaken()
      return updated
    },
    async deleteRole(id, options = {}, context) {
      const current = await findRole(id)
      if (current === null) return null
      const audit = await roleRows(writes, 'role.deleted', context, current.projectId)
      const outcome = await storeCall('deleteRole', () =>
        roles().deleteRole(id, options.detach === true, audit),
      )
      if (outcome === null) return null
      if ('kept' in outcome) {
        const holders = holdersOf(outcome.keys, outcome.identities ?? 0)
        throw new KeywardError(
          ErrorType.roleInUse,
          `${holders} the role: take it from them first, or delete it with detach.`,
          ['path', 'role_id'],
        )
      }
      for (const key of outcome.detached) wrote(key.hash)
      return {
        role: outcome.deleted,
        detached: outcome.detached,
        detachedIdentities: outcome.detachedIdentities ?? [],
      }
    },
  }
}
