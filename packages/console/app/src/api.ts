// The one place where the page talks to the server: the console's session, and the documented
// HTTP API (the key routes), authenticated by the session cookie.
import {
  type ApiKeyInfo,
  type AuditEntry,
  type ChangeCreditsBody,
  type CreateApiKeyBody,
  type CreatedApiKey,
  type CreatedDeveloperKey,
  type CreateIdentityBody,
  type CreateRoleBody,
  type CreateWebhookEndpointBody,
  createClient,
  type DeletedIdentity,
  type DeletedRole,
  type DeveloperKeyInfo,
  type Identity,
  KeywardApiError,
  type Project,
  type RateLimit,
  type Role,
  type RolledApiKey,
  type RolledDeveloperKey,
  type SetKeyExpiryBody,
  type UpdateApiKeyBody,
  type UpdateIdentityBody,
  type UpdateRoleBody,
  type UpdateWebhookEndpointBody,
  type Usage,
  type WebhookAttemptList,
  type WebhookEndpoint,
  type WebhookEndpointWithSecret,
} from '@keyward/client'
import type { Granularity } from './usage'

export type {
  ApiKeyInfo,
  AuditEntry,
  ChangeCreditsBody,
  CreatedApiKey,
  CreatedDeveloperKey,
  CreateIdentityBody,
  CreateWebhookEndpointBody,
  DeletedIdentity,
  DeveloperKeyInfo,
  Identity,
  Project,
  RateLimit,
  Role,
  UpdateIdentityBody,
  UpdateWebhookEndpointBody,
  Usage,
  WebhookEndpoint,
  WebhookEndpointWithSecret,
}

/** One attempt of a webhook delivery, as an endpoint's delivery log keeps it. */
export type WebhookAttempt = WebhookAttemptList['attempts'][number]
/** A type of webhook event. */
export type WebhookEventType = WebhookAttempt['event_type']

/** A key as lists show it, of either kind. */
export type KeyInfo = (ApiKeyInfo | DeveloperKeyInfo) & { revoked_reason?: string | null }
/** A key as its creation shows it: with the key itself, once. */
export type CreatedKey = CreatedApiKey | CreatedDeveloperKey
export type RolledKey = RolledApiKey | RolledDeveloperKey

/** The signed-in developer, as `GET session` tells. */
export interface Session {
  readonly developer_id: string
  readonly key_prefix: string
  readonly display: string
  readonly idle_timeout_seconds: number
  readonly expires_at: string
  /** The permission names the host declares, which an API key may carry (none: keys carry no list). */
  readonly permissions: readonly string[]
}

/** One page of a list, and the cursor of the next (`null` on the last). */
export interface Page<T> {
  readonly items: readonly T[]
  readonly next: string | null
}

/** A refusal of the server: its status, `type`, message, and where the error is (`loc`). */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly type: string,
    message: string,
    readonly loc: readonly (string | number)[] = [],
  ) {
    super(message)
  }
}

let onSignedOut: (message: string) => void = () => {}

/** Called when the server says the session has ended (sign-out elsewhere, idle, a revoked key). */
export function whenSignedOut(listener: (message: string) => void): void {
  onSignedOut = listener
}

/** What a failure says to the reader: the server's message, or a plain one for anything else. */
export function messageOf(failure: unknown): string {
  return failure instanceof ApiError ? failure.message : 'Something went wrong. Try again.'
}

/** The server's refusal as the page shows it; a session that has ended signs the page out. */
function refusal(failure: unknown): ApiError {
  const error =
    failure instanceof KeywardApiError
      ? new ApiError(
          failure.status,
          failure.detail[0]?.type ?? 'http_error',
          failure.detail[0]?.msg ?? failure.message,
          failure.detail[0]?.loc ?? [],
        )
      : failure instanceof ApiError
        ? failure
        : new ApiError(
            0,
            'network_error',
            'The server cannot be reached. Check your connection and try again.',
          )
  if (error.type === 'session_invalid') onSignedOut(error.message)
  return error
}

/** Runs one call of the API, its refusal turned into an {@link ApiError}. */
async function call<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work()
  } catch (failure) {
    throw refusal(failure)
  }
}

