import type { AuditEntry } from '../audit/types.js'
import type { IdentityRecord } from '../identities/model.js'
import type { KeyPagePosition, KeyPageQuery, KeyRecord } from '../store/record.js'
import type { RoleChange, RoleRecord } from './model.js'

/** A page of a project's roles, newest first, and where the next one starts. */
export interface RolePage {
  readonly records: RoleRecord[]
  readonly next: KeyPagePosition | null
}

/**
 * The audit rows of a role's write: the store calls it with the role as written (or as it was,
 * for a deletion), the role before (`null` for a creation), the keys the write detached and the
 * identities it detached (as written), and appends the rows in the same transaction. A throw rolls
 * the write back.
 */
export type RoleAuditWrite = (
  role: RoleRecord,
  before: RoleRecord | null,
  detached: readonly KeyRecord[],
  detachedIdentities?: readonly IdentityRecord[],
) => readonly AuditEntry[]

/**
 * What `deleteRole` did: deleted it (detaching it from its keys and identities when asked), or
 * found holders and kept it. A store that keeps no roles on identities leaves the identities'
 * fields out (none).
 */
export type RoleDeletion =
  | {
      readonly deleted: RoleRecord
      readonly detached: readonly KeyRecord[]
      /** The identities it was taken from, as written. */
      readonly detachedIdentities?: readonly IdentityRecord[]
    }
  | {
      readonly kept: RoleRecord
      readonly keys: number
      /** How many identities hold it. */
      readonly identities?: number
    }

/**
 * Where roles live (`store.roles` of a key store that keeps them). Each write is one transaction
 * with its audit rows. Keys and identities hold roles by id (`KeyRecord.roleIds`,
 * `IdentityRecord.roleIds`); a change of a role's name or permissions, and its deletion, reach the
 * change feed for every key that holds it, itself or through its identity, as a write of the key
 * itself would.
 *
 * @example
 * ```ts
 * const roles = await store.roles.findRolesByName('proj_1', ['billing', 'read-only'])
 * ```
 */
export interface RoleStore {
  /** Inserts a new role; `null` when the project has one with its name already. */
  insertRole(record: RoleRecord, audit?: RoleAuditWrite): Promise<RoleRecord | null>
  findRole(id: string): Promise<RoleRecord | null>
  /** The project's roles of these names, in no order; a name without one is left out. */
  findRolesByName(projectId: string, names: readonly string[]): Promise<RoleRecord[]>
  /** The roles of these ids, in no order; an id without one is left out. */
  findRoles(ids: readonly string[]): Promise<RoleRecord[]>
  /** A project's roles, newest first (`createdAt`, then `id`, descending). */
  listRolesPage(projectId: string, query: KeyPageQuery): Promise<RolePage>
  /**
   * Changes a role; `null` when there is no such role, `'name_taken'` when the project has another
   * role of the new name.
   */
  updateRole(
    id: string,
    change: RoleChange,
    updatedAt: Date,
    audit?: RoleAuditWrite,
  ): Promise<RoleRecord | 'name_taken' | null>
  /**
   * Deletes a role no key or identity holds, or, with `detach`, takes it from every key and
   * identity that holds it and deletes it in one transaction; `null` when there is no such role.
   */
  deleteRole(id: string, detach: boolean, audit?: RoleAuditWrite): Promise<RoleDeletion | null>
}
