import {
  ClientConfigError,
  type ClientSetting,
  checkClientSetting,
  KEY_HEADER,
  type LegacyDeveloperKeyPolicy,
} from '@keyward/core/client'
import { type Call, type FetchLike, send, type Transport } from './request.js'
import type {
  AccessToken,
  ApiKeyInfo,
  AuditEntry,
  AuditLog,
  ChangeCreditsBody,
  CreateApiKeyBody,
  CreatedApiKey,
  CreatedDeveloperKey,
  CreatedProject,
  CreateIdentityBody,
  CreateKeyBody,
  CreateProjectBody,
  CreateRoleBody,
  CreateWebhookEndpointBody,
  Deleted,
  DeletedIdentity,
  DeletedRole,
  DeveloperKeyInfo,
  Generation,
  Health,
  Identity,
  IdentityList,
  KeyList,
  Project,
  ProjectList,
  RedeliverWebhookBody,
  Role,
  RoleList,
  RolledApiKey,
  RolledDeveloperKey,
  RollKeyBody,
  RollWebhookSecretBody,
  SetKeyExpiryBody,
  UpdateApiKeyBody,
  UpdateIdentityBody,
  UpdateRoleBody,
  UpdateWebhookEndpointBody,
  Usage,
  VerifyKeyBody,
  VerifyKeyResult,
  WebhookAttemptList,
  WebhookEndpoint,
  WebhookEndpointList,
  WebhookEndpointWithSecret,
  WebhookRedeliveryResult,
  WebhookTestResult,
} from './types.js'

/** Options of {@link createClient}. Checked once, when the client is built. */
export interface ClientOptions {
  /** The server, an absolute http(s) URL; paths such as `/api/v1/projects` are joined to it. */
  readonly baseUrl: string
  /** Sent as `X-Developer-Key` to the operations that need a developer. */
  readonly developerKey?: string
  /** Sent as `X-API-Key` to the operations that need a project's API key. */
  readonly projectKey?: string
  /** The `fetch` to use. Default: the platform's global `fetch` (Node 20+, Bun, Deno, browsers). */
  readonly fetch?: FetchLike
  /** How long a request may take, in milliseconds, before it fails with a timeout. Default 30000; `Infinity` for none. */
  readonly timeoutMs?: number
  /** Policy for a legacy `dk_` developer key. Default `reject`, as on the server. */
  readonly legacyDeveloperKeys?: LegacyDeveloperKeyPolicy
  /**
   * For a page in a browser signed in to the administrative console: the server authenticates
   * the developer by the session cookie of its origin. The client then sends no
   * `X-Developer-Key` (give no `developerKey`), developer operations need none, and every
   * request is made with `credentials: 'same-origin'`, so that the browser sends the cookie to
   * the page's own origin and to no other. A `projectKey` is still sent as `X-API-Key` where an
   * operation needs one (deleting a project: the session plus a key of that project).
   * Default `false`.
   */
  readonly session?: boolean
}

/** Options every call takes. */
export interface CallOptions {
  /** Aborts the request; the call then rejects with the signal's reason. */
  readonly signal?: AbortSignal
}

/** Options of a listing call: which page, and the call's options. */
export interface ListOptions extends CallOptions {
  /** How many items at most, 1 to 200; the server's default is 100. */
  readonly limit?: number
  /** The `next_cursor` of the previous page, as it is; none (or `null`) for the first page. */
  readonly cursor?: string | null
}

/** Options of a key listing: a page, and which keys (`q`, `status`). */
export interface KeyListOptions extends ListOptions {
  /** Only keys whose name contains it (any case) or whose prefix starts with it; 1 to 100 characters. */
  readonly q?: string
  /** Only keys of this status now. */
  readonly status?: 'active' | 'expired' | 'revoked' | 'leaked'
}

/** Options of an identity listing: a page, and which identities (`q`). */
export interface IdentityListOptions extends ListOptions {
  /** Only identities whose `external_id` contains it (any case); 1 to 255 characters. */
  readonly q?: string
}

/** Options of {@link KeywardClient.audit}'s `list`: a page, and which rows. */
export interface AuditListOptions extends ListOptions {
  /** Only this project's rows (one of the developer's projects; 404 `not_found` for any other). */
  readonly projectId?: string
  /** Only the rows about this key (its id). */
  readonly keyId?: string
  /** Only the rows about this identity (its id): its own, and its keys' joining or leaving it. */
  readonly identityId?: string
  /** Only the rows of this action, e.g. `key.revoked`. */
  readonly action?: AuditEntry['action']
  /** Only the rows at or after this time (a `Date` or an RFC 3339 time). */
  readonly from?: Date | string
  /** Only the rows before this time. */
  readonly to?: Date | string
}

/** Options of a usage call: the range and the size of its buckets, and the call's options. */
export interface UsageOptions extends CallOptions {
  /** The start of the range (a `Date` or an RFC 3339 time); the server's default is 24 hours before `to`. */
  readonly from?: Date | string
  /** The end of the range, exclusive; the server's default is now. */
  readonly to?: Date | string
  /** `minute`, `hour` or `day`; the server's default is `hour`. */
  readonly granularity?: 'minute' | 'hour' | 'day'
  /** Only this key (its id). */
  readonly keyId?: string
}