/**
 * How far the server's clock is ahead of this browser's, in ms, from the `Date` of its last answer
 * (to the second): an expiry the page sets is a time of the server's clock.
 */
let serverClockAhead = 0

// The typed client of the HTTP API, authenticated by the session cookie; each call says it comes
// from the console's page, which another origin cannot say (see the console's docs). Each answer
// tells the server's clock.
const client = createClient({
  baseUrl: location.origin,
  session: true,
  fetch: async (url, init) => {
    const headers = new Headers(init.headers)
    headers.set('x-keyward-console', '1')
    const response = await fetch(url, { ...init, headers })
    const serverTime = Date.parse(response.headers.get('date') ?? '')
    if (!Number.isNaN(serverTime)) serverClockAhead = serverTime - Date.now()
    return response
  },
})

/** A call of the console's own session endpoint (not part of the API: the client has none). */
async function sessionCall<T>(method: string, headers: Record<string, string> = {}): Promise<T> {
  let response: Response
  try {
    response = await fetch(new URL('session', location.href).pathname, {
      method,
      credentials: 'same-origin',
      headers,
    })
  } catch (failure) {
    throw refusal(failure)
  }
  if (response.ok) return (response.status === 204 ? undefined : await response.json()) as T
  const body = (await response.json().catch(() => ({}))) as { detail?: { msg?: string; type?: string }[] }
  const first = body.detail?.[0]
  throw new ApiError(
    response.status,
    first?.type ?? 'http_error',
    first?.msg ?? `The server answered ${response.status}.`,
  )
}

// The session's first check, asked for when the script starts (before the first render): taken
// once, by the page's first look.
let firstCheck: Promise<Session> | undefined

/** Starts the session's first check at once; {@link session}'s next `current()` takes its answer. */
export function checkSessionEarly(): void {
  firstCheck = sessionCall<Session>('GET')
  firstCheck.catch(() => {})
}

export const session = {
  current: () => {
    const early = firstCheck
    firstCheck = undefined
    return early ?? sessionCall<Session>('GET')
  },
  /** Exchanges a developer key for the session cookie; the key is sent once, in a header. */
  signIn: (developerKey: string) => sessionCall<Session>('POST', { 'x-developer-key': developerKey }),
  signOut: () => sessionCall<void>('DELETE'),
}

const LIMIT = 50
// The largest page the API gives, for a count that reads every page.
const MAX_LIMIT = 200
const page = <T>(items: readonly T[], next: string | null | undefined): Page<T> => ({
  items,
  next: next ?? null,
})

/** An expiry change: an instant with its offset, or `null` for none. */
export type ExpiryBody = SetKeyExpiryBody

/** An API key's access policies, as creation takes them. */
export type KeyPolicies = Pick<
  CreateApiKeyBody,
  'ip_allowlist' | 'permissions' | 'roles' | 'metadata' | 'ratelimits'
>

/**
 * A change of an API key's access policies, or of its low-credits threshold: a field left out
 * stays, `null` removes it.
 */
export type PolicyChange = Pick<
  UpdateApiKeyBody,
  'ip_allowlist' | 'permissions' | 'roles' | 'metadata' | 'ratelimits' | 'credits_low_at'
>

/** The calls of one kind of key. */
export interface KeyCalls {
  /** The project of API keys; absent for developer keys. */
  readonly projectId?: string
  list(cursor: string | null, filter?: KeySearch): Promise<Page<KeyInfo>>
  /** One key, by its id. */
  get(keyId: string): Promise<KeyInfo>
  /** The usage counts of one key (`keyId`) or of all of them, in a range of buckets. */
  usage(range: UsageRange): Promise<Usage>
  create(name: string, expiresInDays?: number, policies?: KeyPolicies): Promise<CreatedKey>
  revoke(keyId: string): Promise<KeyInfo>
  activate(keyId: string): Promise<KeyInfo>
  roll(keyId: string, graceSeconds: number): Promise<RolledKey>
  setExpiry(keyId: string, body: ExpiryBody): Promise<KeyInfo>
  /** Sets, adds to or subtracts from an API key's credits (API keys only). */
  changeCredits?(keyId: string, body: ChangeCreditsBody): Promise<KeyInfo>
  /** Changes an API key's access policies (API keys only). */
  updatePolicies?(keyId: string, change: PolicyChange): Promise<KeyInfo>
  /** Puts an API key in one of the project's identities, or (`null`) takes it out (API keys only). */
  setIdentity?(keyId: string, identityId: string | null): Promise<KeyInfo>
}

