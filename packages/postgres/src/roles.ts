import type {
  IdentityRecord,
  KeyPageQuery,
  KeyRecord,
  RoleAuditWrite,
  RoleChange,
  RoleDeletion,
  RolePage,
  RoleRecord,
  RoleStore,
} from '@keyward/core'
import { appendAuditIn } from './audit.js'
import type { SqlQueryable } from './driver.js'
import type { IdentityStoreAccess } from './identities.js'
import { type Changed, type IdentityRow, readPage, run, toIdentity, toRecord, UUID } from './key-rows.js'
import { type RoleStatements, roleStatementsFor } from './role-statements.js'

type RoleRow = {
  id: string
  project_id: string
  name: string
  permissions: string[]
  created_at: Date
  updated_at: Date
}

const toRole = (row: RoleRow): RoleRecord => ({
  id: row.id,
  projectId: row.project_id,
  name: row.name,
  permissions: row.permissions,
  createdAt: row.created_at,
  updatedAt: row.updated_at,
})

const firstRole = (rows: readonly RoleRow[]): RoleRecord | null => (rows[0] ? toRole(rows[0]) : null)

/**
 * The roles of a {@link PostgresKeyStore} (`store.roles`), in the table `roles` beside
 * `api_keys` (schema version 14). Each write is one statement, or one transaction with its audit
 * rows. A change of a role reaches the change feed for each key that holds it from a trigger in
 * the writing transaction, and this process at once.
 *
 * @example
 * ```ts
 * const store = await createPgKeyStore({ connectionString: process.env.DATABASE_URL })
 * await store.roles.findRolesByName(projectId, ['billing']) // []
 * ```
 */
export class PostgresRoles implements RoleStore {
  readonly #sql: RoleStatements
  readonly #access: IdentityStoreAccess

  constructor(schema: string, access: IdentityStoreAccess) {
    this.#sql = roleStatementsFor(schema)
    this.#access = access
  }

  async insertRole(record: RoleRecord, audit?: RoleAuditWrite): Promise<RoleRecord | null> {
    const values = [
      record.id,
      record.projectId,
      record.name,
      record.permissions,
      record.createdAt,
      record.updatedAt,
    ]
    return this.#write(audit, async (db) => {
      const inserted = firstRole(await run<RoleRow>(db, this.#sql.insert, values))
      if (inserted && audit) await appendAuditIn(db, this.#access.audit, audit(inserted, null, []))
      return inserted
    })
  }

  async findRole(id: string): Promise<RoleRecord | null> {
    if (!UUID.test(id)) return null
    return firstRole(await run<RoleRow>(this.#access.db, this.#sql.findById, [id]))
  }

  async findRolesByName(projectId: string, names: readonly string[]): Promise<RoleRecord[]> {
    const rows = await run<RoleRow>(this.#access.db, this.#sql.findByNames, [projectId, [...names]])
    return rows.map(toRole)
  }

  async findRoles(ids: readonly string[]): Promise<RoleRecord[]> {
    const valid = ids.filter((id) => UUID.test(id))
    if (valid.length === 0) return []
    return (await run<RoleRow>(this.#access.db, this.#sql.findByIds, [valid])).map(toRole)
  }

  async listRolesPage(projectId: string, query: KeyPageQuery): Promise<RolePage> {
    return readPage(this.#access.db, this.#sql.listPage, projectId, query, toRole)
  }

  async updateRole(
    id: string,
    change: RoleChange,
    updatedAt: Date,
    audit?: RoleAuditWrite,
  ): Promise<RoleRecord | 'name_taken' | null> {
    if (!UUID.test(id)) return null
    const { name, permissions } = change
    const params = [
      id,
      name !== undefined,
      name ?? null,
      permissions !== undefined,
      permissions === undefined ? null : [...permissions],
      updatedAt,
    ]
    // Under the role's lock: its state before (for the rows), then the write; no row back with
    // the role there means its new name is taken.
    const updated = await this.#access.db.transaction(async (tx) => {
      const before = firstRole(await run<RoleRow>(tx, this.#sql.lock, [id]))
      if (!before) return null
      const [row] = await run<RoleRow & { holders: Changed[] }>(tx, this.#sql.update, params)
      if (!row) return 'name_taken' as const
      const role = toRole(row)
      if (audit) await appendAuditIn(tx, this.#access.audit, audit(role, before, []))
      return { role, holders: row.holders }
    })
    if (updated === null || updated === 'name_taken') return updated
    const committedAt = performance.now()
    for (const key of updated.holders) this.#access.wrote(key)
    // Fewer permissions may be a revocation: acknowledged like a deactivation (`strictRevocation`).
    if (updated.holders.length > 0) await this.#access.revoked(committedAt)
    return updated.role
  }

  async deleteRole(id: string, detach: boolean, audit?: RoleAuditWrite): Promise<RoleDeletion | null> {
    if (!UUID.test(id)) return null
    // One transaction: the role locked first, taken from its keys and identities, then deleted.
    type Done = RoleDeletion & { readonly members?: readonly Changed[] }
    const done = await this.#access.db.transaction(async (tx): Promise<Done | null> => {
      const current = firstRole(await run<RoleRow>(tx, this.#sql.lock, [id]))
      if (!current) return null
      if (!detach) {
        const [counts = { keys: 0, identities: 0 }] = await run<{ keys: number; identities: number }>(
          tx,
          this.#sql.countKeys,
          [id],
        )
        if (counts.keys > 0 || counts.identities > 0) return { kept: current, ...counts }
      }
      const detached: KeyRecord[] = detach ? (await run(tx, this.#sql.detachAll, [id])).map(toRecord) : []
      const rows = detach
        ? await run<IdentityRow & { members: Changed[] }>(tx, this.#sql.detachIdentities, [id])
        : []
      const detachedIdentities: IdentityRecord[] = rows.map(toIdentity)
      await run(tx, this.#sql.delete, [id])
      if (audit) {
        await appendAuditIn(tx, this.#access.audit, audit(current, current, detached, detachedIdentities))
      }
      return { deleted: current, detached, detachedIdentities, members: rows.flatMap((row) => row.members) }
    })
    if (done === null || 'kept' in done) return done
    const { members = [], ...deletion } = done
    const committedAt = performance.now()
    for (const key of [...done.detached, ...members]) this.#access.wrote(key)
    if (done.detached.length > 0 || members.length > 0) await this.#access.revoked(committedAt)
    return deletion
  }

  // A write and its audit rows in one transaction; without `audit`, the write alone.
  #write<T>(audit: RoleAuditWrite | undefined, write: (db: SqlQueryable) => Promise<T>): Promise<T> {
    if (!audit) return write(this.#access.db)
    return this.#access.db.transaction(write)
  }
}