/** Options of {@link KeywardClient.identities}' `delete`. */
export interface DeleteIdentityOptions extends CallOptions {
  /**
   * Revoke the identity's keys and delete it, in one transaction. Without it, an identity that
   * still has keys is kept: 409 `identity_has_keys`.
   */
  readonly revokeKeys?: boolean
}

/** Options of {@link KeywardClient.roles}' `delete`. */
export interface DeleteRoleOptions extends CallOptions {
  /**
   * Take the role from every key that holds it and delete it, in one transaction. Without it, a
   * role that keys hold is kept: 409 `role_in_use`, whose message says how many keys hold it.
   */
  readonly detach?: boolean
}

/** Options of a walk over every page of a listing (`listAll`). */
export interface ListAllOptions extends CallOptions {
  /** How many items each request asks for, 1 to 200. Default 200: the fewest requests. */
  readonly limit?: number
}

/** Options of the generation calls, which authenticate with a bearer token. */
export interface BearerCallOptions extends CallOptions {
  /** A token from {@link KeywardClient.accessTokens}, sent as `Authorization: Bearer <token>`. */
  readonly accessToken: string
}

/** Options of {@link KeywardClient.keys}' `verify`: the call's options and the caller's credential. */
export interface VerifyCallOptions extends CallOptions {
  /**
   * A service token the server's operator configured, sent as `Authorization: Bearer <token>`
   * to verify keys of any project. Without it the call sends the developer key, which verifies
   * keys of the developer's own projects.
   */
  readonly serviceToken?: string
}

/**
 * A typed client of every endpoint of the Keyward HTTP API. Each call resolves to the JSON
 * body of the success answer, field for field as on the wire (snake_case), and rejects with
 * a {@link KeywardApiError} (the server's `detail` array and `type`) or a
 * {@link KeywardNetworkError} (no answer). Keys are sent in headers, never in URLs, and the
 * client holds them out of sight: they are not properties of this object.
 */
