import { AUDIT_ACTIONS } from '../audit/types.js'
import { ERROR_STATUS, type ErrorType } from '../errors/types.js'
import { WEBHOOK_EVENT_TYPES } from '../webhooks/types.js'
import { API_OPERATIONS, type ApiOperation, type OperationCredential } from './operations.js'
import { API_SCHEMAS, type ApiSchemaName, errorDetailSchema } from './schemas.js'

/** Options of {@link openApiDocument}. */
export interface OpenApiDocumentOptions {
  /**
   * Which operations: `'service'` (default) every endpoint of the reference service;
   * `'key-routes'` only those that `createKeyRoutes` serves, for a host that mounts them.
   */
  readonly operations?: 'service' | 'key-routes'
  /** With `operations: 'key-routes'`: whether `POST /api/v1/projects` is mounted. Default `false`. */
  readonly createProject?: boolean
  /** With `operations: 'key-routes'`: whether `GET /api/v1/projects` is mounted. Default `false`. */
  readonly listProjects?: boolean
  /**
   * With `operations: 'key-routes'`: whether `GET /api/v1/audit` is mounted (the key routes mount
   * it when the store keeps an audit log). Default `false`.
   */
  readonly audit?: boolean
  /**
   * With `operations: 'key-routes'`: whether the identities' operations are mounted (the key routes
   * mount them when the store keeps identities). Default `true`.
   */
  readonly identities?: boolean
  /**
   * With `operations: 'key-routes'`: whether the roles' operations are mounted (the key routes
   * mount them when the store keeps roles). Default `true`.
   */
  readonly roles?: boolean
  /**
   * With `operations: 'key-routes'`: whether the webhook endpoints' operations are mounted (the
   * key routes mount them when the store keeps webhooks). Default `false`.
   */
  readonly webhooks?: boolean
  /** With `operations: 'key-routes'`: whether `POST /api/v1/keys/verify` is mounted. Default `true`. */
  readonly verify?: boolean
  /** `info.title`. Default `'Keyward API'`. */
  readonly title?: string
  /** `info.version`: the version of your API. Default `'1.0.0'`. */
  readonly version?: string
  /** Where the API is served, e.g. `[{ url: 'https://api.example.com' }]`. */
  readonly servers?: ReadonlyArray<{ readonly url: string; readonly description?: string }>
}

/** An OpenAPI 3.1 document, as plain JSON. */
export type OpenApiDocument = { readonly openapi: '3.1.0' } & Readonly<Record<string, unknown>>

// The API's operations; `/openapi.json` and `/healthz` are the server's.
const API_PREFIX = '/api/v1/'

const ref = (kind: 'schemas' | 'responses' | 'parameters', name: string) => ({
  $ref: `#/components/${kind}/${name}`,
})

const CREDENTIAL: Readonly<Record<OperationCredential, { security: object[]; errors: number[] }>> = {
  developer: { security: [{ DeveloperKey: [] }], errors: [401, 429, 503] },
  owner: { security: [{ DeveloperKey: [] }], errors: [401, 403, 404, 429, 503] },
  project: { security: [{ ApiKey: [] }], errors: [401, 403, 429, 503] },
  elevated: { security: [{ DeveloperKey: [], ApiKey: [] }], errors: [401, 403, 404, 429, 503] },
  bearer: { security: [{ BearerToken: [] }], errors: [401, 429, 503] },
  signature: { security: [], errors: [503] },
  verifier: { security: [{ DeveloperKey: [] }, { ServiceToken: [] }], errors: [401, 429, 503] },
  none: { security: [], errors: [] },
}

