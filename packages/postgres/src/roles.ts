import type {
  IdentityRecord,
  KeyPageQuery,
  KeyRecord,
  RoleAuditWrite,
  RoleChange,
  RolePage,
  RoleRecord,
  RoleStore,
} from '@keyward/core'
import { type RoleRemoval, type RoleRowOf, type RoleUpdate, roleOf, SqlRolesBase } from '@keyward/sql'
import { appendAuditIn } from './audit.js'
import type { SqlQueryable } from './driver.js'
import type { IdentityStoreAccess } from './identities.js'
import {
  type Changed,
  type IdentityRow,
  PG_VALUES,
  type PgTypes,
  readPage,
  run,
  toIdentity,
  toRecord,
} from './key-rows.js'
import { type RoleStatements, roleStatementsFor } from './role-statements.js'

type RoleRow = RoleRowOf<PgTypes>

const toRole = (row: RoleRow): RoleRecord => roleOf(row, PG_VALUES)

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
export class PostgresRoles extends SqlRolesBase implements RoleStore {
  readonly #sql: RoleStatements
  readonly #access: IdentityStoreAccess

  constructor(schema: string, access: IdentityStoreAccess) {
    super(access)
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

  protected async readRole(id: string) {
    return firstRole(await run<RoleRow>(this.#access.db, this.#sql.findById, [id]))
  }

  protected async readRolesByName(projectId: string, names: readonly string[]) {
    const rows = await run<RoleRow>(this.#access.db, this.#sql.findByNames, [projectId, [...names]])
    return rows.map(toRole)
  }

  protected async readRoles(ids: readonly string[]) {
    return (await run<RoleRow>(this.#access.db, this.#sql.findByIds, [[...ids]])).map(toRole)
  }

  async listRolesPage(projectId: string, query: KeyPageQuery): Promise<RolePage> {
    return readPage(this.#access.db, this.#sql.listPage, projectId, query, toRole)
  }

  protected async update(id: string, change: RoleChange, updatedAt: Date, audit?: RoleAuditWrite) {
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
    return this.#access.db.transaction(async (tx): Promise<RoleUpdate | 'name_taken' | null> => {
      const before = firstRole(await run<RoleRow>(tx, this.#sql.lock, [id]))
      if (!before) return null
      const [row] = await run<RoleRow & { holders: Changed[] }>(tx, this.#sql.update, params)
      if (!row) return 'name_taken'
      const role = toRole(row)
      if (audit) await appendAuditIn(tx, this.#access.audit, audit(role, before, []))
      return { role, holders: row.holders }
    })
  }

  // One transaction: the role locked first, taken from its keys and identities, then deleted.
  protected async remove(id: string, detach: boolean, audit?: RoleAuditWrite) {
    return this.#access.db.transaction(async (tx): Promise<RoleRemoval | null> => {
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
  }

  // A write and its audit rows in one transaction; without `audit`, the write alone.
  #write<T>(audit: RoleAuditWrite | undefined, write: (db: SqlQueryable) => Promise<T>): Promise<T> {
    if (!audit) return write(this.#access.db)
    return this.#access.db.transaction(write)
  }
}
