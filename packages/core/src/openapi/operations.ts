import { ROLE_OPERATIONS } from './role-operations.js'
import type { ApiSchemaName } from './schemas.js'
import { WEBHOOK_OPERATIONS } from './webhook-operations.js'

/** Who may call an operation: the headers its security requirement names. */
export type OperationCredential =
  | 'developer'
  | 'owner'
  | 'project'
  | 'elevated'
  | 'bearer'
  | 'signature'
  | 'verifier'
  | 'none'

/** One operation of the HTTP API, as the document describes it. */
export interface ApiOperation {
  readonly method: 'get' | 'post' | 'patch' | 'delete'
  /** OpenAPI path, `{name}` parameters. */
  readonly path: string
  readonly operationId: string
  readonly summary: string
  /** More than the summary: what the operation requires besides its credential. */
  readonly description?: string
  readonly tag:
    | 'Developer keys'
    | 'Projects'
    | 'API keys'
    | 'Identities'
    | 'Roles'
    | 'Webhooks'
    | 'Access tokens'
    | 'Generations'
    | 'Audit'
    | 'Verification'
    | 'Service'
  readonly credential: OperationCredential
  /** Its query parameters: `limit` and `cursor` for the listings that page; a range for usage; the audit log's project. */
  readonly query?: readonly (
    | 'limit'
    | 'cursor'
    | 'from'
    | 'to'
    | 'granularity'
    | 'usage_key_id'
    | 'audit_project_id'
    | 'key_q'
    | 'key_status'
    | 'audit_key_id'
    | 'audit_identity_id'
    | 'audit_action'
    | 'audit_from'
    | 'audit_to'
    | 'identity_external_id'
    | 'identity_q'
    | 'revoke_keys'
    | 'detach'
  )[]
  /** The request body's schema, and whether a body is required. */
  readonly body?: {
    readonly schema: ApiSchemaName | { readonly arrayOf: ApiSchemaName }
    readonly required: boolean
  }
  /** The success status and its body's schema. */
  readonly success: {
    readonly status: number
    readonly schema: ApiSchemaName | { readonly arrayOf: ApiSchemaName } | 'OpenApiDocument'
  }
  /** Error statuses beyond those of its credential. */
  readonly errors: readonly number[]
  /** Whether Keyward's key routes (`createKeyRoutes`) serve it; the rest are the reference service's. */
  readonly keyRoute?:
    | 'always'
    | 'createProject'
    | 'listProjects'
    | 'audit'
    | 'verify'
    | 'identities'
    | 'roles'
    | 'webhooks'
}

const DEV = '/api/v1/auth/developer-keys'
const API = '/api/v1/projects/{project_id}/api-keys'
const GEN = '/api/v1/generation/generations-v2'
const IDS = '/api/v1/projects/{project_id}/identities'
const BODY_ERRORS = [413, 415, 422]
const PAGED = ['limit', 'cursor'] as const
// A key listing's page and filter.
const KEY_LIST = [...PAGED, 'key_q', 'key_status'] as const
const USAGE_QUERY = ['from', 'to', 'granularity', 'usage_key_id'] as const
// Bad ranges (an unknown granularity, from after to, past the retention) are 422; another owner's key 404.
const USAGE_ERRORS = [404, 422]