const PARAMETERS = {
  project_id: { name: 'project_id', in: 'path', required: true, schema: { type: 'string' } },
  key_id: { name: 'key_id', in: 'path', required: true, schema: { type: 'string' } },
  identity_id: { name: 'identity_id', in: 'path', required: true, schema: { type: 'string' } },
  role_id: { name: 'role_id', in: 'path', required: true, schema: { type: 'string' } },
  endpoint_id: { name: 'endpoint_id', in: 'path', required: true, schema: { type: 'string' } },
  identity_external_id: {
    name: 'external_id',
    in: 'query',
    required: false,
    description:
      'Only the identity with this `external_id` (1 to 255 characters, never shaped like a key): a page of it alone, or an empty page.',
    schema: { type: 'string', maxLength: 255 },
  },
  identity_q: {
    name: 'q',
    in: 'query',
    required: false,
    description:
      'Only the identities whose `external_id` contains it, in any case (1 to 255 characters; never shaped like a key, 422 `key_shaped_value`). `external_id`, when given too, wins.',
    schema: { type: 'string', maxLength: 255 },
  },
  revoke_keys: {
    name: 'revoke_keys',
    in: 'query',
    required: false,
    description:
      "`true`: revoke the identity's keys and delete it, in one transaction. Default `false`: an identity with keys is kept (409).",
    schema: { type: 'string', enum: ['true', 'false'], default: 'false' },
  },
  detach: {
    name: 'detach',
    in: 'query',
    required: false,
    description:
      '`true`: take the role from every key that holds it and delete it, in one transaction. Default `false`: a role that keys hold is kept (409 `role_in_use`).',
    schema: { type: 'string', enum: ['true', 'false'], default: 'false' },
  },
  generation_id: {
    name: 'generation_id',
    in: 'path',
    required: true,
    description: 'A UUID; anything else is answered 422 `uuid_parsing`.',
    schema: { type: 'string' },
  },
  limit: {
    name: 'limit',
    in: 'query',
    required: false,
    description: 'How many items at most, 1 to 200. Default 100.',
    schema: { type: 'integer', minimum: 1, maximum: 200, default: 100 },
  },
  cursor: {
    name: 'cursor',
    in: 'query',
    required: false,
    description:
      'The `next_cursor` of the previous page, as it is; none (or empty) for the first page. A cursor no listing gave out is answered 422 at `["query", "cursor"]`.',
    schema: { type: 'string' },
  },
  audit_project_id: {
    name: 'project_id',
    in: 'query',
    required: false,
    description: "Only this project's rows: a project of the calling developer (404 for any other).",
    schema: { type: 'string' },
  },
  from: {
    name: 'from',
    in: 'query',
    required: false,
    description:
      'The start of the range, an RFC 3339 time with an offset. Default: 24 hours before `to`. Not older than the granularity is kept (minutes 7 days, hours 90, days 730 by default): 422 at `["query", "from"]`.',
    schema: { type: 'string', format: 'date-time' },
  },
  to: {
    name: 'to',
    in: 'query',
    required: false,
    description:
      'The end of the range (exclusive), an RFC 3339 time with an offset. Default: now. At most 1440 buckets from `from`.',
    schema: { type: 'string', format: 'date-time' },
  },
  granularity: {
    name: 'granularity',
    in: 'query',
    required: false,
    description: 'The size of a bucket, in UTC. Default `hour`.',
    schema: { type: 'string', enum: ['minute', 'hour', 'day'], default: 'hour' },
  },
  key_q: {
    name: 'q',
    in: 'query',
    required: false,
    description:
      'Only keys whose name contains it, in any case, or whose `key_prefix` starts with it (`ak_Ab3`, or the display form `ak_Ab3xY...`); 1 to 100 characters, an empty one is none.',
    schema: { type: 'string', maxLength: 100 },
  },
  key_status: {
    name: 'status',
    in: 'query',
    required: false,
    description:
      "Only keys of this status now: `active` (active and not expired, a roll's old key in its grace window too), `expired` (active, past `expires_at`), `revoked` (deactivated, whatever the reason), `leaked` (deactivated by a leak report: some of the revoked keys).",
    schema: { type: 'string', enum: ['active', 'expired', 'revoked', 'leaked'] },
  },
  audit_key_id: {
    name: 'key_id',
    in: 'query',
    required: false,
    description:
      'Only the rows about this key (a UUID): its creation, revocation, roll, expiry, policies, credits.',
    schema: { type: 'string', format: 'uuid' },
  },
  audit_identity_id: {
    name: 'identity_id',
    in: 'query',
    required: false,
    description:
      "Only the rows about this identity (a UUID): its creation, changes, credits and deletion, and its keys' joining or leaving it.",
    schema: { type: 'string', format: 'uuid' },
  },
  audit_action: {
    name: 'action',
    in: 'query',
    required: false,
    description: 'Only the rows of this action.',
    schema: { type: 'string', enum: [...AUDIT_ACTIONS] },
  },
  audit_from: {
    name: 'from',
    in: 'query',
    required: false,
    description: 'Only the rows at or after this time, an RFC 3339 time with an offset.',
    schema: { type: 'string', format: 'date-time' },
  },
  audit_to: {
    name: 'to',
    in: 'query',
    required: false,
    description: 'Only the rows before this time, an RFC 3339 time with an offset; after `from`.',
    schema: { type: 'string', format: 'date-time' },
  },
  usage_key_id: {
    name: 'key_id',
    in: 'query',
    required: false,
    description: "Only this key (a UUID) of the caller's; another's is answered 404.",
    schema: { type: 'string', format: 'uuid' },
  },
  github_signature: {
    name: 'GITHUB-PUBLIC-KEY-SIGNATURE',
    in: 'header',
    required: true,
    description: "The sender's ECDSA P-256 / SHA-256 signature of the raw body, base64 DER.",
    schema: { type: 'string' },
  },
  github_key_id: {
    name: 'GITHUB-PUBLIC-KEY-IDENTIFIER',
    in: 'header',
    required: true,
    description: "The id of the sender's public key that made the signature.",
    schema: { type: 'string' },
  },
} as const

