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
  | { readonly scope: 'project'; readonly projectId?: string }
  | { readonly scope: 'elevated'; readonly projectId: string }

/** The keys a request presented, as read from its headers. */
export interface Credentials {
  /** The value of `X-Developer-Key`. */
  readonly developerKey?: string | null | undefined
  /** The value of `X-API-Key`. */
  readonly projectKey?: string | null | undefined
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

/** A request authenticated with an API key; every request it makes is scoped to `projectId`. */
export interface ProjectAuth {
  readonly scope: 'project'
  readonly projectId: string
  readonly projectKey: KeyRef
}

/** A request authenticated with both keys, for an elevated operation on `projectId`. */
export interface ElevatedAuth {
  readonly scope: 'elevated'
  readonly developerId: string
  readonly projectId: string
  readonly developerKey: KeyRef
  readonly projectKey: KeyRef
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
