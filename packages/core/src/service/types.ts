// What the service's topics share: the rules they check and what a write reaches of the service
// (its store, clock, events, cache and audit rows). It imports none of the topics, so that each of
// them can import it without a circle.
import type { KeyHashing } from '../hash/pepper.js'
import type { KeyKind } from '../key/format.js'
import type { KeyRecord, KeyStore } from '../store/types.js'
import type { AuditRows } from './audit-rows.js'
import type { KeywardEvent } from './events.js'

/**
 * Policies of every key of one owner type (option `keyPolicies` of `createKeyward`).
 *
 * @example
 * ```ts
 * const keyPolicies: OwnerKeyPolicies = { project: { maxLifetimeDays: 90 } }
 * ```
 */
export type OwnerKeyPolicies = Partial<Readonly<Record<KeyKind, { readonly maxLifetimeDays?: number }>>>

/** @internal The key policies of a service: its declared permissions and its owner types' maximum lifetimes. */
export interface PolicyRules {
  readonly declared: ReadonlySet<string>
  readonly owners: OwnerKeyPolicies
}

/**
 * @internal A call of the store: a failure that is not a `KeywardError` becomes 503
 * `store_unavailable`, reported as `store.error`.
 */
export type StoreCall = <T>(operation: string, run: () => Promise<T>) => Promise<T>

/** @internal The owner of a key, as the audit log knows it: a developer, or a project. */
export type KeyOwnerFields = Pick<KeyRecord, 'ownerType' | 'ownerId'>

/** @internal The developer whose audit log holds the rows of these owners' keys. */
export type DevelopersOf = (
  owners: readonly KeyOwnerFields[],
) => Promise<(record: KeyOwnerFields) => string | null>

/** @internal What a write through the service needs of it. */
export interface Writes {
  readonly store: KeyStore
  readonly storeCall: StoreCall
  now(): Date
  emit(event: KeywardEvent): void
  /** Tells the service's cache that the key with this hash was written (or may have been). */
  wrote(hash: string): void
  /** The service's declared permissions and maximum lifetimes. */
  readonly rules: PolicyRules
  /** The audit rows of the service's writes. */
  readonly auditRows: AuditRows
  /** The developer whose audit log holds a key's rows. */
  readonly developersOf: DevelopersOf
  /** How new keys are hashed (option `hashing`), and a presented key looked up. */
  readonly hashing: KeyHashing
}