/** Which keys a list shows: those whose name or prefix matches `q`, of one status. */
export interface KeySearch {
  readonly q?: string
  readonly status?: 'active' | 'expired' | 'revoked' | 'leaked'
}

/** What a chart asks the usage endpoints for: a range of buckets, of one key or of all. */
export interface UsageRange {
  readonly from: Date
  readonly to: Date
  readonly granularity: Granularity
  readonly keyId?: string
}

const creation = (name: string, expiresInDays?: number) => ({
  ...(name === '' ? {} : { name }),
  ...(expiresInDays === undefined ? {} : { expires_in_days: expiresInDays }),
})

export const developerKeys: KeyCalls = {
  list: (cursor, filter) =>
    call(async () => {
      const listed = await client.developerKeys.list({ cursor, limit: LIMIT, ...filter })
      return page(listed.keys, listed.next_cursor)
    }),
  get: (keyId) => call(() => client.developerKeys.get(keyId)),
  usage: (range) => call(() => client.usage.developer(range)),
  create: (name, days) => call(() => client.developerKeys.create(creation(name, days))),
  revoke: (keyId) => call(() => client.developerKeys.deactivate(keyId)),
  activate: (keyId) => call(() => client.developerKeys.activate(keyId)),
  roll: (keyId, grace) => call(() => client.developerKeys.roll(keyId, { grace_seconds: grace })),
  setExpiry: (keyId, body) => call(() => client.developerKeys.setExpiry(keyId, body)),
}

export const projectKeys = (projectId: string): KeyCalls => ({
  projectId,
  get: (keyId) => call(() => client.apiKeys.get(projectId, keyId)),
  usage: (range) => call(() => client.usage.project(projectId, range)),
  list: (cursor, filter) =>
    call(async () => {
      const listed = await client.apiKeys.list(projectId, { cursor, limit: LIMIT, ...filter })
      return page(listed.keys, listed.next_cursor)
    }),
  create: (name, days, policies) =>
    call(() => client.apiKeys.create(projectId, { ...creation(name, days), ...policies })),
  revoke: (keyId) => call(() => client.apiKeys.deactivate(projectId, keyId)),
  activate: (keyId) => call(() => client.apiKeys.activate(projectId, keyId)),
  roll: (keyId, grace) => call(() => client.apiKeys.roll(projectId, keyId, { grace_seconds: grace })),
  setExpiry: (keyId, body) => call(() => client.apiKeys.setExpiry(projectId, keyId, body)),
  changeCredits: (keyId, body) => call(() => client.apiKeys.changeCredits(projectId, keyId, body)),
  updatePolicies: (keyId, change) => call(() => client.apiKeys.update(projectId, keyId, change)),
  setIdentity: (keyId, identityId) =>
    call(() => client.apiKeys.update(projectId, keyId, { identity_id: identityId })),
})

/** How many keys belong to an identity, and how many of them are active. */
export interface KeyCount {
  readonly all: number
  readonly active: number
}

/** The calls of one project's identities. */
export interface IdentityCalls {
  readonly projectId: string
  /** A page of the project's identities, newest first; with `q`, those whose external id contains it. */
  list(cursor: string | null, q?: string): Promise<Page<Identity>>
  get(identityId: string): Promise<Identity>
  /** The identity of the host's id for it, or `null`. */
  find(externalId: string): Promise<Identity | null>
  create(body: CreateIdentityBody): Promise<Identity>
  update(identityId: string, change: UpdateIdentityBody): Promise<Identity>
  delete(identityId: string, revokeKeys: boolean): Promise<DeletedIdentity>
  /** A page of its API keys, newest first. */
  keys(identityId: string, cursor: string | null): Promise<Page<ApiKeyInfo>>
  /** How many keys it has, every page read. */
  countKeys(identityId: string): Promise<KeyCount>
  usage(identityId: string, range: UsageRange): Promise<Usage>
  /** Sets, adds to or subtracts from its credit pool ("Credits…" on its page). */
  changeCredits?(identityId: string, body: ChangeCreditsBody): Promise<Identity>
}

