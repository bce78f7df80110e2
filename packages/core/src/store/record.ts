// The records a store keeps and hands back. Apart from the store interface (./types.ts) so that
// the modules its methods take (audit rows, credits, usage) can name a record without a circle.

import type { CreditsLowAt } from '../credits/low-at.js'
import type { CreditRefill, CreditState } from '../credits/types.js'
import type { IdentityInfo } from '../identities/model.js'
import type { KeyKind } from '../key/format.js'
import type { KeyMetadata, StoredRateLimit } from '../policy/policies.js'
import type { KeyFilter } from './key-filter.js'

/**
 * A stored key. It holds the SHA-256 hash and the 8-character `keyPrefix`, never the key.
 * The owner is a developer (`ownerType: 'developer'`, the spec's `developer_id`) or a
 * project (`ownerType: 'project'`, `project_id`); the owner decides the key's type.
 */
export interface KeyRecord {
  /** Stable identifier of the record (a UUID for the stores Keyward ships). */
  readonly id: string
  /**
   * SHA-256 of the full key, 64 lower-case hex characters, or with a pepper (`pepperId`) its
   * HMAC-SHA-256 under that pepper. Unique.
   */
  readonly hash: string
  /**
   * The id of the pepper `hash` was made with (option `hashing.pepper` of `createKeyward`);
   * absent (or `null`) for a plain SHA-256. A store hands back absent for none. Never the secret.
   */
  readonly pepperId?: string | null
  /** The first 8 characters of the key, for display. Not unique. */
  readonly keyPrefix: string
  /** Whether the key belongs to a developer or to a project. */
  readonly ownerType: KeyKind
  /** The `developer_id` or `project_id` the key belongs to. */
  readonly ownerId: string
  /** The descriptive name given at creation, or `null`. */
  readonly name: string | null
  /** Only active keys pass authentication. */
  readonly active: boolean
  /** When the key was issued. */
  readonly createdAt: Date
  /**
   * When the key stops passing authentication, or `null` (absent means `null`) for never.
   * A rolled key gets the end of its grace window here.
   */
  readonly expiresAt?: Date | null
  /** When the key last passed authentication, as recorded off the hot path; `null` if never. */
  readonly lastUsedAt?: Date | null
  /** The id of the key that replaced this one by a roll, or `null`. A rolled key is in its grace window. */
  readonly replacedBy?: string | null
  /**
   * Why the key was deactivated: `'leaked'` when a leak report revoked it
   * (`keyward.revokeLeakedKeys`), `'revoked'` for any other deactivation; absent (or `null`)
   * while it is active. A store that does not keep it may leave it out: an inactive key is then
   * reported as `'revoked'`.
   */
  readonly revokedReason?: RevokedReason | null
  /**
   * The addresses and CIDR ranges (IPv4 or IPv6) an API key may be used from; `null` (absent
   * means `null`) for anywhere. A list that cannot be parsed refuses every request (fail closed).
   */
  readonly ipAllowlist?: readonly string[] | null
  /** The permissions an API key carries; `null` (absent means `null`) for every declared permission. */
  readonly permissions?: readonly string[] | null
  /** A JSON object the host attached to the key, handed to the guards; `null` for none. Never logged. */
  readonly metadata?: KeyMetadata | null
  /**
   * The credits an API key has left (an integer of 0 or more), or `null` (absent means `null`)
   * for unlimited. The stored balance: credits that processes leased are spent already from the
   * key's viewpoint. A record read from a verification cache may hold an older balance; only
   * whether it is `null` is used there.
   */
  readonly remaining?: number | null
  /**
   * An API key's own named rate limits (at most 5), which the guards count per key; absent (or
   * `null`) for none. A store hands back absent for none.
   */
  readonly ratelimits?: readonly StoredRateLimit[] | null
  /** How the key's credits come back, or `null` for never. */
  readonly refill?: CreditRefill | null
  /** When the key's credits are low (webhook event `credits.low`), or `null` (absent) for never. */
  readonly creditsLowAt?: CreditsLowAt | null
  /** The start of the last refill period applied to the balance, or `null`. Written by the store. */
  readonly refilledAt?: Date | null
  /** The identity the key belongs to (an API key only), whose limits and credit pool it shares; `null` for none. */
  readonly identityId?: string | null
  /**
   * What a verification answers of the key's identity, read with the key: a store may join it in
   * `findKeyByHash`; when it does not, the service reads the identity after the key. Absent on
   * records of other reads.
   */
  readonly identity?: IdentityInfo | null
  /**
   * The credits left in the pool of the key's identity when the key was read, or `null` when the
   * identity has no pool (or the key no identity): read with `identity`, and absent where it is.
   * Verifications spend from the pool when it is not `null`; its value is only a hint for the
   * first lease, as `remaining` is for the key's own credits. A store that joins `identity` in
   * `findKeyByHash` joins this too (else the service reads the identity after the key).
   */
  readonly identityRemaining?: number | null
  /**
   * The named rate limits of the key's identity, shared by all its keys, read with the key as
   * `identity` is (a store that joins `identity` joins them too); absent when it has none, and on
   * records of other reads (`undefined` on a joined record of an identity without limits).
   */
  readonly identityRatelimits?: readonly StoredRateLimit[] | undefined
  /**
   * The ids of the roles the key holds (an API key only), whose permissions it has besides its
   * own; absent (or `null`, or empty) for none. A store hands back absent or `null` for none.
   */
  readonly roleIds?: readonly string[] | null
  /**
   * The ids of the roles the key's identity holds, read with `identity` (a store that joins
   * `identity` joins them too): the key has their permissions as it has its own roles'. Absent
   * when the identity holds none, and on records of other reads (`undefined` on a joined record
   * of an identity without roles).
   */
  readonly identityRoleIds?: readonly string[] | undefined
  /**
   * The permissions of the key's roles and of its identity's roles, read with the key: a store
   * may join them in `findKeyByHash` (with {@link roles}); when it does not, the service reads the
   * roles after the key. Absent on records of other reads.
   */
  readonly rolePermissions?: readonly string[]
  /** The names of the key's own roles (not its identity's), read with {@link rolePermissions}. */
  readonly roles?: readonly string[]
}

