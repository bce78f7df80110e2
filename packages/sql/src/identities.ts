// Identities on any dialect, by the rules of core's `MemoryIdentities`: each write one
// transaction with its audit rows, the identity's row read with a locking read first, and a
// change of what a verification answers of its keys published for each of them.
import {
  type CreditChange,
  type CreditLease,
  type IdentityAuditWrite,
  type IdentityChange,
  type IdentityDeletion,
  type IdentityPage,
  type IdentityPageQuery,
  type IdentityRecord,
  type IdentityStore,
  type KeyPageQuery,
  type KeyRecord,
  leasedCredits,
} from '@keyward/core'
import type { SqlAudit } from './audit.js'
import { type SqlDatabase, type SqlDialect, type SqlExecutor, uniqueWrite } from './dialect.js'
import { type IdentityWrite, identityCreditChange, SqlIdentitiesBase } from './identities-base.js'
import {
  creditValues,
  firstRecord,
  type IdentityRow,
  identityOf,
  jsonOrNull,
  KEY_COLUMNS,
  type KeyRow,
  keysById,
  TEXT_VALUES,
  toRecord,
  UUID,
} from './key-rows.js'
import { pageStatements, readPage } from './pages.js'
import type { SqlTables } from './schema.js'
import type { KeyChange } from './store-base.js'

/** @internal The columns an identity is read from. */
export const IDENTITY_COLUMNS =
  'id, project_id, external_id, metadata, ratelimits, remaining, refill_amount, refill_interval, refill_day, refilled_at, created_at, updated_at, role_ids, credits_low_at'
const COLUMNS = IDENTITY_COLUMNS

// A list of role ids as the column holds it: JSON text, NULL for none.
const roleIdsValue = (roleIds: readonly string[] | null | undefined) =>
  roleIds?.length ? TEXT_VALUES.list(roleIds) : null

/** @internal The record of an identity's row. */
export const toIdentity = (row: IdentityRow): IdentityRecord => identityOf(row, TEXT_VALUES)

/** @internal What the identities and the roles share with their key store. */
export interface StoreContext {
  readonly db: SqlDatabase
  readonly dialect: SqlDialect
  readonly tables: SqlTables
  readonly audit: SqlAudit
  /** Told of each key a write changed what a verification answers of, once committed. */
  readonly wrote: (change: KeyChange) => void
  /** Appends those keys to the change log in the write's transaction (when the store keeps one). */
  readonly log: (tx: SqlExecutor, changes: readonly KeyChange[]) => Promise<void>
  /** Returns once a committed write that may take a right away is acknowledged (strict revocation). */
  readonly revoked: (committedAt: number) => Promise<void>
}

/** @internal The identities of a {@link SqlKeyStore}. */
export class SqlIdentities extends SqlIdentitiesBase implements IdentityStore {
  readonly #c: StoreContext
  readonly #sql: ReturnType<typeof statements>

  constructor(context: StoreContext) {
    super({ wrote: (change) => context.wrote(change) })
    this.#c = context
    this.#sql = statements(context.dialect, context.tables)
  }