export const identities = (projectId: string): IdentityCalls => ({
  projectId,
  list: (cursor, q) =>
    call(async () => {
      const listed = await client.identities.list(projectId, {
        cursor,
        limit: LIMIT,
        ...(q === undefined ? {} : { q }),
      })
      return page(listed.identities, listed.next_cursor)
    }),
  get: (identityId) => call(() => client.identities.get(projectId, identityId)),
  find: (externalId) => call(() => client.identities.findByExternalId(projectId, externalId)),
  create: (body) => call(() => client.identities.create(projectId, body)),
  update: (identityId, change) => call(() => client.identities.update(projectId, identityId, change)),
  delete: (identityId, revokeKeys) =>
    call(() => client.identities.delete(projectId, identityId, { revokeKeys })),
  keys: (identityId, cursor) =>
    call(async () => {
      const listed = await client.identities.keys(projectId, identityId, { cursor, limit: LIMIT })
      return page(listed.keys, listed.next_cursor)
    }),
  countKeys: (identityId) =>
    call(async () => {
      let all = 0
      let active = 0
      let cursor: string | null = null
      do {
        const listed: Awaited<ReturnType<typeof client.identities.keys>> = await client.identities.keys(
          projectId,
          identityId,
          { cursor, limit: MAX_LIMIT },
        )
        all += listed.keys.length
        active += listed.keys.filter((key) => key.active).length
        cursor = listed.next_cursor
      } while (cursor !== null)
      return { all, active }
    }),
  changeCredits: (identityId, body) =>
    call(() => client.identities.changeCredits(projectId, identityId, body)),
  usage: (identityId, range) => call(() => client.identities.usage(projectId, identityId, range)),
})

/** The calls of one project's roles: named sets of permissions that its API keys hold by name. */
export interface RoleCalls {
  readonly projectId: string
  /** A page of the project's roles, newest first. */
  list(cursor: string | null): Promise<Page<Role>>
  /** The names of the project's roles, every page read (what a key's roles field suggests). */
  names(): Promise<string[]>
  create(body: CreateRoleBody): Promise<Role>
  update(roleId: string, change: UpdateRoleBody): Promise<Role>
  /** Deletes a role; with `detach`, takes it from the keys that hold it in the same change. */
  delete(roleId: string, detach: boolean): Promise<DeletedRole>
}

export const roles = (projectId: string): RoleCalls => ({
  projectId,
  list: (cursor) =>
    call(async () => {
      const listed = await client.roles.list(projectId, { cursor, limit: LIMIT })
      return page(listed.roles, listed.next_cursor)
    }),
  names: () =>
    call(async () => {
      const names: string[] = []
      for await (const role of client.roles.listAll(projectId)) names.push(role.name)
      return names.sort()
    }),
  create: (body) => call(() => client.roles.create(projectId, body)),
  update: (roleId, change) => call(() => client.roles.update(projectId, roleId, change)),
  delete: (roleId, detach) => call(() => client.roles.delete(projectId, roleId, { detach })),
})

/** Which rows of the audit log a page reads: of one project, about one key or identity, of one action. */
export interface AuditSearch {
  readonly projectId?: string
  readonly keyId?: string
  readonly identityId?: string
  readonly action?: AuditEntry['action']
}

/** The signed-in developer's audit log, newest first. */
export const audit = {
  /** A page of the log; of the rows `search` names. */
  list: (cursor: string | null, search: AuditSearch = {}, limit = LIMIT): Promise<Page<AuditEntry>> =>
    call(async () => {
      const listed = await client.audit.list({ cursor, limit, ...search })
      return page(listed.entries, listed.next_cursor)
    }),
}

/** What a redelivery sends again: one event, or those of a time range (at most 30 days). */
export type Redelivery = { readonly event_id: string } | { readonly from: string; readonly to: string }

