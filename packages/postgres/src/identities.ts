import {
  type CreditChange,
  type CreditLease,
  changedCredits,
  type IdentityAuditWrite,
  type IdentityChange,
  type IdentityCreditChangeResult,
  type IdentityDeletion,
  type IdentityPage,
  type IdentityPageQuery,
  type IdentityRecord,
  type IdentityStore,
  type KeyPagePosition,
  type KeyPageQuery,
  type KeyRecord,
  refilled,
} from '@keyward/core'
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
  type LeaseRow,
  readPage,
  run,
  toIdentity,
  toLease,
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
export class PostgresIdentities implements IdentityStore {
  readonly #sql: IdentityStatements
  readonly #access: IdentityStoreAccess

  constructor(schema: string, access: IdentityStoreAccess) {
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

  // The insert, and when the external id is taken, a read of the identity that holds it: the
  // insert waited for a concurrent one to commit, so a statement after it sees that identity
  // (unless it was deleted meanwhile: then the insert is tried again).
  async ensureIdentity(record: IdentityRecord, audit?: IdentityAuditWrite) {
    for (;;) {
      const created = await this.insertIdentity(record, audit)
      if (created) return { identity: created, created: true }
      const found = await this.findIdentityByExternalId(record.projectId, record.externalId)
      if (found) return { identity: found, created: false }
    }
  }

  async findIdentity(id: string): Promise<IdentityRecord | null> {
    if (!UUID.test(id)) return null
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

  async updateIdentity(
    id: string,
    change: IdentityChange,
    updatedAt: Date,
    audit?: IdentityAuditWrite,
  ): Promise<IdentityRecord | null> {
    if (!UUID.test(id)) return null
    const { metadata, ratelimits } = change
    const params = [
      id,
      metadata !== undefined,
      jsonOrNull(metadata),
      ratelimits !== undefined,
      ratelimits === undefined ? null : JSON.stringify(ratelimits),
      updatedAt,
    ]
    const updated = await this.#write(audit, async (db) => {
      // Audited: the identity as it was, under its row lock, for the rows' `before`.
      const before = audit ? firstIdentity(await run<IdentityRow>(db, this.#sql.lock, [id])) : null
      if (audit && !before) return null
      const [row] = await run<IdentityRow & { members: Changed[] }>(db, this.#sql.update, params)
      if (!row) return null
      const identity = toIdentity(row)
      if (audit) await appendAuditIn(db, this.#access.audit, audit(identity, [], before))
      return { identity, members: row.members }
    })
    if (!updated) return null
    for (const key of updated.members) this.#access.wrote(key)
    return updated.identity
  }

  async deleteIdentity(
    id: string,
    revokeKeys: boolean,
    audit?: IdentityAuditWrite,
  ): Promise<IdentityDeletion | null> {
    if (!UUID.test(id)) return null
    // One transaction: the identity locked first (a key joining it waits, then finds it gone),
    // its keys out of it (the active ones revoked), then the identity deleted.
    type Done = { readonly outcome: IdentityDeletion; readonly left: readonly KeyRecord[] }
    const done = await this.#access.db.transaction(async (tx): Promise<Done | null> => {
      const current = firstIdentity(await run<IdentityRow>(tx, this.#sql.lock, [id]))
      if (!current) return null
      if (!revokeKeys) {
        const [{ keys } = { keys: 0 }] = await run<{ keys: number }>(tx, this.#sql.countKeys, [id])
        if (keys > 0) return { outcome: { kept: current, keys }, left: [] }
      }
      const rows = revokeKeys ? await run<KeyRow & { was_active: boolean }>(tx, this.#sql.leaveAll, [id]) : []
      const revoked = rows.filter((row) => row.was_active).map(toRecord)
      await run(tx, this.#sql.delete, [id])
      if (audit) await appendAuditIn(tx, this.#access.audit, audit(current, revoked, current))
      return { outcome: { deleted: current, revoked }, left: rows.map(toRecord) }
    })
    if (!done) return null
    const committedAt = performance.now()
    for (const key of done.left) this.#access.wrote(key)
    if ('revoked' in done.outcome && done.outcome.revoked.length > 0) await this.#access.revoked(committedAt)
    return done.outcome
  }

  async setKeyIdentity(
    keyId: string,
    identityId: string | null,
    audit?: IdentityAuditWrite,
  ): Promise<KeyRecord | null> {
    if (!UUID.test(keyId) || (identityId !== null && !UUID.test(identityId))) return null
    // The identity's row first, shared: a change of it waits for the key to join (and then
    // notifies it), a deletion waits and then takes the key out with the others.
    const updated = await this.#access.db.transaction(async (tx) => {
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
    if (updated) this.#access.wrote(updated)
    return updated
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
    if (!UUID.test(id)) return null
    const [row] = await run<LeaseRow>(this.#access.db, this.#sql.leaseCredits, [id, want, need, now])
    return row ? toLease(row) : null
  }

  async returnIdentityCredits(id: string, amount: number): Promise<void> {
    if (!UUID.test(id) || amount <= 0) return
    await run(this.#access.db, this.#sql.returnCredits, [id, amount])
  }

  // Rare (an operator's change), as a key's: a transaction with the row locked, the rule computed
  // by core's `refilled` and `changedCredits`, one write, and its audit rows in the transaction.
  async changeIdentityCredits(
    id: string,
    change: CreditChange,
    now: Date,
    audit?: IdentityAuditWrite,
  ): Promise<IdentityCreditChangeResult | null> {
    if (!UUID.test(id)) return null
    const changed = await this.#access.db.transaction(async (tx) => {
      const current = firstIdentity(await run<IdentityRow>(tx, this.#sql.lock, [id]))
      if (!current) return null
      const { remaining, refill, refilledAt } = refilled(current, now)
      const before = { remaining, refill, refilledAt }
      const after = changedCredits(before, change, now, 'identity')
      // Whether the identity has a pool is what verifications of its keys read (see identities.sql).
      const pooled = (before.remaining === null) !== (after.remaining === null)
      const [row] = await run<IdentityRow & { members: Changed[] }>(tx, this.#sql.writeCredits, [
        id,
        ...creditValues(after),
        now,
        pooled,
      ])
      if (!row) return null
      const identity = toIdentity(row)
      if (audit) {
        await appendAuditIn(tx, this.#access.audit, audit(identity, [], { ...current, ...before }))
      }
      return { result: { before, identity }, members: row.members }
    })
    if (!changed) return null
    for (const key of changed.members) this.#access.wrote(key)
    return changed.result
  }

  // A write and its audit rows in one transaction; without `audit`, the write alone.
  #write<T>(audit: IdentityAuditWrite | undefined, write: (db: SqlQueryable) => Promise<T>): Promise<T> {
    if (!audit) return write(this.#access.db)
    return this.#access.db.transaction(write)
  }
}
