import type { CreditsLowAt } from '../credits/low-at.js'
import type { CreditRefill } from '../credits/types.js'
import type { KeyMetadata, StoredRateLimit } from '../policy/policies.js'

// A key carries stored limits as a policy: the type lives with the policies, and is named here too.
export type { StoredRateLimit }

/** The longest `external_id` of an identity, in characters. */
export const MAX_EXTERNAL_ID_LENGTH = 255

/** The most named rate limits of one key or identity. */
export const MAX_RATE_LIMITS = 5

/** The shortest window of a stored rate limit, in milliseconds: 1 s. */
export const MIN_RATE_LIMIT_DURATION_MS = 1000

/** The longest window of a stored rate limit, in milliseconds: 1 day. */
export const MAX_RATE_LIMIT_DURATION_MS = 86_400_000

/** The most requests (or cost) a stored rate limit allows per window. */
export const MAX_RATE_LIMIT = 1_000_000_000

/** A rate limit's name: a letter or digit, then letters, digits, `_ . : -`, at most 64 in all. */
export const RATE_LIMIT_NAME_PATTERN = /^[A-Za-z0-9][A-Za-z0-9_.:-]{0,63}$/

/**
 * One customer of the host's API, within a project: the keys that belong to it share its rate
 * limits and its credit pool, and verifications of them answer its id, `externalId` and metadata.
 */
export interface IdentityRecord {
  readonly id: string
  readonly projectId: string
  /** The host's own id for its customer: 1 to 255 characters, unique within the project. */
  readonly externalId: string
  readonly metadata: KeyMetadata | null
  readonly ratelimits: readonly StoredRateLimit[]
  /** The credit pool that every key of the identity spends from; `null` for none (unlimited). */
  readonly remaining: number | null
  readonly refill: CreditRefill | null
  readonly refilledAt: Date | null
  /** When the pool is low (webhook event `credits.low`); absent or `null` for never. */
  readonly creditsLowAt?: CreditsLowAt | null
  /**
   * The ids of the roles the identity holds, roles of its project: every key of the identity may
   * do what they allow, besides its own permissions and roles. Absent (or `null`, or empty) for
   * none; a store hands back absent or `null` for none.
   */
  readonly roleIds?: readonly string[] | null
  readonly createdAt: Date
  readonly updatedAt: Date
}

/** What a verification of a key answers of its identity. */
export interface IdentityInfo {
  readonly id: string
  readonly externalId: string
  readonly metadata: KeyMetadata | null
}

/** An identity as given at its creation, checked. */
export interface NewIdentity {
  readonly externalId: string
  readonly metadata: KeyMetadata | null
  readonly ratelimits: readonly StoredRateLimit[]
  readonly remaining: number | null
  readonly refill: CreditRefill | null
  /** When the pool is low (webhook event `credits.low`); absent or `null` for never. */
  readonly creditsLowAt?: CreditsLowAt | null
  /** The ids of the roles it holds; absent for none. */
  readonly roleIds?: readonly string[] | null
}

/** A change of an identity as given (`PATCH`): only what is present changes. */
export interface IdentityChange {
  readonly metadata?: KeyMetadata | null
  readonly ratelimits?: readonly StoredRateLimit[]
  /** The ids of the roles it holds from now on; `null` for none. */
  readonly roleIds?: readonly string[] | null
  /** When the pool is low from now on (checked against the pool by the service); `null` for never. */
  readonly creditsLowAt?: CreditsLowAt | null
}