const STATUS_TEXT: Readonly<Record<number, string>> = {
  400: 'The request body is not in the expected format (a secret-scanning alert that is not an array of alerts), or the request breaks HTTP/1.1 (answered by the server before any route).',
  401: 'No valid credential. `WWW-Authenticate: Bearer` for bearer tokens.',
  403: "A valid credential without access to this project, used from an address outside the API key's IP allowlist, or without a permission the route requires.",
  404: 'The project or resource does not exist, or is not visible to the caller.',
  408: 'The client took longer than the server allows to send the request; the connection closes.',
  409: 'The owner already has its limit of active keys, the key cannot be rolled, re-activated or given a new expiry (rolled, expired, inactive), the project has an identity with this `external_id` already, or the identity still has keys.',
  413: 'The request body is larger than the server accepts.',
  415: 'The request body is not `application/json`.',
  417: 'The request has an `Expect` header other than `100-continue`.',
  422: 'The request body, path or query is invalid, or the query names a parameter the operation does not declare (`extra_forbidden` at `["query", name]`).',
  429: "Too many requests (`Retry-After` says when to try again), or the API key's credits, or its identity's credit pool, cannot pay this request (`X-Credits-Remaining` says how many are left in the one that refused; `Retry-After` when it has a refill scheduled).",
  431: 'The request headers are larger than the server accepts; the connection closes.',
  500: 'An unexpected failure; the body says nothing more.',
  503: 'The key store cannot be reached; the request was refused (`store_unavailable`). Or a revocation was committed but not confirmed in time (`revocation_unconfirmed`): the key is revoked, and revoking it again is harmless. `Retry-After` may say when to try again.',
}

// JSON without TypeBox's symbol keys: a plain copy of each schema.
const plain = (value: unknown): unknown => JSON.parse(JSON.stringify(value))

const header = (description: string) => ({ description, schema: { type: 'string' } })

/** The error response of one status: the envelope, with `type` limited to that status's types. */
function errorResponse(status: number) {
  const types = (Object.keys(ERROR_STATUS) as ErrorType[]).filter((type) => ERROR_STATUS[type] === status)
  const headers: Record<string, object> = { 'Cache-Control': header('`no-store`.') }
  if (status === 401)
    headers['WWW-Authenticate'] = header('`Bearer` challenge, for bearer tokens (RFC 6750).')
  if (status === 429 || status === 503) headers['Retry-After'] = header('Seconds to wait.')
  if (status === 429) {
    headers['X-Credits-Remaining'] = header(
      "With `usage_exceeded`: the credits left (fewer than the request's cost) in what refused it: the API key's own, or its identity's pool.",
    )
  }
  return {
    description: `${STATUS_TEXT[status]} Types: ${types.map((t) => `\`${t}\``).join(', ')}.`,
    headers,
    content: {
      'application/json': {
        schema: {
          type: 'object',
          required: ['detail'],
          properties: { detail: { type: 'array', minItems: 1, items: plain(errorDetailSchema(types)) } },
        },
      },
    },
  }
}

const schemaOf = (schema: ApiSchemaName | { readonly arrayOf: ApiSchemaName } | 'OpenApiDocument') =>
  schema === 'OpenApiDocument'
    ? { type: 'object', required: ['openapi'], properties: { openapi: { type: 'string' } } }
    : typeof schema === 'string'
      ? ref('schemas', schema)
      : { type: 'array', items: ref('schemas', schema.arrayOf) }

function operationObject(op: ApiOperation) {
  const credential = CREDENTIAL[op.credential]
  const names = [...op.path.matchAll(/\{(\w+)\}/g)].map((m) => m[1] as keyof typeof PARAMETERS)
  names.push(...(op.query ?? []))
  if (op.credential === 'signature') names.push('github_signature', 'github_key_id')
  // Every operation of the API refuses a query parameter it does not declare.
  const query = op.path.startsWith(API_PREFIX) ? [422] : []
  const errors = [...new Set([...credential.errors, ...op.errors, ...query])].sort()
  return {
    operationId: op.operationId,
    summary: op.summary,
    ...(op.description ? { description: op.description } : {}),
    tags: [op.tag],
    security: credential.security,
    ...(names.length > 0 ? { parameters: names.map((name) => ref('parameters', name)) } : {}),
    ...(op.body
      ? {
          requestBody: {
            required: op.body.required,
            content: { 'application/json': { schema: schemaOf(op.body.schema) } },
          },
        }
      : {}),
    responses: {
      [op.success.status]: {
        description: 'Success.',
        // An API key with credits spends them on the operations it authenticates.
        ...(op.credential === 'project' || op.credential === 'elevated'
          ? {
              headers: {
                'X-Credits-Remaining': header(
                  'For an API key with credits, or of an identity with a pool: how many it can still spend (with both, the lower of the two).',
                ),
              },
            }
          : {}),
        content: { 'application/json': { schema: schemaOf(op.success.schema) } },
      },
      ...Object.fromEntries(errors.map((status) => [status, ref('responses', `Error${status}`)])),
      500: ref('responses', 'Error500'),
    },
  }
}

// A delivery of one event type: the body, the Standard Webhooks headers, what the receiver answers.
const webhookOperation = (type: string) => ({
  post: {
    summary: `\`${type}\`, signed per Standard Webhooks (HMAC-SHA256, v1).`,
    parameters: ['webhook-id', 'webhook-timestamp', 'webhook-signature'].map((name) => ({
      name,
      in: 'header',
      required: true,
      schema: { type: 'string' },
    })),
    requestBody: {
      required: true,
      content: { 'application/json': { schema: ref('schemas', 'WebhookPayload') } },
    },
    responses: {
      200: {
        description: 'Received: any 2xx. Anything else, or no answer in 10 s, is retried with backoff.',
      },
    },
  },
})

