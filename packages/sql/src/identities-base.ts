// What an identity store does the same way on every SQL database, around the writes its
// statements make: the checks of what a call names (an id that is no UUID names nothing), the
// creation of an identity by external id that two concurrent calls agree on, and the keys a write
// changed told to the key store once it committed (a revocation among them acknowledged).
import {
  type CreditChange,
  changedCredits,
  type IdentityAuditWrite,
  type IdentityChange,
  type IdentityCreditChangeResult,
  type IdentityDeletion,
  type IdentityRecord,
  type KeyRecord,
  keptCreditsLowAt,
  refilled,
} from '@keyward/core'
import { UUID } from './key-rows.js'
import type { KeyChange } from './store-base.js'

/** @internal A write of identities: what it returns, and the keys whose verification it changed. */
export interface IdentityWrite<T> {
  readonly result: T
  readonly keys: readonly KeyChange[]
}

/**
 * @internal A change of an identity's credit pool by core's rules: its balance `before` (the
 * refill due at `now` applied) and `after`, and whether the pool appears or goes (`pooled`), which
 * is what verifications of the identity's keys read, and the low-credits threshold it keeps
 * (`lowAt`).
 */
export function identityCreditChange(current: IdentityRecord, change: CreditChange, now: Date) {
  const { remaining, refill, refilledAt } = refilled(current, now)
  const before = { remaining, refill, refilledAt }
  const after = changedCredits(before, change, now, 'identity')
  const lowAt = keptCreditsLowAt(current.creditsLowAt, after)
  return { before, after, lowAt, pooled: (before.remaining === null) !== (after.remaining === null) }
}

/** @internal What an identity store tells its key store. */
export interface IdentityFeed {
  /** Told of a key a write changed what a verification answers of, once committed. */
  wrote(change: KeyChange): void
  /** Returns once a committed revocation is acknowledged (PostgreSQL's `strictRevocation`). */
  revoked?(committedAt: number): Promise<void>
}

/**
 * @internal The part of an identity store that is the same on every SQL database. A store
 * (`SqlIdentities`, `PostgresIdentities`) supplies the statements.
 */
export abstract class SqlIdentitiesBase {
  readonly #feed: IdentityFeed

  constructor(feed: IdentityFeed) {
    this.#feed = feed
  }

  abstract insertIdentity(record: IdentityRecord, audit?: IdentityAuditWrite): Promise<IdentityRecord | null>

  abstract findIdentityByExternalId(projectId: string, externalId: string): Promise<IdentityRecord | null>

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
    return this.readIdentity(id)
  }

  async updateIdentity(
    id: string,
    change: IdentityChange,
    updatedAt: Date,
    audit?: IdentityAuditWrite,
  ): Promise<IdentityRecord | null> {
    if (!UUID.test(id)) return null
    return this.#published(await this.update(id, change, updatedAt, audit))
  }

  async deleteIdentity(
    id: string,
    revokeKeys: boolean,
    audit?: IdentityAuditWrite,
  ): Promise<IdentityDeletion | null> {
    if (!UUID.test(id)) return null
    const done = await this.removeIdentity(id, revokeKeys, audit)
    if (!done) return null
    const committedAt = performance.now()
    const deletion = this.#published(done) as IdentityDeletion
    if ('revoked' in deletion && deletion.revoked.length > 0) await this.#feed.revoked?.(committedAt)
    return deletion
  }

  async setKeyIdentity(
    keyId: string,
    identityId: string | null,
    audit?: IdentityAuditWrite,
  ): Promise<KeyRecord | null> {
    if (!UUID.test(keyId) || (identityId !== null && !UUID.test(identityId))) return null
    const key = await this.moveKey(keyId, identityId, audit)
    if (key) this.#feed.wrote(key)
    return key
  }

  async changeIdentityCredits(
    id: string,
    change: CreditChange,
    now: Date,
    audit?: IdentityAuditWrite,
  ): Promise<IdentityCreditChangeResult | null> {
    if (!UUID.test(id)) return null
    return this.#published(await this.writeCredits(id, change, now, audit))
  }

  /** Reads an identity by its id (a UUID). */
  protected abstract readIdentity(id: string): Promise<IdentityRecord | null>

  /** Changes an identity's metadata or rate limits, with its audit rows. */
  protected abstract update(
    id: string,
    change: IdentityChange,
    updatedAt: Date,
    audit: IdentityAuditWrite | undefined,
  ): Promise<IdentityWrite<IdentityRecord> | null>

  /** Deletes an identity, its keys leaving it (the active ones revoked), or keeps one that has keys. */
  protected abstract removeIdentity(
    id: string,
    revokeKeys: boolean,
    audit: IdentityAuditWrite | undefined,
  ): Promise<IdentityWrite<IdentityDeletion> | null>

  /** Moves a key into an identity, or out of its own (`null`), with the audit rows. */
  protected abstract moveKey(
    keyId: string,
    identityId: string | null,
    audit: IdentityAuditWrite | undefined,
  ): Promise<KeyRecord | null>

  /** Changes an identity's credit pool by core's rules, under its row's lock, with its audit rows. */
  protected abstract writeCredits(
    id: string,
    change: CreditChange,
    now: Date,
    audit: IdentityAuditWrite | undefined,
  ): Promise<IdentityWrite<IdentityCreditChangeResult> | null>

  #published<T>(write: IdentityWrite<T> | null): T | null {
    if (!write) return null
    for (const key of write.keys) this.#feed.wrote(key)
    return write.result
  }
}
