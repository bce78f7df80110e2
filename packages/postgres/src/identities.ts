import type {
  CreditChange,
  CreditLease,
  IdentityAuditWrite,
  IdentityChange,
  IdentityDeletion,
  IdentityPage,
  IdentityPageQuery,
  IdentityRecord,
  IdentityStore,
  KeyPagePosition,
  KeyPageQuery,
  KeyRecord,
} from '@keyward/core'
import { identityCreditChange, SqlIdentitiesBase } from '@keyward/sql'
import { type AuditStatements, appendAuditIn } from './audit.js'
import type { SqlDriver, SqlQueryable } from './driver.js'
import { type IdentityStatements, identityStatementsFor } from './identity-statements.js'
import { containsPattern, readPageWhere } from './key-filter.js'
import {
  type Changed,
  creditValues,
  type IdentityRow,
  jsonOrNull,
  type KeyRow,
  leaseMany,
  readPage,
  run,
  toIdentity,
  toRecord,
  UUID,
} from './key-rows.js'
import { statementParams } from './sql-params.js'

const firstIdentity = (rows: readonly IdentityRow[]): IdentityRecord | null =>
  rows[0] ? toIdentity(rows[0]) : null

// The parameters of an insert, in the order of IDENTITY_COLUMNS.
const insertValues = (record: IdentityRecord): unknown[] => [
  record.id,
  record.projectId,
  record.externalId,
  jsonOrNull(record.metadata),
  JSON.stringify(record.ratelimits),
  ...creditValues(record),
  record.createdAt,
  record.updatedAt,
  record.roleIds?.length ? record.roleIds : null,
  jsonOrNull(record.creditsLowAt),
]

/** @internal What the key store lends its identities: its driver, its audit log and its feed. */
export interface IdentityStoreAccess {
  readonly db: SqlDriver
  readonly audit: AuditStatements
  /** Tells this process's services of a key the write changed, once it committed. */
  wrote(change: Changed): void
  /** Returns once a committed revocation is acknowledged (see `strictRevocation`). */
  revoked(committedAt: number): Promise<void>
}

/**
 * The identities of a {@link PostgresKeyStore} (`store.identities`), in the table `identities`
 * beside `api_keys` (schema version 10). Each write is one statement, or one transaction with
 * its audit rows. A change of what a verification answers of an identity's keys reaches the
 * change feed for each key from a trigger in the writing transaction, and this process at once.
 *
 * @example
 * ```ts
 * const store = await createPgKeyStore({ connectionString: process.env.DATABASE_URL })
 * await store.identities.findIdentityByExternalId(projectId, 'customer_acme') // null
 * ```
 */
export class PostgresIdentities extends SqlIdentitiesBase implements IdentityStore {
  readonly #sql: IdentityStatements
  readonly #access: IdentityStoreAccess

  constructor(schema: string, access: IdentityStoreAccess) {
    super(access)
    this.#sql = identityStatementsFor(schema)
    this.#access = access
  }