/**
 * The OpenAPI 3.1 document of the HTTP API, built from the same schemas that validate the
 * requests: every operation with its security (`X-Developer-Key`, `X-API-Key`, bearer), request
 * and response bodies, and each error status with the error `type`s it can carry. Serve it as
 * JSON, or give it to a client generator.
 *
 * @example
 * ```ts
 * const document = JSON.stringify(openApiDocument({ servers: [{ url: 'https://api.example.com' }] }))
 * app.get('/openapi.json', (c) => c.body(document, 200, { 'content-type': 'application/json' }))
 * // A host that mounts only Keyward's key routes:
 * openApiDocument({ operations: 'key-routes', createProject: true })
 * ```
 */
export function openApiDocument(options: OpenApiDocumentOptions = {}): OpenApiDocument {
  const keyRoutesOnly = options.operations === 'key-routes'
  const operations = API_OPERATIONS.filter(
    (op) =>
      !keyRoutesOnly ||
      op.keyRoute === 'always' ||
      (op.keyRoute === 'createProject' && options.createProject) ||
      (op.keyRoute === 'listProjects' && options.listProjects) ||
      (op.keyRoute === 'audit' && options.audit) ||
      (op.keyRoute === 'verify' && options.verify !== false) ||
      (op.keyRoute === 'identities' && options.identities !== false) ||
      (op.keyRoute === 'roles' && options.roles !== false) ||
      (op.keyRoute === 'webhooks' && options.webhooks),
  )
  const paths: Record<string, Record<string, unknown>> = {}
  for (const op of operations) {
    paths[op.path] ??= {}
    paths[op.path]![op.method] = operationObject(op)
  }
  const statuses = [...new Set(Object.values(ERROR_STATUS))].sort()
  return {
    openapi: '3.1.0',
    info: {
      title: options.title ?? 'Keyward API',
      version: options.version ?? '1.0.0',
      description:
        'API-key authentication: developer keys (`X-Developer-Key`), project API keys (`X-API-Key`) ' +
        'and short-lived bearer tokens. Every error body is `{"detail": [{"loc", "msg", "type"}]}`. ' +
        'An operation under `/api/v1/` refuses a query parameter it does not declare: 422 `extra_forbidden` at `["query", name]`, changing nothing.',
    },
    ...(options.servers ? { servers: options.servers.map((server) => ({ ...server })) } : {}),
    paths,
    // What the developer's endpoints receive: one POST per event, signed per Standard Webhooks.
    webhooks: Object.fromEntries(WEBHOOK_EVENT_TYPES.map((type) => [type, webhookOperation(type)])),
    components: {
      schemas: plain(API_SCHEMAS),
      responses: Object.fromEntries(statuses.map((status) => [`Error${status}`, errorResponse(status)])),
      parameters: PARAMETERS,
      securitySchemes: {
        DeveloperKey: {
          type: 'apiKey',
          in: 'header',
          name: 'X-Developer-Key',
          description: 'A developer key.',
        },
        ApiKey: {
          type: 'apiKey',
          in: 'header',
          name: 'X-API-Key',
          description: 'An API key of the project.',
        },
        BearerToken: {
          type: 'http',
          scheme: 'bearer',
          bearerFormat: 'JWT',
          description: 'An access token from `POST /api/v1/projects/{project_id}/access-tokens`.',
        },
        ServiceToken: {
          type: 'http',
          scheme: 'bearer',
          description:
            'A service token of the verification endpoint, one the operator configured (the server keeps its SHA-256 only).',
        },
      },
    },
  }
}
