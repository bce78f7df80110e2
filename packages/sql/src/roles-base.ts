// What a role store does the same way on every SQL database, around the writes its statements
// make: the checks of what a call names (an id that is no UUID names nothing), and the keys a
// write changed told to the key store once it committed (a revocation among them acknowledged).
import type {
  KeyPageQuery,
  KeyRecord,
  RoleAuditWrite,
  RoleChange,
  RoleDeletion,
  RolePage,
  RoleRecord,
} from '@keyward/core'
import type { IdentityFeed } from './identities-base.js'
import { UUID } from './key-rows.js'
import type { KeyChange } from './store-base.js'

/** @internal A change of a role as a store wrote it: the role, and the keys that hold it. */
export interface RoleUpdate {
  readonly role: RoleRecord
  readonly holders: readonly KeyChange[]
}

/**
 * @internal A role's deletion as a store wrote it: with the keys of the identities it was taken
 * from (`members`), which the key store is told of with the keys it was taken from.
 */
export type RoleRemoval = RoleDeletion & { readonly members?: readonly KeyChange[] }

/**
 * @internal The part of a role store that is the same on every SQL database. A store
 * (`SqlRoles`, `PostgresRoles`) supplies the statements. A change of a role, and its deletion
 * from keys, tell the key store of each key that holds it: fewer permissions may be a revocation,
 * acknowledged like a deactivation (PostgreSQL's `strictRevocation`).
 */
export abstract class SqlRolesBase {
  readonly #feed: IdentityFeed

  constructor(feed: IdentityFeed) {
    this.#feed = feed
  }

  abstract insertRole(record: RoleRecord, audit?: RoleAuditWrite): Promise<RoleRecord | null>

  abstract listRolesPage(projectId: string, query: KeyPageQuery): Promise<RolePage>

  async findRole(id: string): Promise<RoleRecord | null> {
    if (!UUID.test(id)) return null
    return this.readRole(id)
  }

  async findRolesByName(projectId: string, names: readonly string[]): Promise<RoleRecord[]> {
    if (names.length === 0) return []
    return this.readRolesByName(projectId, names)
  }

  async findRoles(ids: readonly string[]): Promise<RoleRecord[]> {
    const valid = ids.filter((id) => UUID.test(id))
    if (valid.length === 0) return []
    return this.readRoles(valid)
  }

  async updateRole(
    id: string,
    change: RoleChange,
    updatedAt: Date,
    audit?: RoleAuditWrite,
  ): Promise<RoleRecord | 'name_taken' | null> {
    if (!UUID.test(id)) return null
    const updated = await this.update(id, change, updatedAt, audit)
    if (updated === null || updated === 'name_taken') return updated
    await this.#published(updated.holders, performance.now())
    return updated.role
  }

  async deleteRole(id: string, detach: boolean, audit?: RoleAuditWrite): Promise<RoleDeletion | null> {
    if (!UUID.test(id)) return null
    const done = await this.remove(id, detach, audit)
    if (done === null || 'kept' in done) return done
    const { members = [], ...deletion } = done
    await this.#published([...done.detached, ...members], performance.now())
    return deletion
  }

  /** Reads a role by its id (a UUID). */
  protected abstract readRole(id: string): Promise<RoleRecord | null>

  /** Reads the project's roles of these names (at least one). */
  protected abstract readRolesByName(projectId: string, names: readonly string[]): Promise<RoleRecord[]>

  /** Reads the roles of these ids (UUIDs, at least one). */
  protected abstract readRoles(ids: readonly string[]): Promise<RoleRecord[]>

  /**
   * Changes a role under its row's lock, with its audit rows; `'name_taken'` when another role of
   * the project has the new name, and nothing written.
   */
  protected abstract update(
    id: string,
    change: RoleChange,
    updatedAt: Date,
    audit: RoleAuditWrite | undefined,
  ): Promise<RoleUpdate | 'name_taken' | null>

  /**
   * Deletes a role no key holds, or with `detach` takes it from the keys that hold it and deletes
   * it, in one transaction with its audit rows; keeps a role keys hold without `detach`.
   */
  protected abstract remove(
    id: string,
    detach: boolean,
    audit: RoleAuditWrite | undefined,
  ): Promise<RoleRemoval | null>

  async #published(keys: readonly (KeyChange | KeyRecord)[], committedAt: number): Promise<void> {
    for (const key of keys) this.#feed.wrote(key)
    if (keys.length > 0) await this.#feed.revoked?.(committedAt)
  }
}