export interface KeywardClient {
  /** The base URL the client sends to, without a trailing slash. */
  readonly baseUrl: string
  /** The developer's own keys (`X-Developer-Key`). */
  readonly developerKeys: {
    /** `POST /api/v1/auth/developer-keys`: a new developer key; 409 `limit_exceeded` at the limit. */
    create(body?: CreateKeyBody, options?: CallOptions): Promise<CreatedDeveloperKey>
    /**
     * `GET /api/v1/auth/developer-keys`: one page of the developer's keys, newest first, without
     * the keys themselves; `next_cursor` asks for the next page (`null` on the last).
     */
    list(options?: KeyListOptions): Promise<KeyList<DeveloperKeyInfo>>
    /** Every developer key, newest first, page after page (`for await (const key of ...)`). */
    listAll(options?: ListAllOptions): AsyncIterable<DeveloperKeyInfo>
    /** `GET /api/v1/auth/developer-keys/{key_id}`: one of the developer's keys; 404 `not_found` for any other. */
    get(keyId: string, options?: CallOptions): Promise<DeveloperKeyInfo>
    /**
     * `PATCH /api/v1/auth/developer-keys/{key_id}`: sets when a key expires (`expires_at`, or
     * `null` for never) or in how many days (`expires_in_days`); 409 `key_rolled` for a key in a
     * roll's grace window.
     */
    setExpiry(keyId: string, body: SetKeyExpiryBody, options?: CallOptions): Promise<DeveloperKeyInfo>
    /** `DELETE /api/v1/auth/developer-keys/{key_id}`: deactivates one of the developer's keys. */
    deactivate(keyId: string, options?: CallOptions): Promise<DeveloperKeyInfo>
    /** `POST /api/v1/auth/developer-keys/{key_id}/activate`: re-activates one; 409 at the limit. */
    activate(keyId: string, options?: CallOptions): Promise<DeveloperKeyInfo>
    /** `POST /api/v1/auth/developer-keys/{key_id}/roll`: a new key; the old one works for the grace window. */
    roll(keyId: string, body?: RollKeyBody, options?: CallOptions): Promise<RolledDeveloperKey>
  }
  /** Projects. */
  readonly projects: {
    /** `POST /api/v1/projects` (developer key): the project and its default API key. */
    create(body: CreateProjectBody, options?: CallOptions): Promise<CreatedProject>
    /** `GET /api/v1/projects`: one page of the developer's projects, newest first. */
    list(options?: ListOptions): Promise<ProjectList>
    /** Every project of the developer, newest first, page after page. */
    listAll(options?: ListAllOptions): AsyncIterable<Project>
    /** `DELETE /api/v1/projects/{project_id}`: elevated, sends the developer key and the project key. */
    delete(projectId: string, options?: CallOptions): Promise<Deleted>
  }
  /** The developer's audit log: every change of their keys and projects, and their sign-ins. */
  readonly audit: {
    /**
     * `GET /api/v1/audit`: one page of the developer's audit log, newest first (of one project
     * with `projectId`).
     *
     * @example
     * ```ts
     * const { entries } = await client.audit.list({ limit: 20 })
     * for (const e of entries) console.log(e.at, e.action, e.actor.key_prefix ?? e.actor.type, e.target.id)
     * ```
     */
    list(options?: AuditListOptions): Promise<AuditLog>
    /** Every row of the developer's audit log, newest first, page after page. */
    listAll(options?: ListAllOptions & { readonly projectId?: string }): AsyncIterable<AuditEntry>
  }
  /** A project's API keys, managed with the owner's developer key. */
  readonly apiKeys: {
    /**
     * `POST /api/v1/projects/{project_id}/api-keys`: a new API key of the project, with its access
     * policies if given (`ip_allowlist`, `permissions`, `metadata`, `ratelimits`).
     */
    create(projectId: string, body?: CreateApiKeyBody, options?: CallOptions): Promise<CreatedApiKey>
    /** `GET /api/v1/projects/{project_id}/api-keys`: one page of the project's keys, newest first. */
    list(projectId: string, options?: KeyListOptions): Promise<KeyList<ApiKeyInfo>>
    /** Every API key of the project, newest first, page after page. */
    listAll(projectId: string, options?: ListAllOptions): AsyncIterable<ApiKeyInfo>
    /** `GET /api/v1/projects/{project_id}/api-keys/{key_id}`: one of the project's keys; 404 `not_found` for any other. */
    get(projectId: string, keyId: string, options?: CallOptions): Promise<ApiKeyInfo>
    /** `PATCH /api/v1/projects/{project_id}/api-keys/{key_id}`: sets when one of the project's keys expires. */
    setExpiry(
      projectId: string,
      keyId: string,
      body: SetKeyExpiryBody,
      options?: CallOptions,
    ): Promise<ApiKeyInfo>
    /**
     * `PATCH /api/v1/projects/{project_id}/api-keys/{key_id}`: changes one of the project's keys:
     * its expiry and/or its access policies, stored rate limits and low-credits threshold
     * (`credits_low_at`; a field left out stays, `null` clears it).
     */
    update(
      projectId: string,
      keyId: string,
      body: UpdateApiKeyBody,
      options?: CallOptions,
    ): Promise<ApiKeyInfo>
    /**
     * `POST /api/v1/projects/{project_id}/api-keys/{key_id}/credits`: one atomic change of a key's
     * credits, `{ op: 'set' | 'add' | 'subtract', amount, refill? }` (a subtraction below zero is
     * refused with 422 and changes nothing).
     *
     * @example
     * ```ts
     * const key = await client.apiKeys.changeCredits(projectId, keyId, { op: 'add', amount: 500 })
     * key.remaining // the balance after the change
     * ```
     */
    changeCredits(
      projectId: string,
      keyId: string,
      body: ChangeCreditsBody,
      options?: CallOptions,
    ): Promise<ApiKeyInfo>
    /** `DELETE /api/v1/projects/{project_id}/api-keys/{key_id}`: deactivates one of the project's keys. */
    deactivate(projectId: string, keyId: string, options?: CallOptions): Promise<ApiKeyInfo>
    /** `POST /api/v1/projects/{project_id}/api-keys/{key_id}/activate`: re-activates one of the project's keys. */
    activate(projectId: string, keyId: string, options?: CallOptions): Promise<ApiKeyInfo>
    /** `POST /api/v1/projects/{project_id}/api-keys/{key_id}/roll`: a new key; the old one works for the grace window. */
    roll(projectId: string, keyId: string, body?: RollKeyBody, options?: CallOptions): Promise<RolledApiKey>
  }
  /**
   * A project's identities, managed with the owner's developer key: customers whose API keys share
   * their rate limits, credit pool and metadata. A key joins one with `identity_id` or
   * `external_id` at its creation, or with `apiKeys.update(projectId, keyId, { identity_id })`.
   */
  readonly identities: {
    /**
     * `POST /api/v1/projects/{project_id}/identities`: a new identity; 409 `identity_exists` when the
     * project has one with this `external_id`.
     *
     * @example
     * ```ts
     * const acme = await client.identities.create(projectId, {
     *   external_id: 'customer_acme',
     *   ratelimits: [{ name: 'requests', limit: 10, duration: 1000 }],
     * })
     * await client.apiKeys.create(projectId, { name: 'production', identity_id: acme.id })
     * ```
     */
    create(projectId: string, body: CreateIdentityBody, options?: CallOptions): Promise<Identity>
    /**
     * `GET /api/v1/projects/{project_id}/identities`: one page of the project's identities, newest
     * first; with `q`, those whose `external_id` contains it.
     */
    list(projectId: string, options?: IdentityListOptions): Promise<IdentityList>
    /** Every identity of the project, newest first, page after page. */
    listAll(projectId: string, options?: ListAllOptions): AsyncIterable<Identity>
    /** `GET /api/v1/projects/{project_id}/identities?external_id=`: the identity with your id for it, or `null`. */
    findByExternalId(projectId: string, externalId: string, options?: CallOptions): Promise<Identity | null>
    /** `GET /api/v1/projects/{project_id}/identities/{identity_id}`: one of the project's identities; 404 for any other. */
    get(projectId: string, identityId: string, options?: CallOptions): Promise<Identity>
    /**
     * `PATCH /api/v1/projects/{project_id}/identities/{identity_id}`: changes its `metadata`,
     * `ratelimits`, `roles` or `credits_low_at` (a field left out stays, `null` clears it).
     */
    update(
      projectId: string,
      identityId: string,
      body: UpdateIdentityBody,
      options?: CallOptions,
    ): Promise<Identity>
    /**
     * `DELETE /api/v1/projects/{project_id}/identities/{identity_id}`: deletes it; 409
     * `identity_has_keys` while keys belong to it, unless `revokeKeys`, which revokes them with it.
     */
    delete(projectId: string, identityId: string, options?: DeleteIdentityOptions): Promise<DeletedIdentity>
    /** `GET /api/v1/projects/{project_id}/identities/{identity_id}/keys`: one page of its API keys, newest first. */
    keys(projectId: string, identityId: string, options?: ListOptions): Promise<KeyList<ApiKeyInfo>>
    /**
     * `GET /api/v1/projects/{project_id}/identities/{identity_id}/usage`: the counts of its keys per
     * bucket, key and outcome; the identity's total is their sum.
     */
    usage(projectId: string, identityId: string, options?: UsageOptions): Promise<Usage>
    /**
     * `POST /api/v1/projects/{project_id}/identities/{identity_id}/credits`: one atomic change of the
     * identity's credit pool, as `apiKeys.changeCredits` changes a key's: `{ op: 'set' | 'add' |
     * 'subtract', amount, refill? }` (a subtraction below zero is refused with 422 and changes
     * nothing). Every key of the identity spends from the pool besides its own credits.
     *
     * @example
     * ```ts
     * const acme = await client.identities.changeCredits(projectId, identityId, { op: 'set', amount: 100 })
     * acme.remaining // 100
     * ```
     */
    changeCredits(
      projectId: string,
      identityId: string,
      body: ChangeCreditsBody,
      options?: CallOptions,
    ): Promise<Identity>
  }
  /**
   * A project's roles, managed with the owner's developer key: named sets of permissions that API
   * keys hold by name (`roles` at a key's creation, or `apiKeys.update(projectId, keyId, { roles })`).
   * A key may do what its own permissions and its roles' allow; a change of a role reaches every
   * key that holds it within the revocation bound.
   */
  readonly roles: {
    /**
     * `POST /api/v1/projects/{project_id}/roles`: a new role; 409 `role_exists` when the project
     * has one of its name.
     *
     * @example
     * ```ts
     * await client.roles.create(projectId, { name: 'billing', permissions: ['billing:read', 'billing:write'] })
     * await client.apiKeys.create(projectId, { name: 'invoicing', roles: ['billing'] })
     * ```
     */
    create(projectId: string, body: CreateRoleBody, options?: CallOptions): Promise<Role>
    /** `GET /api/v1/projects/{project_id}/roles`: one page of the project's roles, newest first. */
    list(projectId: string, options?: ListOptions): Promise<RoleList>
    /** Every role of the project, newest first, page after page. */
    listAll(projectId: string, options?: ListAllOptions): AsyncIterable<Role>
    /** `GET /api/v1/projects/{project_id}/roles/{role_id}`: one of the project's roles; 404 for any other. */
    get(projectId: string, roleId: string, options?: CallOptions): Promise<Role>
    /** `PATCH /api/v1/projects/{project_id}/roles/{role_id}`: a new `name`, new `permissions`, or both. */
    update(projectId: string, roleId: string, body: UpdateRoleBody, options?: CallOptions): Promise<Role>
    /**
     * `DELETE /api/v1/projects/{project_id}/roles/{role_id}`: deletes it; 409 `role_in_use` while
     * keys hold it, unless `detach`, which takes it from them in the same transaction.
     */
    delete(projectId: string, roleId: string, options?: DeleteRoleOptions): Promise<DeletedRole>
  }
  /** Bearer tokens for the generation endpoints. */
  readonly accessTokens: {
    /** `POST /api/v1/projects/{project_id}/access-tokens` (`X-API-Key` of that project). */
    create(projectId: string, options?: CallOptions): Promise<AccessToken>
  }
  /** Generations, with a bearer token. */
  readonly generations: {
    /** `POST /api/v1/generation/generations-v2`: any JSON object as the body. */
    create(body: Readonly<Record<string, unknown>>, options: BearerCallOptions): Promise<Generation>
    /** `DELETE /api/v1/generation/generations-v2/{generation_id}`. */
    delete(generationId: string, options: BearerCallOptions): Promise<Deleted>
  }
  /** Verification as a service. */
  readonly keys: {
    /**
     * `POST /api/v1/keys/verify`: whether an API key passes the checks of the guard of an API key
     * (with `project_id`, `permissions` and the client's `ip`, when given), as `{ valid, code, ... }`:
     * a refused key resolves with `valid: false` and the guard's error type as `code`; only an
     * error of the call itself (no credential, a bad body, the store down) rejects.
     */
    verify(body: VerifyKeyBody, options?: VerifyCallOptions): Promise<VerifyKeyResult>
  }
  /** Usage counts: verifications per bucket, key and outcome. */
  /**
   * The calling developer's webhook endpoints (`/api/v1/webhooks/endpoints`): at most 10, each
   * signed with its own `whsec_` secret, shown only by `create` and `rollSecret`.
   *
   * @example
   * ```ts
   * const { id, secret } = await client.webhooks.create({ url: 'https://hooks.example.com/keyward' })
   * await client.webhooks.test(id) // a webhook.test event, through the outbox
   * ```
   */
  readonly webhooks: {
    /** Registers an endpoint; its `secret` is in this answer only. */
    create(body: CreateWebhookEndpointBody, options?: CallOptions): Promise<WebhookEndpointWithSecret>
    /** The developer's endpoints, oldest first, without their secrets. */
    list(options?: CallOptions): Promise<WebhookEndpointList>
    /** One endpoint (404 for another developer's). */
    get(endpointId: string, options?: CallOptions): Promise<WebhookEndpoint>
    /** Changes its URL, description or filters, or enables it again (`disabled: false`). */
    update(
      endpointId: string,
      body: UpdateWebhookEndpointBody,
      options?: CallOptions,
    ): Promise<WebhookEndpoint>
    /** Deletes it and its pending deliveries. */
    delete(endpointId: string, options?: CallOptions): Promise<Deleted>
    /** A new signing secret, in this answer only; the previous one signs too for `grace_seconds`. */
    rollSecret(
      endpointId: string,
      body?: RollWebhookSecretBody,
      options?: CallOptions,
    ): Promise<WebhookEndpointWithSecret>
    /** Its delivery log: the last 100 attempts, newest first, kept 30 days. */
    attempts(endpointId: string, options?: CallOptions): Promise<WebhookAttemptList>
    /** Sends one event (`event_id`), or those of a time range (`from`, `to`), to it again. */
    redeliver(
      endpointId: string,
      body: RedeliverWebhookBody,
      options?: CallOptions,
    ): Promise<WebhookRedeliveryResult>
    /** Sends it a `webhook.test` event, whatever its filters. */
    test(endpointId: string, options?: CallOptions): Promise<WebhookTestResult>
  }
  readonly usage: {
    /**
     * `GET /api/v1/auth/usage`: the counts of the developer's own keys. 422 for a bad range
     * (`from` after `to`, older than the granularity is kept), 404 for another developer's key.
     */
    developer(options?: UsageOptions): Promise<Usage>
    /** `GET /api/v1/projects/{project_id}/usage` (the owner's developer key): the counts of the project's API keys. */
    project(projectId: string, options?: UsageOptions): Promise<Usage>
  }
  /** `GET /healthz`: `{status: 'ok'}`, or a 503 {@link KeywardApiError} when the store is down. */
  health(options?: CallOptions): Promise<Health>
  /** A client like this one that sends another project's API key. */
  withProjectKey(projectKey: string): KeywardClient
}