/** Every operation of the HTTP API, in the order of the design's table. */
export const API_OPERATIONS: readonly ApiOperation[] = [
  {
    method: 'post',
    path: DEV,
    operationId: 'createDeveloperKey',
    summary: 'Create a developer key for the calling developer (at most 10 active).',
    tag: 'Developer keys',
    credential: 'developer',
    body: { schema: 'CreateKeyBody', required: false },
    success: { status: 201, schema: 'CreatedDeveloperKey' },
    errors: [409, ...BODY_ERRORS],
    keyRoute: 'always',
  },
  {
    method: 'get',
    path: DEV,
    operationId: 'listDeveloperKeys',
    summary:
      "List the calling developer's keys, active or not, newest first, a page at a time; with `q` and `status`, those whose name or prefix matches, of one status.",
    tag: 'Developer keys',
    credential: 'developer',
    query: KEY_LIST,
    success: { status: 200, schema: 'DeveloperKeyList' },
    errors: [422],
    keyRoute: 'always',
  },
  {
    method: 'get',
    path: `${DEV}/{key_id}`,
    operationId: 'getDeveloperKey',
    summary: "One of the calling developer's keys, active or not (404 for any other).",
    tag: 'Developer keys',
    credential: 'developer',
    success: { status: 200, schema: 'DeveloperKey' },
    errors: [404],
    keyRoute: 'always',
  },
  {
    method: 'delete',
    path: `${DEV}/{key_id}`,
    operationId: 'deactivateDeveloperKey',
    summary: "Deactivate one of the calling developer's keys.",
    tag: 'Developer keys',
    credential: 'developer',
    success: { status: 200, schema: 'DeveloperKey' },
    errors: [404],
    keyRoute: 'always',
  },
  {
    method: 'post',
    path: '/api/v1/projects',
    operationId: 'createProject',
    summary: 'Create a project, owned by the calling developer, with its default API key.',
    tag: 'Projects',
    credential: 'developer',
    body: { schema: 'CreateProjectBody', required: true },
    success: { status: 201, schema: 'CreatedProject' },
    errors: BODY_ERRORS,
    keyRoute: 'createProject',
  },
  {
    method: 'get',
    path: '/api/v1/projects',
    operationId: 'listProjects',
    summary: "List the calling developer's projects, newest first, a page at a time.",
    tag: 'Projects',
    credential: 'developer',
    query: PAGED,
    success: { status: 200, schema: 'ProjectList' },
    errors: [422],
    keyRoute: 'listProjects',
  },
  {
    method: 'delete',
    path: '/api/v1/projects/{project_id}',
    operationId: 'deleteProject',
    summary:
      "Delete a project: its keys stop working. Needs the owner's developer key and a key of the project.",
    tag: 'Projects',
    credential: 'elevated',
    success: { status: 200, schema: 'Deleted' },
    errors: [],
  },
  {
    method: 'post',
    path: API,
    operationId: 'createApiKey',
    summary: 'Create an API key for a project of the calling developer.',
    tag: 'API keys',
    credential: 'owner',
    body: { schema: 'CreateApiKeyBody', required: false },
    success: { status: 201, schema: 'CreatedApiKey' },
    errors: BODY_ERRORS,
    keyRoute: 'always',
  },
  {
    method: 'get',
    path: API,
    operationId: 'listApiKeys',
    summary:
      "List a project's API keys, active or not, newest first, a page at a time; with `q` and `status`, those whose name or prefix matches, of one status.",
    tag: 'API keys',
    credential: 'owner',
    query: KEY_LIST,
    success: { status: 200, schema: 'ApiKeyList' },
    errors: [422],
    keyRoute: 'always',
  },
  {
    method: 'get',
    path: `${API}/{key_id}`,
    operationId: 'getApiKey',
    summary: "One of a project's API keys, active or not (404 for any other).",
    tag: 'API keys',
    credential: 'owner',
    success: { status: 200, schema: 'ApiKey' },
    errors: [404],
    keyRoute: 'always',
  },
  {
    method: 'delete',
    path: `${API}/{key_id}`,
    operationId: 'deactivateApiKey',
    summary: "Deactivate one of a project's API keys.",
    tag: 'API keys',
    credential: 'owner',
    success: { status: 200, schema: 'ApiKey' },
    errors: [],
    keyRoute: 'always',
  },
  {
    method: 'post',
    path: '/api/v1/projects/{project_id}/access-tokens',
    operationId: 'createAccessToken',
    summary: 'Exchange an API key of the project for a short-lived bearer token.',
    tag: 'Access tokens',
    credential: 'project',
    body: { schema: 'NoFieldsBody', required: false },
    success: { status: 201, schema: 'AccessToken' },
    // The project was deleted while its key was being verified.
    errors: [403, 404, ...BODY_ERRORS],
  },
  {
    method: 'post',
    path: GEN,
    operationId: 'createGeneration',
    summary: "Create a generation in the token's project; the body is any JSON object.",
    description:
      'Requires the permission `generations:write` of the API key that obtained the token, checked at ' +
      'each request against its current permissions and IP allowlist: a key without it is answered ' +
      '403 `permission_denied`.',
    tag: 'Generations',
    credential: 'bearer',
    body: { schema: 'GenerationBody', required: false },
    success: { status: 201, schema: 'Generation' },
    // The token's project was deleted.
    errors: [403, 404, ...BODY_ERRORS],
  },
  {
    method: 'delete',
    path: `${GEN}/{generation_id}`,
    operationId: 'deleteGeneration',
    summary: "Delete a generation of the token's project.",
    description:
      'Requires the permission `generations:delete` of the API key that obtained the token, checked at ' +
      'each request against its current permissions and IP allowlist: a key without it is answered ' +
      '403 `permission_denied`.',
    tag: 'Generations',
    credential: 'bearer',
    success: { status: 200, schema: 'Deleted' },
    errors: [403, 404, 422],
  },
  {
    method: 'post',
    path: `${DEV}/{key_id}/roll`,
    operationId: 'rollDeveloperKey',
    summary: 'Issue a new key for the same developer and name; the old one expires after the grace window.',
    tag: 'Developer keys',
    credential: 'developer',
    body: { schema: 'RollKeyBody', required: false },
    success: { status: 201, schema: 'RolledDeveloperKey' },
    errors: [404, 409, ...BODY_ERRORS],
    keyRoute: 'always',
  },
  {
    method: 'post',
    path: `${API}/{key_id}/roll`,
    operationId: 'rollApiKey',
    summary: 'Issue a new key for the same project and name; the old one expires after the grace window.',
    tag: 'API keys',
    credential: 'owner',
    body: { schema: 'RollKeyBody', required: false },
    success: { status: 201, schema: 'RolledApiKey' },
    errors: [409, ...BODY_ERRORS],
    keyRoute: 'always',
  },
  {
    method: 'post',
    path: `${DEV}/{key_id}/activate`,
    operationId: 'activateDeveloperKey',
    summary: "Re-activate one of the calling developer's keys, within the limit.",
    tag: 'Developer keys',
    credential: 'developer',
    body: { schema: 'NoFieldsBody', required: false },
    success: { status: 200, schema: 'DeveloperKey' },
    errors: [404, 409, ...BODY_ERRORS],
    keyRoute: 'always',
  },
  {
    method: 'post',
    path: `${API}/{key_id}/activate`,
    operationId: 'activateApiKey',
    summary: "Re-activate one of a project's API keys.",
    tag: 'API keys',
    credential: 'owner',
    body: { schema: 'NoFieldsBody', required: false },
    success: { status: 200, schema: 'ApiKey' },
    errors: [409, ...BODY_ERRORS],
    keyRoute: 'always',
  },
  {
    method: 'patch',
    path: `${DEV}/{key_id}`,
    operationId: 'setDeveloperKeyExpiry',
    summary:
      "Set when one of the calling developer's keys expires (or never); not for a key in a roll's grace window.",
    tag: 'Developer keys',
    credential: 'developer',
    body: { schema: 'SetKeyExpiryBody', required: true },
    success: { status: 200, schema: 'DeveloperKey' },
    errors: [404, 409, ...BODY_ERRORS],
    keyRoute: 'always',
  },
  {
    method: 'patch',
    path: `${API}/{key_id}`,
    operationId: 'setApiKeyExpiry',
    summary:
      "Set when one of a project's API keys expires (or never; not for a key in a roll's grace window), " +
      'its IP allowlist, permissions, metadata or low-credits threshold.',
    tag: 'API keys',
    credential: 'owner',
    body: { schema: 'UpdateApiKeyBody', required: true },
    success: { status: 200, schema: 'ApiKey' },
    errors: [409, ...BODY_ERRORS],
    keyRoute: 'always',
  },
  {
    method: 'get',
    path: '/api/v1/auth/usage',
    operationId: 'getDeveloperUsage',
    summary:
      "Usage of the calling developer's keys: verifications per bucket (minute, hour or day), key and outcome.",
    tag: 'Developer keys',
    credential: 'developer',
    query: USAGE_QUERY,
    success: { status: 200, schema: 'Usage' },
    errors: USAGE_ERRORS,
    keyRoute: 'always',
  },
  {
    method: 'get',
    path: '/api/v1/projects/{project_id}/usage',
    operationId: 'getProjectUsage',
    summary:
      "Usage of a project's API keys: verifications per bucket (minute, hour or day), key and outcome.",
    tag: 'API keys',
    credential: 'owner',
    query: USAGE_QUERY,
    success: { status: 200, schema: 'Usage' },
    errors: USAGE_ERRORS,
    keyRoute: 'always',
  },
  {
    method: 'post',
    path: `${API}/{key_id}/credits`,
    operationId: 'changeApiKeyCredits',
    summary:
      "Set, add to or subtract from one of a project's API keys' credits, atomically; `set` may change the refill too " +
      '(and clears a low-credits threshold the new credits could not have: none without a limit, none in percent without a refill).',
    tag: 'API keys',
    credential: 'owner',
    body: { schema: 'ChangeCreditsBody', required: true },
    success: { status: 200, schema: 'ApiKey' },
    errors: BODY_ERRORS,
    keyRoute: 'always',
  },
  {
    method: 'post',
    path: IDS,
    operationId: 'createIdentity',
    summary:
      'Create an identity in a project of the calling developer: a customer whose keys share its rate limits, credit pool and metadata.',
    tag: 'Identities',
    credential: 'owner',
    body: { schema: 'CreateIdentityBody', required: true },
    success: { status: 201, schema: 'Identity' },
    errors: [409, ...BODY_ERRORS],
    keyRoute: 'identities',
  },
  {
    method: 'get',
    path: IDS,
    operationId: 'listIdentities',
    summary:
      "List a project's identities, newest first, a page at a time; with `q`, those whose `external_id` contains it; with `external_id`, the one identity of that id (an empty page when there is none).",
    tag: 'Identities',
    credential: 'owner',
    query: [...PAGED, 'identity_q', 'identity_external_id'],
    success: { status: 200, schema: 'IdentityList' },
    errors: [422],
    keyRoute: 'identities',
  },
  {
    method: 'get',
    path: `${IDS}/{identity_id}`,
    operationId: 'getIdentity',
    summary: "One of a project's identities (404 for any other).",
    tag: 'Identities',
    credential: 'owner',
    success: { status: 200, schema: 'Identity' },
    errors: [404],
    keyRoute: 'identities',
  },
  {
    method: 'patch',
    path: `${IDS}/{identity_id}`,
    operationId: 'updateIdentity',
    summary:
      "Change an identity's metadata, rate limits or low-credits threshold (`null` clears); every key of it sees the change within the revocation bound.",
    tag: 'Identities',
    credential: 'owner',
    body: { schema: 'UpdateIdentityBody', required: true },
    success: { status: 200, schema: 'Identity' },
    errors: BODY_ERRORS,
    keyRoute: 'identities',
  },
  {
    method: 'delete',
    path: `${IDS}/{identity_id}`,
    operationId: 'deleteIdentity',
    summary:
      'Delete an identity: 409 `identity_has_keys` while keys belong to it, unless `revoke_keys=true`, which revokes them in the same transaction.',
    tag: 'Identities',
    credential: 'owner',
    query: ['revoke_keys'],
    success: { status: 200, schema: 'DeletedIdentity' },
    errors: [409, 422],
    keyRoute: 'identities',
  },
  {
    method: 'get',
    path: `${IDS}/{identity_id}/keys`,
    operationId: 'listIdentityKeys',
    summary: "List an identity's API keys, active or not, newest first, a page at a time.",
    tag: 'Identities',
    credential: 'owner',
    query: PAGED,
    success: { status: 200, schema: 'ApiKeyList' },
    errors: [422],
    keyRoute: 'identities',
  },
  {
    method: 'get',
    path: `${IDS}/{identity_id}/usage`,
    operationId: 'getIdentityUsage',
    summary:
      "Usage of an identity: the counts of the API keys that belong to it now, per bucket (minute, hour or day), key and outcome; the identity's total is their sum.",
    tag: 'Identities',
    credential: 'owner',
    query: USAGE_QUERY,
    success: { status: 200, schema: 'Usage' },
    errors: USAGE_ERRORS,
    keyRoute: 'identities',
  },
  {
    method: 'post',
    path: `${IDS}/{identity_id}/credits`,
    operationId: 'changeIdentityCredits',
    summary:
      "Set, add to or subtract from the credit pool of one of a project's identities, atomically; `set` may change the refill too.",
    description:
      'Every key of the identity spends from the pool besides its own credits, from both or from neither. ' +
      'A subtraction below zero, and `add` or `subtract` on an identity without a pool, are 422 and change nothing; ' +
      'an identity of another project is 404, as an unknown one. A `set` clears a low-credits threshold the new pool ' +
      'could not have (none without a pool, none in percent without a refill).',
    tag: 'Identities',
    credential: 'owner',
    body: { schema: 'ChangeCreditsBody', required: true },
    success: { status: 200, schema: 'Identity' },
    errors: [404, ...BODY_ERRORS],
    keyRoute: 'identities',
  },
  {
    method: 'post',
    path: '/api/v1/secret-scanning/github',
    operationId: 'reportLeakedKeys',
    summary: "Secret-scanning alerts in GitHub's partner format: each real key found is deactivated.",
    tag: 'Service',
    credential: 'signature',
    body: { schema: { arrayOf: 'SecretScanningAlert' }, required: true },
    success: { status: 200, schema: { arrayOf: 'SecretScanningFeedback' } },
    errors: [400, 401, ...BODY_ERRORS],
  },
  {
    method: 'post',
    path: '/api/v1/keys/verify',
    operationId: 'verifyKey',
    summary:
      "Verify an API key for another program, as the key's guard would: `valid` and, when refused, the guard's " +
      'error type as `code`. A developer key verifies keys of its own projects (any other answers as unknown); ' +
      'a service token, those of any project.',
    tag: 'Verification',
    credential: 'verifier',
    body: { schema: 'VerifyKeyBody', required: true },
    success: { status: 200, schema: 'VerifyKeyResult' },
    errors: BODY_ERRORS,
    keyRoute: 'verify',
  },
  {
    method: 'get',
    path: '/api/v1/audit',
    operationId: 'listAuditLog',
    summary:
      "The calling developer's audit log (of their keys and projects), newest first, a page at a time; " +
      'with `project_id`, one of their projects (404 for one that is not theirs); with `key_id`, `identity_id`, `action`, `from` and `to`, the rows about one key or one identity, of one action, in a range of time.',
    tag: 'Audit',
    credential: 'developer',
    query: [
      ...PAGED,
      'audit_project_id',
      'audit_key_id',
      'audit_identity_id',
      'audit_action',
      'audit_from',
      'audit_to',
    ],
    success: { status: 200, schema: 'AuditLog' },
    errors: [404, 422],
    keyRoute: 'audit',
  },
  {
    method: 'get',
    path: '/openapi.json',
    operationId: 'getOpenApiDocument',
    summary: 'This document.',
    tag: 'Service',
    credential: 'none',
    success: { status: 200, schema: 'OpenApiDocument' },
    errors: [],
  },
  {
    method: 'get',
    path: '/healthz',
    operationId: 'getHealth',
    summary: 'Whether the server and its store are up.',
    tag: 'Service',
    credential: 'none',
    success: { status: 200, schema: 'Health' },
    errors: [503],
  },
  ...ROLE_OPERATIONS,
  ...WEBHOOK_OPERATIONS,
]