/** The signed-in developer's webhook endpoints (at most 10, not paged) and their delivery logs. */
export const webhooks = {
  list: (): Promise<readonly WebhookEndpoint[]> => call(async () => (await client.webhooks.list()).endpoints),
  get: (endpointId: string) => call(() => client.webhooks.get(endpointId)),
  create: (body: CreateWebhookEndpointBody) => call(() => client.webhooks.create(body)),
  update: (endpointId: string, change: UpdateWebhookEndpointBody) =>
    call(() => client.webhooks.update(endpointId, change)),
  delete: (endpointId: string) => call(() => client.webhooks.delete(endpointId)),
  /** A new signing secret; the previous one signs too for `graceSeconds`. */
  rollSecret: (endpointId: string, graceSeconds: number) =>
    call(() => client.webhooks.rollSecret(endpointId, { grace_seconds: graceSeconds })),
  /** The delivery log: the last 100 attempts, newest first (the API does not page it). */
  attempts: (endpointId: string): Promise<readonly WebhookAttempt[]> =>
    call(async () => (await client.webhooks.attempts(endpointId)).attempts),
  /** How many deliveries are due again. */
  redeliver: (endpointId: string, which: Redelivery) =>
    call(async () => (await client.webhooks.redeliver(endpointId, which)).redelivered),
  /** Sends a `webhook.test` event; its `webhook-id`. */
  test: (endpointId: string) => call(async () => (await client.webhooks.test(endpointId)).event_id),
}

const listProjects = async (cursor: string | null) => {
  const listed = await client.projects.list({ cursor, limit: LIMIT })
  return page(listed.projects, listed.next_cursor)
}

// How long the first page of projects asked for at the start is good for.
const PREFETCH_MS = 10_000
let prefetched: { readonly at: number; readonly page: Promise<Page<Project>> } | undefined

/**
 * Asks for the first page of projects at once, while the session is checked (not after it): the
 * projects page, the one a visit opens most, then shows it a round trip sooner. Its first call of
 * `projects.list` takes the answer, within a few seconds; a failure (a visit not signed in) is left
 * unsaid, and that call asks again.
 */
export function prefetchProjects(): void {
  const first = listProjects(null)
  first.catch(() => {})
  prefetched = { at: Date.now(), page: first }
}

export const projects = {
  list: (cursor: string | null) => {
    const early =
      cursor === null && prefetched && Date.now() - prefetched.at < PREFETCH_MS ? prefetched : undefined
    if (cursor === null) prefetched = undefined
    return call(() => (early ? early.page.catch(() => listProjects(null)) : listProjects(cursor)))
  },
  create: (name: string) => call(() => client.projects.create({ name })),
  /**
   * Deletes a project: an elevated operation, which needs a key of the project besides the
   * developer's. The console issues one that expires in a few minutes; the deletion ends it with
   * the project, and a deletion that fails revokes it.
   */
  delete: (projectId: string) =>
    call(async () => {
      const expiresAt = new Date(Date.now() + serverClockAhead + DELETION_KEY_MINUTES * 60_000).toISOString()
      const issued = await client.apiKeys.create(projectId, {
        name: 'console: deletion',
        expires_at: expiresAt,
      })
      try {
        await client.withProjectKey(issued.key).projects.delete(projectId)
      } catch (failure) {
        // Whatever the revocation's fate, the refusal shown is the deletion's; the key expires anyway.
        await client.apiKeys.deactivate(projectId, issued.id).catch(() => {})
        throw failure
      }
    }),
}

/** How long the key the console issues to delete a project lives, in minutes. */
const DELETION_KEY_MINUTES = 5

/**
 * What the host serves besides the key routes, as its OpenAPI document (`GET /openapi.json`)
 * lists it: whether it deletes projects. A host without the document offers what every host of
 * the key routes offers, and no deletion.
 */
export async function hostOperations(): Promise<{ readonly deletesProjects: boolean }> {
  try {
    const response = await fetch('/openapi.json', { credentials: 'omit' })
    // Read whole either way: a body left unread keeps the request open in some browsers.
    const text = await response.text()
    if (!response.ok) return { deletesProjects: false }
    const document = JSON.parse(text) as { paths?: Record<string, Record<string, unknown> | undefined> }
    return { deletesProjects: document.paths?.['/api/v1/projects/{project_id}']?.delete !== undefined }
  } catch {
    return { deletesProjects: false }
  }
}
