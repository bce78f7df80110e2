// The JSON bodies of the Keyward HTTP API, field for field as on the wire (snake_case), read
// from the types that openapi-typescript generates from the server's OpenAPI document
// (./openapi.ts): the client and the server cannot drift. Timestamps are ISO 8601 strings.
import type { components } from './openapi.js'

/** A developer key as listed: no `key`. */
export type DeveloperKeyInfo = components['schemas']['DeveloperKey']

/** A project's API key as listed: no `key`. */
export type ApiKeyInfo = components['schemas']['ApiKey']

/** The fields every key listing and key creation carries. A listing never holds the key. */
export type KeyInfoBase = Omit<DeveloperKeyInfo, 'developer_id'>

/** A developer key just created: `key` is the full key, shown this once and never again. */
export type CreatedDeveloperKey = components['schemas']['CreatedDeveloperKey']

/** An API key just created: `key` is the full key, shown this once and never again. */
export type CreatedApiKey = components['schemas']['CreatedApiKey']

/** A developer key just rolled: the new key, shown once, and the key it replaces. */
export type RolledDeveloperKey = components['schemas']['RolledDeveloperKey']

/** An API key just rolled: the new key, shown once, and the key it replaces. */
export type RolledApiKey = components['schemas']['RolledApiKey']

/** The old key of a roll: its id and when it stops working (the end of the grace window). */
export type PreviousKey = RolledDeveloperKey['previous_key']

/** One page of a key listing, newest first. */
export interface KeyList<K extends KeyInfoBase> {
  readonly keys: readonly K[]
  /** Pass it as `cursor` for the next page; `null` on the last page. */
  readonly next_cursor: string | null
}

/** One page of the calling developer's projects, newest first. */
export type ProjectList = components['schemas']['ProjectList']

/** One row of the audit log: who changed what, when, from where, before and after. */
export type AuditEntry = components['schemas']['AuditEntry']

/** One page of the calling developer's audit log, newest first. */
export type AuditLog = components['schemas']['AuditLog']

/** The body of a key's `PATCH`: `expires_at` (a time, or `null` for never) or `expires_in_days`. */
export type SetKeyExpiryBody = components['schemas']['SetKeyExpiryBody']

/** Why a key no longer works: `leaked`, `revoked`, `rolled` (in its grace window), or `null`. */
export type RevokedReason = NonNullable<DeveloperKeyInfo['revoked_reason']>

/** A project. */
export type Project = components['schemas']['Project']

/** The answer to creating a project: the project and its default API key (named `default`). */
export type CreatedProject = components['schemas']['CreatedProject']

/** The answer to a deletion. */
export type Deleted = components['schemas']['Deleted']

/** A short-lived bearer token for one project. */
export type AccessToken = components['schemas']['AccessToken']

/** A generation. */
export type Generation = components['schemas']['Generation']

/** The answer of `GET /healthz` when the server and its store are up. */
export type Health = components['schemas']['Health']

/** Usage counts of keys: per bucket (`start`), key and outcome, oldest first. */
export type Usage = components['schemas']['Usage']

/** The body of key creation requests: a name (1 to 100 characters), all fields optional. */
export type NameBody = components['schemas']['CreateKeyBody']

/** The body of key creation: a name and an optional expiry (one of `expires_at`, `expires_in_days`). */
export type CreateKeyBody = components['schemas']['CreateKeyBody']

/**
 * The body of API-key creation: `CreateKeyBody` and the key's access policies, `ip_allowlist`,
 * `permissions` and `metadata`.
 */
export type CreateApiKeyBody = components['schemas']['CreateApiKeyBody']

/** The body of an API key's `PATCH`: an expiry, policies (`null` clears one), or both. */
export type UpdateApiKeyBody = components['schemas']['UpdateApiKeyBody']

/**
 * The body of a change of an API key's credits: `op` (`set`, `add`, `subtract`), `amount` (for
 * `set` the new balance, `null` for unlimited) and, with `set`, `refill`.
 */
export type ChangeCreditsBody = components['schemas']['ChangeCreditsBody']

/** A refill rule of a key's credits: `amount`, `interval` (`daily`, `monthly`) and a monthly `day`. */
export type CreditRefill = components['schemas']['CreditRefill']

