import type { KeywardRequest } from '../http/types.js'
import type { IdentityInfo } from '../identities/model.js'
import type { KeyMetadata, PermissionRequirement } from '../policy/policies.js'

/**
 * What an operation requires:
 * - `developer`: a developer key; with `projectId`, the developer must own that project;
 * - `project`: an API key of the request's `projectId`; without `projectId`, any active API key
 *   (the context says whose);
 * - `elevated`: a developer key and an API key of `projectId`, the developer owning it.
 *
 * @example
 * ```ts
 * await keyward.authenticate({ projectKey }, { scope: 'project', projectId: 'proj_1' })
 * ```
 */
export type Requirement =
  | { readonly scope: 'developer'; readonly projectId?: string }
  | { readonly scope: 'project'; readonly projectId?: string; readonly permissions?: PermissionRequirement }
  | { readonly scope: 'elevated'; readonly projectId: string; readonly permissions?: PermissionRequirement }

/** The keys a request presented, as read from its headers. */
export interface Credentials {
  /** The value of `X-Developer-Key`. */
  readonly developerKey?: string | null | undefined
  /** The value of `X-API-Key`. */
  readonly projectKey?: string | null | undefined
  /**
   * The client's address (`clientAddress(request, trustedProxy)`), checked against an API key's
   * IP allowlist. A key that has an allowlist is refused when it is absent.
   */
  readonly address?: string | undefined
  /**
   * The request the keys came with, when there is one (the guards pass it): usage counts a
   * refusal of an unknown or malformed key by its route and client address (the request's, not
   * `address`). Read only then.
   */
  readonly request?: KeywardRequest | undefined
}

/** A verified key, by id and display prefix. */
export interface KeyRef {
  readonly id: string
  readonly keyPrefix: string
}

/** A request authenticated with a developer key. */
export interface DeveloperAuth {
  readonly scope: 'developer'
  readonly developerId: string
  /** Set when the requirement named a project the developer owns. */
  readonly projectId?: string
  readonly developerKey: KeyRef
}

/**
 * A request authenticated with an API key; every request it makes is scoped to `projectId`.
 * `M` types the key's metadata (it is not checked against `M`: declare what you store).
 */
export interface ProjectAuth<M extends KeyMetadata = KeyMetadata> {
  readonly scope: 'project'
  readonly projectId: string
  readonly projectKey: KeyRef
  /** The key's permissions, its own and its roles' (wildcards as granted), or `null` for every declared permission. */
  readonly permissions: readonly string[] | null
  /** The key's metadata, or `null`. Never logged by Keyward. */
  readonly metadata: M | null
  /** The identity the key belongs to (its id, external id and metadata), or `null`. */
  readonly identity: IdentityInfo | null
}

/** A request authenticated with both keys, for an elevated operation on `projectId`. */
export interface ElevatedAuth<M extends KeyMetadata = KeyMetadata> {
  readonly scope: 'elevated'
  readonly developerId: string
  readonly projectId: string
  readonly developerKey: KeyRef
  readonly projectKey: KeyRef
  /** The API key's permissions, its own and its roles', or `null` for every declared permission. */
  readonly permissions: readonly string[] | null
  /** The API key's metadata, or `null`. */
  readonly metadata: M | null
  /** The identity the API key belongs to, or `null`. */
  readonly identity: IdentityInfo | null
}

/** Any authenticated request. Switch on `scope`. */
export type AuthContext = DeveloperAuth | ProjectAuth | ElevatedAuth

/** The context that a requirement yields. */
export type AuthContextFor<R extends Requirement> = R extends { scope: 'developer' }
  ? DeveloperAuth
  : R extends { scope: 'project' }
    ? ProjectAuth
    : R extends { scope: 'elevated' }
      ? ElevatedAuth
      : AuthContext
