import type { AuditEntry } from '../audit/types.js'
import { type MemoryIdentities, type MemoryKeyAccess, page } from '../identities/memory.js'
import type { IdentityRecord } from '../identities/model.js'
import type { KeyPageQuery, KeyRecord } from '../store/record.js'
import type { RoleChange, RoleRecord } from './model.js'
import type { RoleAuditWrite, RoleDeletion, RolePage, RoleStore } from './store.js'

const nameKey = (projectId: string, name: string) => `${projectId}\u0000${name}`

// A holder's roles without one, `null` when none is left.
const without = (roleIds: readonly string[], id: string): readonly string[] | null => {
  const left = roleIds.filter((roleId) => roleId !== id)
  return left.length > 0 ? left : null
}

/**
 * The roles of a memory key store, beside its keys. Each method is atomic: nothing awaits between
 * its reads and its writes, and its audit rows are built before the write (a throw writes
 * nothing), as the store's own writes do.
 *
 * @example
 * ```ts
 * const store = new MemoryKeyStore()
 * await store.roles.findRolesByName('proj_1', ['billing']) // []
 * ```
 */
export class MemoryRoles implements RoleStore {
  readonly #byId = new Map<string, RoleRecord>()
  readonly #byName = new Map<string, RoleRecord>()
  readonly #keys: MemoryKeyAccess
  readonly #identities: MemoryIdentities | undefined

  /** `identities`: those of the same store, which may hold roles too. */
  constructor(keys: MemoryKeyAccess, identities?: MemoryIdentities) {
    this.#keys = keys
    this.#identities = identities
  }

  async insertRole(record: RoleRecord, audit?: RoleAuditWrite): Promise<RoleRecord | null> {
    if (this.#byName.has(nameKey(record.projectId, record.name))) return null
    return this.#commit(audit?.(record, null, []), () => this.#set(record))
  }

  async findRole(id: string): Promise<RoleRecord | null> {
    return this.#byId.get(id) ?? null
  }

  async findRolesByName(projectId: string, names: readonly string[]): Promise<RoleRecord[]> {
    return names.flatMap((name) => this.#byName.get(nameKey(projectId, name)) ?? [])
  }

  async findRoles(ids: readonly string[]): Promise<RoleRecord[]> {
    return ids.flatMap((id) => this.#byId.get(id) ?? [])
  }

  async listRolesPage(projectId: string, query: KeyPageQuery): Promise<RolePage> {
    return page(
      [...this.#byId.values()].filter((role) => role.projectId === projectId),
      query,
    )
  }

  async updateRole(
    id: string,
    change: RoleChange,
    updatedAt: Date,
    audit?: RoleAuditWrite,
  ): Promise<RoleRecord | 'name_taken' | null> {
    const current = this.#byId.get(id)
    if (!current) return null
    const updated: RoleRecord = { ...current, ...change, updatedAt }
    const other = this.#byName.get(nameKey(updated.projectId, updated.name))
    if (other && other.id !== id) return 'name_taken'
    return this.#commit(audit?.(updated, current, []), () => {
      this.#byName.delete(nameKey(current.projectId, current.name))
      this.#set(updated)
      // What a verification answers of the role's keys changed: each of them goes on the feed,
      // those that hold it through their identity too.
      const identities = new Set(this.#identityHolders(id).map((identity) => identity.id))
      for (const key of this.#keys.keys()) {
        if (key.roleIds?.includes(id) || (key.identityId && identities.has(key.identityId))) {
          this.#keys.replace(key)
        }
      }
      return updated
    })
  }

  async deleteRole(id: string, detach: boolean, audit?: RoleAuditWrite): Promise<RoleDeletion | null> {
    const current = this.#byId.get(id)
    if (!current) return null
    const holders = [...this.#keys.keys()].filter((key) => key.roleIds?.includes(id))
    const identities = this.#identityHolders(id)
    if ((holders.length > 0 || identities.length > 0) && !detach) {
      return { kept: current, keys: holders.length, identities: identities.length }
    }
    const detached = holders.map((key): KeyRecord => ({ ...key, roleIds: without(key.roleIds!, id) }))
    const detachedIdentities = identities.map(
      (identity): IdentityRecord => ({ ...identity, roleIds: without(identity.roleIds!, id) }),
    )
    return this.#commit(audit?.(current, current, detached, detachedIdentities), () => {
      this.#byId.delete(id)
      this.#byName.delete(nameKey(current.projectId, current.name))
      for (const key of detached) this.#keys.replace(key)
      this.#identities?.replaceAll(detachedIdentities)
      return { deleted: current, detached, detachedIdentities }
    })
  }

  #identityHolders(id: string): IdentityRecord[] {
    return this.#identities?.holdersOf(id) ?? []
  }

  #set(record: RoleRecord): RoleRecord {
    this.#byId.set(record.id, record)
    this.#byName.set(nameKey(record.projectId, record.name), record)
    return record
  }

  async #commit<T>(entries: readonly AuditEntry[] | undefined, write: () => T): Promise<T> {
    const written = write()
    if (entries && entries.length > 0) await this.#keys.append(entries)
    return written
  }
}