/** What {@link KeyStore.changeCredits} did: the credits before the change (after a due refill) and the record after. */
export interface CreditChangeResult {
  readonly before: CreditState
  readonly record: KeyRecord
}

/** Why a key was deactivated, as {@link KeyRecord.revokedReason} keeps it. */
export type RevokedReason = 'leaked' | 'revoked'

/** Whose keys: a developer's or a project's. */
export interface KeyOwner {
  readonly type: KeyKind
  readonly id: string
}

/**
 * What a store's `leaseCredits` granted: `granted` credits taken from the balance, and the
 * balance left (`remaining`, `null` for a key without a limit) with its refill rule.
 */
export interface CreditLease {
  readonly granted: number
  readonly remaining: number | null
  readonly refill: CreditRefill | null
  /**
   * The start of the refill period the balance is in (`null` without a rule); absent from a
   * store that does not return it, whose leases then raise no `credits.*` webhook events.
   */
  readonly refilledAt?: Date | null
  /** The low-credits threshold of the key or the pool (`null`: none; absent as above). */
  readonly lowAt?: CreditsLowAt | null
}

/** One lease of a batch (a store's `leaseCreditsMany`): a key's id, the credits asked for and needed. */
export interface CreditLeaseRequest {
  readonly id: string
  readonly want: number
  readonly need: number
}

/**
 * Where a page of a listing starts: after the record with this `createdAt` and `id`, in the
 * listing's order (newest first: `createdAt` descending, then `id` descending). `createdAt` is
 * a `Date`, or an RFC 3339 time in UTC with up to 6 fractional digits for a store that keeps
 * microseconds (PostgreSQL): a store gives it as precise as it compares it.
 */
export interface KeyPagePosition {
  readonly createdAt: Date | string
  readonly id: string
}

/** What a store's `listKeysPage` is asked for. */
export interface KeyPageQuery {
  /** How many records at most, 1 to 200. */
  readonly limit: number
  /** Start after this record; absent for the first page. */
  readonly after?: KeyPagePosition
  /** Only the keys it keeps (the rule of `matchesKeyFilter`); absent for every key. */
  readonly filter?: KeyFilter
}
