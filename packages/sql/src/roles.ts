// Roles on any dialect, by the rules of core's `MemoryRoles`: each write one transaction with its
// audit rows, the role's row read with a locking read first, and a change of the role published
// for each key that holds it, itself or through its identity. A key and an identity hold roles of
// their own project, by id, in `role_ids` (JSON text): those that hold a role are found among the
// project's keys and identities.
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
import { inChunks, placeholders, type SqlExecutor, uniqueWrite } from './dialect.js'
import { IDENTITY_COLUMNS, type StoreContext, toIdentity } from './identities.js'
import {
  type IdentityRow,
  jsonOrNull,
  KEY_COLUMNS,
  type KeyRow,
  keysById,
  type RoleRow,
  roleOf,
  TEXT_VALUES,
  toRecord,
} from './key-rows.js'
import { pageStatements, readPage } from './pages.js'
import { type RoleRemoval, type RoleUpdate, SqlRolesBase } from './roles-base.js'
import type { SqlTables } from './schema.js'

const COLUMNS = 'id, project_id, name, permissions, created_at, updated_at'

const toRole = (row: RoleRow): RoleRecord => roleOf(row, TEXT_VALUES)

/** @internal The roles of a {@link SqlKeyStore}. */
export class SqlRoles extends SqlRolesBase implements RoleStore {
  readonly #c: StoreContext
  readonly #sql: ReturnType<typeof statements>

  constructor(context: StoreContext) {
    super({ wrote: (change) => context.wrote(change), revoked: (at) => context.revoked(at) })
    this.#c = context
    this.#sql = statements(context.dialect.forUpdate, context.tables)
  }