/** @internal What a client is built from; `names` are what errors call each setting. */
export interface ClientSettings extends ClientOptions {
  readonly names: Readonly<Record<ClientSetting, string>>
}

const OPTION_NAMES: Readonly<Record<ClientSetting, string>> = {
  baseUrl: 'baseUrl',
  developerKey: 'developerKey',
  projectKey: 'projectKey',
}

const DEFAULT_TIMEOUT_MS = 30_000

// `?limit=&cursor=` of a listing (and the audit log's `project_id`), or nothing.
function pageQuery(options: (AuditListOptions & KeyListOptions) | undefined): string {
  const time = (at: Date | string) => (at instanceof Date ? at.toISOString() : at)
  const parts: string[] = []
  const add = (name: string, value: string | undefined) => {
    if (value !== undefined) parts.push(`${name}=${encodeURIComponent(value)}`)
  }
  add('limit', options?.limit === undefined ? undefined : String(options.limit))
  if (options?.cursor) add('cursor', options.cursor)
  if (options?.projectId !== undefined) parts.push(`project_id=${segment('projectId', options.projectId)}`)
  add('q', options?.q)
  add('status', options?.status)
  add('key_id', options?.keyId)
  add('identity_id', options?.identityId)
  add('action', options?.action)
  add('from', options?.from === undefined ? undefined : time(options.from))
  add('to', options?.to === undefined ? undefined : time(options.to))
  return parts.length === 0 ? '' : `?${parts.join('&')}`
}