/** The body of a roll: `grace_seconds`, 0 to 604800, default 86400 (a day). */
export type RollKeyBody = components['schemas']['RollKeyBody']

/** An identity: one customer of the host, whose API keys share its rate limits, credit pool and metadata. */
export type Identity = components['schemas']['Identity']

/** One page of a project's identities, newest first. */
export type IdentityList = components['schemas']['IdentityList']

/** A named rate limit of an identity: at most `limit` per `duration` milliseconds. */
export type RateLimit = components['schemas']['RateLimit']

/** The body of identity creation: `external_id`, and `metadata`, `ratelimits`, `remaining`, `refill` if given. */
export type CreateIdentityBody = components['schemas']['CreateIdentityBody']

/** The body of an identity's `PATCH`: `metadata` and `ratelimits` (`null` clears one). */
export type UpdateIdentityBody = components['schemas']['UpdateIdentityBody']

/** The answer to deleting an identity: its id, and the ids of the keys it revoked. */
export type DeletedIdentity = components['schemas']['DeletedIdentity']

/** A role of a project: a name for a set of permissions, given to API keys by name (their `roles`). */
export type Role = components['schemas']['Role']

/** One page of a project's roles, newest first. */
export type RoleList = components['schemas']['RoleList']

/** The body of role creation: `name` and `permissions` (declared ones, or wildcards such as `reports:*`). */
export type CreateRoleBody = components['schemas']['CreateRoleBody']

/** The body of a role's `PATCH`: a new `name`, new `permissions`, or both. */
export type UpdateRoleBody = components['schemas']['UpdateRoleBody']

/** The answer to deleting a role: its id, and the ids of the keys it was taken from. */
export type DeletedRole = components['schemas']['DeletedRole']

/** The body of project creation. */
export type CreateProjectBody = components['schemas']['CreateProjectBody']

/** The body of a verification: the `key`, and what it must pass (`project_id`, `permissions`, the client's `ip`). */
export type VerifyKeyBody = components['schemas']['VerifyKeyBody']

/** The answer of a verification: `valid`, the refusal's `code`, and what a valid key carries. */
export type VerifyKeyResult = components['schemas']['VerifyKeyResult']

/** A webhook endpoint, without its signing secret. */
export type WebhookEndpoint = components['schemas']['WebhookEndpoint']

/** A webhook endpoint with its signing secret (`whsec_...`): the answer to a creation or a roll, the only times it is shown. */
export type WebhookEndpointWithSecret = components['schemas']['WebhookEndpointWithSecret']

/** The calling developer's webhook endpoints, oldest first. */
export type WebhookEndpointList = components['schemas']['WebhookEndpointList']

/** The body of a webhook endpoint's registration: `url`, and `description`, `project_ids`, `event_types` if given. */
export type CreateWebhookEndpointBody = components['schemas']['CreateWebhookEndpointBody']

/** The body of a webhook endpoint's `PATCH`: fields left out stay; `disabled: false` enables it again. */
export type UpdateWebhookEndpointBody = components['schemas']['UpdateWebhookEndpointBody']

/** The body of a roll of a webhook endpoint's secret: `grace_seconds`, default 86400 (a day). */
export type RollWebhookSecretBody = components['schemas']['RollWebhookSecretBody']

/** An endpoint's delivery log: its last attempts, newest first. */
export type WebhookAttemptList = components['schemas']['WebhookAttemptList']

/** The body of a redelivery: `event_id`, or `from` and `to` (at most 30 days apart). */
export type RedeliverWebhookBody = components['schemas']['RedeliverWebhookBody']

/** The answer to a redelivery: how many events are due to the endpoint again. */
export type WebhookRedeliveryResult = components['schemas']['WebhookRedeliveryResult']

/** The answer to a test: the `webhook-id` of the `webhook.test` event sent. */
export type WebhookTestResult = components['schemas']['WebhookTestResult']

/** The body of every delivery: `type`, `timestamp` and `data`. */
export type WebhookPayload = components['schemas']['WebhookPayload']

/** The body of every error answer: `{"detail": [{"loc", "msg", "type"}]}`. */
export type ErrorBody = components['schemas']['ErrorBody']

/** The generated declarations themselves: paths, schemas, operations. */
export type {
  components as ApiComponents,
  operations as ApiOperations,
  paths as ApiPaths,
} from './openapi.js'