  async insertIdentity(record: IdentityRecord, audit?: IdentityAuditWrite): Promise<IdentityRecord | null> {
    return this.#c.db.transaction(async (tx) => {
      const values = [
        record.id,
        record.projectId,
        record.externalId,
        jsonOrNull(record.metadata),
        record.ratelimits.length > 0 ? JSON.stringify(record.ratelimits) : null,
        ...creditValues(record, TEXT_VALUES),
        record.createdAt.getTime(),
        record.updatedAt.getTime(),
        roleIdsValue(record.roleIds),
        jsonOrNull(record.creditsLowAt),
      ]
      if (!(await uniqueWrite(this.#c.dialect, () => tx.run(this.#sql.insert, values)))) return null
      const inserted = (await this.#find(tx, this.#sql.findById, [record.id])) as IdentityRecord
      if (audit) await this.#c.audit.append(tx, audit(inserted, [], null))
      return inserted
    })
  }

  protected async readIdentity(id: string) {
    return this.#find(this.#c.db, this.#sql.findById, [id])
  }

  async findIdentityByExternalId(projectId: string, externalId: string): Promise<IdentityRecord | null> {
    return this.#find(this.#c.db, this.#sql.findByExternalId, [projectId, externalId])
  }

  // Core's `matchesIdentitySearch`: `external_id` contains `q` in any case, `%`, `_` and `!` as
  // themselves (`!` escapes in the pattern, the same word on every dialect).
  async listIdentitiesPage(projectId: string, query: IdentityPageQuery): Promise<IdentityPage> {
    const { q, ...page } = query
    if (q === undefined) return readPage(this.#c.db, this.#sql.page, projectId, page, toIdentity)
    const pattern = `%${q.toLowerCase().replace(/[!%_]/g, '!$&')}%`
    return readPage(this.#c.db, this.#sql.search, projectId, page, toIdentity, [pattern])
  }

  protected async update(id: string, change: IdentityChange, updatedAt: Date, audit?: IdentityAuditWrite) {
    return this.#write(async (tx) => {
      const current = await this.#find(tx, this.#sql.lockById, [id])
      if (!current) return null
      const { roleIds = current.roleIds, ...rest } = change
      const { metadata, ratelimits, creditsLowAt } = { ...current, ...rest }
      await tx.run(this.#sql.update, [
        jsonOrNull(metadata),
        ratelimits.length > 0 ? JSON.stringify(ratelimits) : null,
        roleIdsValue(roleIds),
        jsonOrNull(creditsLowAt),
        updatedAt.getTime(),
        id,
      ])
      const updated = (await this.#find(tx, this.#sql.findById, [id])) as IdentityRecord
      if (audit) await this.#c.audit.append(tx, audit(updated, [], current))
      return { result: updated, keys: await this.#members(tx, id) }
    })
  }

  protected async removeIdentity(id: string, revokeKeys: boolean, audit?: IdentityAuditWrite) {
    return this.#write(async (tx): Promise<IdentityWrite<IdentityDeletion> | null> => {
      const current = await this.#find(tx, this.#sql.lockById, [id])
      if (!current) return null
      const members = await this.#members(tx, id, this.#c.dialect.forUpdate)
      if (members.length > 0 && !revokeKeys)
        return { result: { kept: current, keys: members.length }, keys: [] }
      // The keys leave the identity with it; the active ones are revoked.
      await tx.run(this.#sql.releaseKeys, [id])
      await tx.run(this.#sql.delete, [id])
      const ids = members.map((key) => key.id)
      const changed = await keysById(tx, this.#c.tables.keys, ids)
      const revoked = changed.filter((key) => members.find((m) => m.id === key.id)?.active && !key.active)
      if (audit) await this.#c.audit.append(tx, audit(current, revoked, current))
      return { result: { deleted: current, revoked }, keys: changed }
    })
  }

  protected async moveKey(keyId: string, identityId: string | null, audit?: IdentityAuditWrite) {
    const moved = await this.#write(async (tx) => {
      const [keyRow] = await tx.query<KeyRow>(`${this.#sql.keyById}${this.#c.dialect.forUpdate}`, [keyId])
      if (!keyRow) return null
      const identity = identityId === null ? null : await this.#find(tx, this.#sql.findById, [identityId])
      if (identity === null && identityId !== null) return null
      await tx.run(this.#sql.setKeyIdentity, [identityId, keyId])
      const record = firstRecord(await tx.query<KeyRow>(this.#sql.keyById, [keyId])) as KeyRecord
      const rowsOf =
        identity ??
        (keyRow.identity_id ? await this.#find(tx, this.#sql.findById, [keyRow.identity_id]) : null)
      if (audit && rowsOf) await this.#c.audit.append(tx, audit(rowsOf, [record], null))
      return { result: record, keys: [record] }
    })
    return moved?.result ?? null
  }

  async listIdentityKeys(id: string, query: KeyPageQuery) {
    return readPage(this.#c.db, this.#sql.keysPage, id, query, toRecord)
  }

  async leaseIdentityCredits(id: string, want: number, need: number, now: Date): Promise<CreditLease | null> {
    if (!UUID.test(id)) return null
    return this.#c.db.transaction(async (tx) => {
      const current = await this.#find(tx, this.#sql.lockById, [id])
      if (!current) return null
      const { lease, after } = leasedCredits(current, want, need, now)
      if (after) {
        await tx.run(this.#sql.writeCredits, [
          ...creditValues(after, TEXT_VALUES),
          jsonOrNull(current.creditsLowAt),
          current.updatedAt.getTime(),
          id,
        ])
      }
      return lease
    })
  }

  async returnIdentityCredits(id: string, amount: number): Promise<void> {
    if (!UUID.test(id) || amount <= 0) return
    await this.#c.db.run(this.#sql.returnCredits, [amount, id])
  }

  protected async writeCredits(id: string, change: CreditChange, now: Date, audit?: IdentityAuditWrite) {
    return this.#write(async (tx) => {
      const current = await this.#find(tx, this.#sql.lockById, [id])
      if (!current) return null
      const { before, after, lowAt, pooled } = identityCreditChange(current, change, now)
      await tx.run(this.#sql.writeCredits, [
        ...creditValues(after, TEXT_VALUES),
        jsonOrNull(lowAt),
        now.getTime(),
        id,
      ])
      // As the identity is read back: a threshold only where there is one.
      const { creditsLowAt: _previous, ...held } = current
      const identity: IdentityRecord = {
        ...held,
        ...after,
        ...(lowAt ? { creditsLowAt: lowAt } : {}),
        updatedAt: now,
      }
      if (audit) await this.#c.audit.append(tx, audit(identity, [], { ...current, ...before }))
      // Whether the identity has a pool is what verifications of its keys read: that goes on the feed.
      return {
        result: { before, identity },
        keys: pooled ? await this.#members(tx, id) : [],
      }
    })
  }

  // A write in one transaction: the keys it changed go to the change log last, just before the
  // commit; once committed, a write that changed keys is acknowledged like a revocation.
  async #write<T>(write: (tx: SqlExecutor) => Promise<IdentityWrite<T> | null>) {
    const done = await this.#c.db.transaction(async (tx) => {
      const done = await write(tx)
      if (done) await this.#c.log(tx, done.keys)
      return done
    })
    if (done && done.keys.length > 0) await this.#c.revoked(performance.now())
    return done
  }

  async #find(
    db: SqlExecutor,
    statement: string,
    params: readonly unknown[],
  ): Promise<IdentityRecord | null> {
    const [row] = await db.query<IdentityRow>(statement, params)
    return row ? toIdentity(row) : null
  }

  async #members(db: SqlExecutor, id: string, lock = ''): Promise<KeyRecord[]> {
    return (await db.query<KeyRow>(`${this.#sql.members}${lock}`, [id])).map(toRecord)
  }
}