function usageQuery(options: UsageOptions | undefined): string {
  const time = (at: Date | string) => (at instanceof Date ? at.toISOString() : at)
  const parts: string[] = []
  if (options?.from !== undefined) parts.push(`from=${encodeURIComponent(time(options.from))}`)
  if (options?.to !== undefined) parts.push(`to=${encodeURIComponent(time(options.to))}`)
  if (options?.granularity !== undefined) parts.push(`granularity=${encodeURIComponent(options.granularity)}`)
  if (options?.keyId !== undefined) parts.push(`key_id=${encodeURIComponent(options.keyId)}`)
  return parts.length === 0 ? '' : `?${parts.join('&')}`
}

// Every item of a listing, page after page, each page asked for when the last one is used up.
async function* everyPage<P extends { readonly next_cursor: string | null }, T>(
  listPage: (options: ListOptions) => Promise<P>,
  items: (page: P) => readonly T[],
  options: ListAllOptions = {},
): AsyncGenerator<T> {
  let cursor: string | null = null
  do {
    const page: P = await listPage({ ...options, limit: options.limit ?? 200, cursor })
    yield* items(page)
    cursor = page.next_cursor
  } while (cursor !== null)
}

const segment = (name: string, value: string): string => {
  if (typeof value !== 'string' || value === '') throw new TypeError(`${name} must be a non-empty string.`)
  return encodeURIComponent(value)
}