  async insertIdentity(record: IdentityRecord, audit?: IdentityAuditWrite): Promise<IdentityRecord | null> {
    return this.#write(audit, async (db) => {
      const inserted = firstIdentity(await run<IdentityRow>(db, this.#sql.insert, insertValues(record)))
      if (inserted && audit) await appendAuditIn(db, this.#access.audit, audit(inserted, [], null))
      return inserted
    })
  }

  protected async readIdentity(id: string) {
    return firstIdentity(await run<IdentityRow>(this.#access.db, this.#sql.findById, [id]))
  }

  async findIdentityByExternalId(projectId: string, externalId: string): Promise<IdentityRecord | null> {
    const rows = await run<IdentityRow>(this.#access.db, this.#sql.findByExternalId, [projectId, externalId])
    return firstIdentity(rows)
  }

  async listIdentitiesPage(projectId: string, query: IdentityPageQuery): Promise<IdentityPage> {
    const { q, ...page } = query
    if (q === undefined) return readPage(this.#access.db, this.#sql.listPage, projectId, page, toIdentity)
    // `external_id` contains `q` in any case: a trigram index serves it (schema version 12, pg_trgm).
    const params = statementParams([projectId, page.limit + 1])
    const condition = `external_id ILIKE ${params.add(containsPattern(q), 'text')}`
    return readPageWhere(this.#access.db, this.#sql.listPageWhere, params, [condition], page, toIdentity)
  }

  protected async update(id: string, change: IdentityChange, updatedAt: Date, audit?: IdentityAuditWrite) {
    const { metadata, ratelimits, roleIds, creditsLowAt } = change
    const params = [
      id,
      metadata !== undefined,
      jsonOrNull(metadata),
      ratelimits !== undefined,
      ratelimits === undefined ? null : JSON.stringify(ratelimits),
      updatedAt,
      roleIds !== undefined,
      roleIds?.length ? roleIds : null,
      creditsLowAt !== undefined,
      jsonOrNull(creditsLowAt),
    ]
    return this.#write(audit, async (db) => {
      // Audited: the identity as it was, under its row lock, for the rows' `before`.
      const before = audit ? firstIdentity(await run<IdentityRow>(db, this.#sql.lock, [id])) : null
      if (audit && !before) return null
      const [row] = await run<IdentityRow & { members: Changed[] }>(db, this.#sql.update, params)
      if (!row) return null
      const identity = toIdentity(row)
      if (audit) await appendAuditIn(db, this.#access.audit, audit(identity, [], before))
      return { result: identity, keys: row.members }
    })
  }

  protected async removeIdentity(id: string, revokeKeys: boolean, audit?: IdentityAuditWrite) {
    // One transaction: the identity locked first (a key joining it waits, then finds it gone),
    // its keys out of it (the active ones revoked), then the identity deleted.
    type Done = { readonly result: IdentityDeletion; readonly keys: readonly KeyRecord[] }
    return this.#access.db.transaction(async (tx): Promise<Done | null> => {
      const current = firstIdentity(await run<IdentityRow>(tx, this.#sql.lock, [id]))
      if (!current) return null
      if (!revokeKeys) {
        const [{ keys } = { keys: 0 }] = await run<{ keys: number }>(tx, this.#sql.countKeys, [id])
        if (keys > 0) return { result: { kept: current, keys }, keys: [] }
      }
      const rows = revokeKeys ? await run<KeyRow & { was_active: boolean }>(tx, this.#sql.leaveAll, [id]) : []
      const revoked = rows.filter((row) => row.was_active).map(toRecord)
      await run(tx, this.#sql.delete, [id])
      if (audit) await appendAuditIn(tx, this.#access.audit, audit(current, revoked, current))
      return { result: { deleted: current, revoked }, keys: rows.map(toRecord) }
    })
  }

  protected async moveKey(keyId: string, identityId: string | null, audit?: IdentityAuditWrite) {
    // The identity's row first, shared: a change of it waits for the key to join (and then
    // notifies it), a deletion waits and then takes the key out with the others.
    return this.#access.db.transaction(async (tx) => {
      const identity =
        identityId === null
          ? null
          : firstIdentity(await run<IdentityRow>(tx, this.#sql.lockShared, [identityId]))
      if (identityId !== null && !identity) return null
      const [row] = await run<KeyRow & { previous_identity_id: string | null }>(
        tx,
        this.#sql.setKeyIdentity,
        [keyId, identityId],
      )
      if (!row) return null
      const key = toRecord(row)
      // A key that leaves is audited in the log of the identity it left.
      const rowsOf =
        identity ??
        (audit && row.previous_identity_id !== null
          ? firstIdentity(await run<IdentityRow>(tx, this.#sql.findById, [row.previous_identity_id]))
          : null)
      if (audit && rowsOf) await appendAuditIn(tx, this.#access.audit, audit(rowsOf, [key], null))
      return key
    })
  }

  async listIdentityKeys(
    id: string,
    query: KeyPageQuery,
  ): Promise<{ records: KeyRecord[]; next: KeyPagePosition | null }> {
    if (!UUID.test(id)) return { records: [], next: null }
    return readPage(this.#access.db, this.#sql.listKeys, id, query, toRecord)
  }

  // One statement: the refill due at `now` and the lease in one conditional write, as a key's.
  async leaseIdentityCredits(id: string, want: number, need: number, now: Date): Promise<CreditLease | null> {
    const [lease] = await leaseMany(this.#access.db, this.#sql.leaseCredits, [{ id, want, need }], now)
    return lease ?? null
  }

  async returnIdentityCredits(id: string, amount: number): Promise<void> {
    if (!UUID.test(id) || amount <= 0) return
    await run(this.#access.db, this.#sql.returnCredits, [id, amount])
  }

  // Rare (an operator's change), as a key's: a transaction with the row locked, the rule computed
  // by core's `refilled` and `changedCredits`, one write, and its audit rows in the transaction.
  protected async writeCredits(id: string, change: CreditChange, now: Date, audit?: IdentityAuditWrite) {
    return this.#access.db.transaction(async (tx) => {
      const current = firstIdentity(await run<IdentityRow>(tx, this.#sql.lock, [id]))
      if (!current) return null
      // Whether the identity has a pool is what verifications of its keys read (see identities.sql).
      const { before, after, lowAt, pooled } = identityCreditChange(current, change, now)
      const [row] = await run<IdentityRow & { members: Changed[] }>(tx, this.#sql.writeCredits, [
        id,
        ...creditValues(after),
        now,
        pooled,
        change.op === 'set',
        jsonOrNull(lowAt),
      ])
      if (!row) return null
      const identity = toIdentity(row)
      if (audit) {
        await appendAuditIn(tx, this.#access.audit, audit(identity, [], { ...current, ...before }))
      }
      return { result: { before, identity }, keys: row.members }
    })
  }

  // A write and its audit rows in one transaction; without `audit`, the write alone.
  #write<T>(audit: IdentityAuditWrite | undefined, write: (db: SqlQueryable) => Promise<T>): Promise<T> {
    if (!audit) return write(this.#access.db)
    return this.#access.db.transaction(write)
  }
}