function statements(dialect: SqlDialect, tables: SqlTables) {
  const table = tables.identities
  const keys = tables.keys
  return {
    insert: `INSERT INTO ${table} (${COLUMNS}) VALUES (${COLUMNS.split(',')
      .map(() => '?')
      .join(', ')})`,
    findById: `SELECT ${COLUMNS} FROM ${table} WHERE id = ?`,
    lockById: `SELECT ${COLUMNS} FROM ${table} WHERE id = ?${dialect.forUpdate}`,
    findByExternalId: `SELECT ${COLUMNS} FROM ${table} WHERE project_id = ? AND external_id = ?`,
    page: pageStatements(COLUMNS, table, 'project_id'),
    search: pageStatements(COLUMNS, table, 'project_id', "LOWER(external_id) LIKE ? ESCAPE '!'"),
    keysPage: pageStatements(KEY_COLUMNS, keys, 'identity_id'),
    update: `UPDATE ${table} SET metadata = ?, ratelimits = ?, role_ids = ?, credits_low_at = ?, updated_at = ? WHERE id = ?`,
    delete: `DELETE FROM ${table} WHERE id = ?`,
    members: `SELECT ${KEY_COLUMNS} FROM ${keys} WHERE identity_id = ?`,
    // MySQL assigns left to right from the new values: the reason is judged before `active` changes.
    releaseKeys: `UPDATE ${keys} SET revoked_reason = CASE WHEN active = 1 THEN 'revoked' ELSE revoked_reason END,
      active = 0, identity_id = NULL WHERE identity_id = ?`,
    keyById: `SELECT ${KEY_COLUMNS} FROM ${keys} WHERE id = ?`,
    setKeyIdentity: `UPDATE ${keys} SET identity_id = ? WHERE id = ?`,
    writeCredits: `UPDATE ${table} SET remaining = ?, refill_amount = ?, refill_interval = ?, refill_day = ?, refilled_at = ?,
      credits_low_at = ?, updated_at = ? WHERE id = ?`,
    returnCredits: `UPDATE ${table} SET remaining = remaining + ? WHERE id = ? AND remaining IS NOT NULL`,
  }
}