/** @internal Builds a client from settings, naming them in errors as `settings.names` says. */
export function buildClient(settings: ClientSettings): KeywardClient {
  const { names } = settings
  const legacyDeveloperKeys = settings.legacyDeveloperKeys
  const optional = (setting: 'developerKey' | 'projectKey', value: string | undefined) =>
    value === undefined
      ? undefined
      : checkClientSetting(setting, value, { name: names[setting], legacyDeveloperKeys })
  const baseUrl = checkClientSetting('baseUrl', settings.baseUrl, { name: names.baseUrl })
  const developerKey = optional('developerKey', settings.developerKey)
  const session = settings.session ?? false
  if (typeof session !== 'boolean') throw new TypeError('createClient: option `session` must be a boolean.')
  if (session && developerKey !== undefined) {
    throw new TypeError(
      'createClient: give `session` or `developerKey`, not both: in session mode the server knows the developer by its cookie.',
    )
  }
  const projectKey = optional('projectKey', settings.projectKey)
  if (settings.fetch !== undefined && typeof settings.fetch !== 'function') {
    throw new TypeError('createClient: option `fetch` must be a function.')
  }
  if (settings.fetch === undefined && typeof globalThis.fetch !== 'function') {
    throw new TypeError('createClient: no global fetch on this platform; pass the `fetch` option.')
  }
  // The global fetch is called as a plain function: some platforms refuse it as a method of another object.
  const fetchImpl: FetchLike = settings.fetch ?? ((url, init) => globalThis.fetch(url, init))
  const timeoutMs = settings.timeoutMs ?? DEFAULT_TIMEOUT_MS
  if (typeof timeoutMs !== 'number' || !(timeoutMs > 0)) {
    throw new TypeError(
      `createClient: option \`timeoutMs\` must be a positive number, got ${String(timeoutMs)}.`,
    )
  }
  const transport: Transport = {
    baseUrl,
    fetch: fetchImpl,
    timeoutMs,
    ...(session ? { credentials: 'same-origin' as const } : {}),
  }

  const need = (setting: 'developerKey' | 'projectKey', operation: string): string => {
    const value = setting === 'developerKey' ? developerKey : projectKey
    if (value !== undefined) return value
    const what = setting === 'developerKey' ? 'a developer key' : "the project's API key"
    throw new ClientConfigError(
      names[setting],
      'missing',
      `${names[setting]} is not set. ${operation} needs ${what}.`,
    )
  }
  // In session mode the browser's cookie says who the developer is: no header.
  const developer = (operation: string): Record<string, string> =>
    session ? {} : { [KEY_HEADER.developer]: need('developerKey', operation) }
  const project = (operation: string) => ({ [KEY_HEADER.project]: need('projectKey', operation) })
  const bearer = (options: BearerCallOptions) => {
    const token = options?.accessToken
    if (typeof token !== 'string' || token === '') {
      throw new TypeError(
        'options.accessToken must be a non-empty string: create one with accessTokens.create.',
      )
    }
    return { authorization: `Bearer ${token}` }
  }

  // The verification endpoint's caller: a service token when the call gives one, else the developer.
  const verifier = (options: VerifyCallOptions | undefined) => {
    const token = options?.serviceToken
    if (token === undefined) return developer('keys.verify')
    if (typeof token !== 'string' || token === '') {
      throw new TypeError(
        'options.serviceToken must be a non-empty string, or absent to send the developer key.',
      )
    }
    return { authorization: `Bearer ${token}` }
  }

  const request = <T>(
    method: Call['method'],
    path: string,
    headers: Call['headers'],
    options: CallOptions | undefined,
    body?: unknown,
  ): Promise<T> => send<T>(transport, { method, path, headers, body, signal: options?.signal })
  const projectPath = (projectId: string) => `/api/v1/projects/${segment('projectId', projectId)}`
  const generations = '/api/v1/generation/generations-v2'
  const developerKeyPath = (keyId: string) => `/api/v1/auth/developer-keys/${segment('keyId', keyId)}`
  const apiKeyPath = (projectId: string, keyId: string) =>
    `${projectPath(projectId)}/api-keys/${segment('keyId', keyId)}`
  const identityPath = (projectId: string, identityId: string) =>
    `${projectPath(projectId)}/identities/${segment('identityId', identityId)}`
  const rolePath = (projectId: string, roleId: string) =>
    `${projectPath(projectId)}/roles/${segment('roleId', roleId)}`
  const webhookPath = (endpointId: string) =>
    `/api/v1/webhooks/endpoints/${segment('endpointId', endpointId)}`

  // Each method is async, so a missing key or a bad argument rejects before anything is sent.
  const client: KeywardClient = {
    baseUrl,
    developerKeys: {
      create: async (body = {}, options) =>
        request('POST', '/api/v1/auth/developer-keys', developer('developerKeys.create'), options, body),
      list: async (options) =>
        request(
          'GET',
          `/api/v1/auth/developer-keys${pageQuery(options)}`,
          developer('developerKeys.list'),
          options,
        ),
      listAll: (options) =>
        everyPage(client.developerKeys.list, (page: KeyList<DeveloperKeyInfo>) => page.keys, options),
      get: async (keyId, options) =>
        request('GET', developerKeyPath(keyId), developer('developerKeys.get'), options),
      setExpiry: async (keyId, body, options) =>
        request('PATCH', developerKeyPath(keyId), developer('developerKeys.setExpiry'), options, body),
      deactivate: async (keyId, options) =>
        request('DELETE', developerKeyPath(keyId), developer('developerKeys.deactivate'), options),
      activate: async (keyId, options) =>
        request('POST', `${developerKeyPath(keyId)}/activate`, developer('developerKeys.activate'), options),
      roll: async (keyId, body = {}, options) =>
        request('POST', `${developerKeyPath(keyId)}/roll`, developer('developerKeys.roll'), options, body),
    },
    audit: {
      list: async (options) =>
        request('GET', `/api/v1/audit${pageQuery(options)}`, developer('audit.list'), options),
      listAll: (options) => everyPage(client.audit.list, (page: AuditLog) => page.entries, options),
    },
    projects: {
      create: async (body, options) =>
        request('POST', '/api/v1/projects', developer('projects.create'), options, body),
      list: async (options) =>
        request('GET', `/api/v1/projects${pageQuery(options)}`, developer('projects.list'), options),
      listAll: (options) => everyPage(client.projects.list, (page: ProjectList) => page.projects, options),
      delete: async (projectId, options) =>
        request(
          'DELETE',
          projectPath(projectId),
          { ...developer('projects.delete'), ...project('projects.delete') },
          options,
        ),
    },
    apiKeys: {
      create: async (projectId, body = {}, options) =>
        request('POST', `${projectPath(projectId)}/api-keys`, developer('apiKeys.create'), options, body),
      list: async (projectId, options) =>
        request(
          'GET',
          `${projectPath(projectId)}/api-keys${pageQuery(options)}`,
          developer('apiKeys.list'),
          options,
        ),
      listAll: (projectId, options) =>
        everyPage(
          (page) => client.apiKeys.list(projectId, page),
          (page: KeyList<ApiKeyInfo>) => page.keys,
          options,
        ),
      get: async (projectId, keyId, options) =>
        request('GET', apiKeyPath(projectId, keyId), developer('apiKeys.get'), options),
      setExpiry: async (projectId, keyId, body, options) =>
        request('PATCH', apiKeyPath(projectId, keyId), developer('apiKeys.setExpiry'), options, body),
      update: async (projectId, keyId, body, options) =>
        request('PATCH', apiKeyPath(projectId, keyId), developer('apiKeys.update'), options, body),
      changeCredits: async (projectId, keyId, body, options) =>
        request(
          'POST',
          `${apiKeyPath(projectId, keyId)}/credits`,
          developer('apiKeys.changeCredits'),
          options,
          body,
        ),
      deactivate: async (projectId, keyId, options) =>
        request('DELETE', apiKeyPath(projectId, keyId), developer('apiKeys.deactivate'), options),
      activate: async (projectId, keyId, options) =>
        request('POST', `${apiKeyPath(projectId, keyId)}/activate`, developer('apiKeys.activate'), options),
      roll: async (projectId, keyId, body = {}, options) =>
        request('POST', `${apiKeyPath(projectId, keyId)}/roll`, developer('apiKeys.roll'), options, body),
    },
    identities: {
      create: async (projectId, body, options) =>
        request(
          'POST',
          `${projectPath(projectId)}/identities`,
          developer('identities.create'),
          options,
          body,
        ),
      list: async (projectId, options) =>
        request(
          'GET',
          `${projectPath(projectId)}/identities${pageQuery(options)}`,
          developer('identities.list'),
          options,
        ),
      listAll: (projectId, options) =>
        everyPage(
          (page) => client.identities.list(projectId, page),
          (page: IdentityList) => page.identities,
          options,
        ),
      findByExternalId: async (projectId, externalId, options) => {
        const page: IdentityList = await request(
          'GET',
          `${projectPath(projectId)}/identities?external_id=${segment('externalId', externalId)}`,
          developer('identities.findByExternalId'),
          options,
        )
        return page.identities[0] ?? null
      },
      get: async (projectId, identityId, options) =>
        request('GET', identityPath(projectId, identityId), developer('identities.get'), options),
      update: async (projectId, identityId, body, options) =>
        request('PATCH', identityPath(projectId, identityId), developer('identities.update'), options, body),
      delete: async (projectId, identityId, options) =>
        request(
          'DELETE',
          `${identityPath(projectId, identityId)}${options?.revokeKeys ? '?revoke_keys=true' : ''}`,
          developer('identities.delete'),
          options,
        ),
      keys: async (projectId, identityId, options) =>
        request(
          'GET',
          `${identityPath(projectId, identityId)}/keys${pageQuery(options)}`,
          developer('identities.keys'),
          options,
        ),
      usage: async (projectId, identityId, options) =>
        request(
          'GET',
          `${identityPath(projectId, identityId)}/usage${usageQuery(options)}`,
          developer('identities.usage'),
          options,
        ),
      changeCredits: async (projectId, identityId, body, options) =>
        request(
          'POST',
          `${identityPath(projectId, identityId)}/credits`,
          developer('identities.changeCredits'),
          options,
          body,
        ),
    },
    roles: {
      create: async (projectId, body, options) =>
        request('POST', `${projectPath(projectId)}/roles`, developer('roles.create'), options, body),
      list: async (projectId, options) =>
        request(
          'GET',
          `${projectPath(projectId)}/roles${pageQuery(options)}`,
          developer('roles.list'),
          options,
        ),
      listAll: (projectId, options) =>
        everyPage(
          (page) => client.roles.list(projectId, page),
          (page: RoleList) => page.roles,
          options,
        ),
      get: async (projectId, roleId, options) =>
        request('GET', rolePath(projectId, roleId), developer('roles.get'), options),
      update: async (projectId, roleId, body, options) =>
        request('PATCH', rolePath(projectId, roleId), developer('roles.update'), options, body),
      delete: async (projectId, roleId, options) =>
        request(
          'DELETE',
          `${rolePath(projectId, roleId)}${options?.detach ? '?detach=true' : ''}`,
          developer('roles.delete'),
          options,
        ),
    },
    accessTokens: {
      create: async (projectId, options) =>
        request('POST', `${projectPath(projectId)}/access-tokens`, project('accessTokens.create'), options),
    },
    generations: {
      create: async (body, options) => request('POST', generations, bearer(options), options, body),
      delete: async (generationId, options) =>
        request(
          'DELETE',
          `${generations}/${segment('generationId', generationId)}`,
          bearer(options),
          options,
        ),
    },
    keys: {
      verify: async (body, options) =>
        request('POST', '/api/v1/keys/verify', verifier(options), options, body),
    },
    webhooks: {
      create: async (body, options) =>
        request('POST', '/api/v1/webhooks/endpoints', developer('webhooks.create'), options, body),
      list: async (options) =>
        request('GET', '/api/v1/webhooks/endpoints', developer('webhooks.list'), options),
      get: async (endpointId, options) =>
        request('GET', webhookPath(endpointId), developer('webhooks.get'), options),
      update: async (endpointId, body, options) =>
        request('PATCH', webhookPath(endpointId), developer('webhooks.update'), options, body),
      delete: async (endpointId, options) =>
        request('DELETE', webhookPath(endpointId), developer('webhooks.delete'), options),
      rollSecret: async (endpointId, body = {}, options) =>
        request(
          'POST',
          `${webhookPath(endpointId)}/roll-secret`,
          developer('webhooks.rollSecret'),
          options,
          body,
        ),
      attempts: async (endpointId, options) =>
        request('GET', `${webhookPath(endpointId)}/attempts`, developer('webhooks.attempts'), options),
      redeliver: async (endpointId, body, options) =>
        request(
          'POST',
          `${webhookPath(endpointId)}/redeliver`,
          developer('webhooks.redeliver'),
          options,
          body,
        ),
      test: async (endpointId, options) =>
        request('POST', `${webhookPath(endpointId)}/test`, developer('webhooks.test'), options),
    },
    usage: {
      developer: async (options) =>
        request('GET', `/api/v1/auth/usage${usageQuery(options)}`, developer('usage.developer'), options),
      project: async (projectId, options) =>
        request(
          'GET',
          `${projectPath(projectId)}/usage${usageQuery(options)}`,
          developer('usage.project'),
          options,
        ),
    },
    health: async (options) => request('GET', '/healthz', {}, options),
    withProjectKey: (newProjectKey) =>
      buildClient({ ...settings, names: { ...names, projectKey: 'projectKey' }, projectKey: newProjectKey }),
  }
  return client
}

/**
 * Builds a client from explicit options. Only the keys the calls need must be given:
 * `developerKey` for console operations, `projectKey` for access tokens, both for deleting
 * a project; in a browser signed in to the console, `session: true` instead of `developerKey`. Malformed options throw a {@link ClientConfigError} naming the option; a call
 * whose key is missing rejects with one before anything is sent.
 *
 * @example
 * ```ts
 * const client = createClient({ baseUrl: 'https://keys.example.com', developerKey })
 * const { project, api_key } = await client.projects.create({ name: 'shop' })
 * // api_key.key is shown this once: store it now
 * const displays: string[] = []
 * for await (const key of client.apiKeys.listAll(project.id)) displays.push(key.display)
 * // In the console's page, signed in with a session cookie:
 * const browser = createClient({ baseUrl: location.origin, session: true })
 * ```
 */
export function createClient(options: ClientOptions): KeywardClient {
  if (typeof options !== 'object' || options === null)
    throw new TypeError('createClient: options are required.')
  return buildClient({ ...options, names: OPTION_NAMES })
}