  // Nothing written when the project has a role of this name: the unique index decides.
  async insertRole(record: RoleRecord, audit?: RoleAuditWrite): Promise<RoleRecord | null> {
    return this.#c.db.transaction(async (tx) => {
      const values = [
        record.id,
        record.projectId,
        record.name,
        jsonOrNull(record.permissions),
        record.createdAt.getTime(),
        record.updatedAt.getTime(),
      ]
      if (!(await uniqueWrite(this.#c.dialect, () => tx.run(this.#sql.insert, values)))) return null
      const inserted = (await this.#find(tx, this.#sql.findById, [record.id])) as RoleRecord
      if (audit) await this.#c.audit.append(tx, audit(inserted, null, []))
      return inserted
    })
  }

  async listRolesPage(projectId: string, query: KeyPageQuery): Promise<RolePage> {
    return readPage(this.#c.db, this.#sql.page, projectId, query, toRole)
  }

  protected async readRole(roleId: string) {
    return this.#find(this.#c.db, this.#sql.findById, [roleId])
  }

  protected async readRolesByName(projectId: string, names: readonly string[]) {
    const rows = await this.#c.db.query<RoleRow>(
      `${this.#sql.byProject} AND name IN (${placeholders(names.length)})`,
      [projectId, ...names],
    )
    return rows.map(toRole)
  }

  protected async readRoles(ids: readonly string[]) {
    const rows = await this.#c.db.query<RoleRow>(
      `SELECT ${COLUMNS} FROM ${this.#c.tables.roles} WHERE id IN (${placeholders(ids.length)})`,
      ids,
    )
    return rows.map(toRole)
  }

  // Under the role's lock: its state before (for the rows), then the write; a unique violation
  // of the new name (another role of the project has it) writes nothing.
  protected async update(roleId: string, change: RoleChange, updatedAt: Date, audit?: RoleAuditWrite) {
    return this.#c.db.transaction(async (tx): Promise<RoleUpdate | 'name_taken' | null> => {
      const before = await this.#find(tx, this.#sql.lockById, [roleId])
      if (!before) return null
      const { name = before.name, permissions = before.permissions } = change
      const values = [name, jsonOrNull(permissions), updatedAt.getTime(), roleId]
      if (!(await uniqueWrite(this.#c.dialect, () => tx.run(this.#sql.update, values)))) return 'name_taken'
      const role = (await this.#find(tx, this.#sql.findById, [roleId])) as RoleRecord
      if (audit) await this.#c.audit.append(tx, audit(role, before, []))
      // The keys that hold it, themselves or through their identity.
      const identities = await this.#identityHolders(tx, before)
      const holders = [...(await this.#holders(tx, before)), ...(await this.#membersOf(tx, identities))]
      await this.#c.log(tx, holders)
      return { role, holders }
    })
  }

  // One transaction: the role locked first, taken from its keys and identities (locked too),
  // then deleted.
  protected async remove(roleId: string, detach: boolean, audit?: RoleAuditWrite) {
    return this.#c.db.transaction(async (tx): Promise<RoleRemoval | null> => {
      const current = await this.#find(tx, this.#sql.lockById, [roleId])
      if (!current) return null
      const lock = this.#c.dialect.forUpdate
      const holders = await this.#holders(tx, current, lock)
      const identities = await this.#identityHolders(tx, current, lock)
      if ((holders.length > 0 || identities.length > 0) && !detach) {
        return { kept: current, keys: holders.length, identities: identities.length }
      }
      // A key or an identity left with no role holds NULL.
      const without = (held: readonly string[] | null | undefined) => {
        const kept = (held ?? []).filter((id) => id !== current.id)
        return kept.length > 0 ? TEXT_VALUES.list(kept) : null
      }
      for (const key of holders) await tx.run(this.#sql.setKeyRoles, [without(key.roleIds), key.id])
      for (const identity of identities) {
        await tx.run(this.#sql.setIdentityRoles, [without(identity.roleIds), identity.id])
      }
      const detached = await keysById(
        tx,
        this.#c.tables.keys,
        holders.map((key) => key.id),
      )
      const detachedIdentities = await this.#identitiesById(tx, identities)
      const members = await this.#membersOf(tx, identities)
      await tx.run(this.#sql.delete, [current.id])
      if (audit) await this.#c.audit.append(tx, audit(current, current, detached, detachedIdentities))
      await this.#c.log(tx, [...detached, ...members])
      return { deleted: current, detached, detachedIdentities, members }
    })
  }

  async #find(db: SqlExecutor, statement: string, params: readonly unknown[]): Promise<RoleRecord | null> {
    const [row] = await db.query<RoleRow>(statement, params)
    return row ? toRole(row) : null
  }

  // The keys of the role's project whose JSON list of role ids names it (the text of an id in
  // quotes is found in no other list), read again on the record to be exact.
  async #holders(db: SqlExecutor, role: RoleRecord, lock = ''): Promise<KeyRecord[]> {
    const rows = await db.query<KeyRow>(`${this.#sql.holders}${lock}`, [role.projectId, `"${role.id}"`])
    return rows.map(toRecord).filter((key) => key.roleIds?.includes(role.id))
  }

  // The identities of the role's project that hold it, found as its keys are.
  async #identityHolders(db: SqlExecutor, role: RoleRecord, lock = ''): Promise<IdentityRecord[]> {
    const rows = await db.query<IdentityRow>(`${this.#sql.identityHolders}${lock}`, [
      role.projectId,
      `"${role.id}"`,
    ])
    return rows.map(toIdentity).filter((identity) => identity.roleIds?.includes(role.id))
  }

  async #identitiesById(db: SqlExecutor, identities: readonly IdentityRecord[]): Promise<IdentityRecord[]> {
    const rows = await inChunks(
      identities.map((identity) => identity.id),
      (chunk, list) => db.query<IdentityRow>(`${this.#sql.identities} WHERE id IN (${list})`, chunk),
    )
    return rows.map(toIdentity)
  }

  // The keys of these identities: a change of a role they hold changes what those keys may do.
  async #membersOf(db: SqlExecutor, identities: readonly IdentityRecord[]): Promise<KeyRecord[]> {
    const rows = await inChunks(
      identities.map((identity) => identity.id),
      (chunk, list) =>
        db.query<KeyRow>(
          `SELECT ${KEY_COLUMNS} FROM ${this.#c.tables.keys} WHERE identity_id IN (${list})`,
          chunk,
        ),
    )
    return rows.map(toRecord)
  }
}

function statements(lock: string, tables: SqlTables) {
  const table = tables.roles
  return {
    insert: `INSERT INTO ${table} (${COLUMNS}) VALUES (${placeholders(COLUMNS.split(',').length)})`,
    findById: `SELECT ${COLUMNS} FROM ${table} WHERE id = ?`,
    lockById: `SELECT ${COLUMNS} FROM ${table} WHERE id = ?${lock}`,
    byProject: `SELECT ${COLUMNS} FROM ${table} WHERE project_id = ?`,
    page: pageStatements(COLUMNS, table, 'project_id'),
    update: `UPDATE ${table} SET name = ?, permissions = ?, updated_at = ? WHERE id = ?`,
    delete: `DELETE FROM ${table} WHERE id = ?`,
    // INSTR compares case-sensitively on SQLite and on the binary collation of MySQL's tables.
    holders: `SELECT ${KEY_COLUMNS} FROM ${tables.keys} WHERE project_id = ? AND INSTR(role_ids, ?) > 0`,
    setKeyRoles: `UPDATE ${tables.keys} SET role_ids = ? WHERE id = ?`,
    identities: `SELECT ${IDENTITY_COLUMNS} FROM ${tables.identities}`,
    identityHolders: `SELECT ${IDENTITY_COLUMNS} FROM ${tables.identities} WHERE project_id = ? AND INSTR(role_ids, ?) > 0`,
    setIdentityRoles: `UPDATE ${tables.identities} SET role_ids = ? WHERE id = ?`,
  }
}
