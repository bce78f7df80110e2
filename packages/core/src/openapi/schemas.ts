import { type Static, type TSchema, Type } from '@sinclair/typebox'
import { MAX_CREDITS } from '../credits/model.js'
import { ERROR_STATUS, ErrorType } from '../errors/types.js'
import {
  MAX_EXTERNAL_ID_LENGTH,
  MAX_RATE_LIMIT,
  MAX_RATE_LIMIT_DURATION_MS,
  MAX_RATE_LIMITS,
  MIN_RATE_LIMIT_DURATION_MS,
  RATE_LIMIT_NAME_PATTERN,
} from '../identities/model.js'
import { KEY_LENGTH, KEY_PREFIX_LENGTH } from '../key/constants.js'
import {
  MAX_IP_ALLOWLIST,
  MAX_METADATA_BYTES,
  MAX_PERMISSIONS,
  PERMISSION_PATTERN,
} from '../policy/policies.js'
import { MAX_QUERY_LENGTH } from '../policy/query.js'
import { USAGE_GRANULARITIES, USAGE_OUTCOMES } from '../store/usage.js'
import { GrantedPermissionSchema, IdentityRolesSchema, KeyRolesSchema, ROLE_SCHEMAS } from './role-schemas.js'
import { WEBHOOK_SCHEMAS } from './webhook-schemas.js'

// The one definition of every JSON body of the HTTP API: the key routes validate request
// bodies with these, and `openApiDocument` publishes them. Field names are the wire's (snake_case).

const timestamp = (description: string) => Type.String({ format: 'date-time', description })

/** C0 controls and DEL, as a character class: never meant in a name. */
export const NAME_FORBIDDEN_CHARACTERS = '\\u0000-\\u001F\\u007F'

/**
 * A descriptive name of a key or a project: 1 to 100 characters (Unicode code points, as JSON
 * Schema counts them), no control character.
 */
export const NameSchema = Type.String({
  minLength: 1,
  maxLength: 100,
  pattern: `^[^${NAME_FORBIDDEN_CHARACTERS}]*$`,
  description:
    '1 to 100 characters, no control character, nothing shaped like a key (`ak_` or `dk_` followed by random characters: `key_shaped_value`).',
})

/** A name that may be absent (`null`), as key creation takes it. */
export const NullableNameSchema = Type.Union([NameSchema, Type.Null()], {
  description: 'A descriptive name.',
})

// An identity's `external_id`: the host's own id for its customer, 1 to 255 characters (Unicode
// code points), no control character, nothing shaped like a key (checked as a name is).
const externalId = (description: string) =>
  Type.String({ minLength: 1, maxLength: MAX_EXTERNAL_ID_LENGTH, pattern: NameSchema.pattern, description })

/** An identity's `external_id`, as its creation takes it. */
export const ExternalIdSchema = externalId(
  "The host's own id for its customer: 1 to 255 characters, unique within the project, no control character, " +
    'nothing shaped like a key (`key_shaped_value`). It never changes.',
)

/** The body of `POST .../developer-keys` and `POST .../api-keys`: every field optional. */
export const CreateKeyBodySchema = Type.Object(
  {
    name: Type.Optional(NullableNameSchema),
    expires_at: Type.Optional(timestamp('When the key stops working: an ISO 8601 time in the future.')),
    expires_in_days: Type.Optional(
      Type.Integer({ minimum: 1, maximum: 3650, description: 'Days until the key stops working.' }),
    ),
  },
  {
    additionalProperties: false,
    description:
      'Unknown fields are refused (`extra_forbidden`). Give `expires_at` or `expires_in_days`, not both.',
  },
)

// An API key's policies, as creation and update take them and listings show them. The entries of
// the lists are checked by the key service, which locates a faulty one by its index.
const ipAllowlist = Type.Union(
  [
    Type.Array(Type.String(), {
      maxItems: MAX_IP_ALLOWLIST,
      description:
        'An IPv4 or IPv6 address (`203.0.113.7`, `2001:db8::1`) or CIDR range (`10.0.0.0/8`, `2001:db8::/32`).',
    }),
    Type.Null(),
  ],
  {
    description:
      `The addresses and CIDR ranges the key may be used from, at most ${MAX_IP_ALLOWLIST}; \`null\` for anywhere. ` +
      'IPv4 clients seen as IPv4-mapped IPv6 (`::ffff:203.0.113.7`) match IPv4 entries.',
  },
)
const permissions = Type.Union(
  [Type.Array(GrantedPermissionSchema, { maxItems: MAX_PERMISSIONS }), Type.Null()],
  {
    description:
      "The key's own permissions, among those the server declares, or wildcards; `null` for all of them (unless it holds roles: then none but its roles').",
  },
)
const metadata = Type.Union([Type.Object({}, { additionalProperties: true }), Type.Null()], {
  description: `A JSON object of at most ${MAX_METADATA_BYTES} bytes handed to the server with the key; \`null\` for none.`,
})

/** A named rate limit stored on an API key or an identity: at most `limit` per `duration` milliseconds. */
export const RateLimitSchema = Type.Object(
  {
    name: Type.String({
      pattern: RATE_LIMIT_NAME_PATTERN.source,
      description: 'Distinct among the limits of a key (or identity), what a route names to give it a cost.',
    }),
    limit: Type.Integer({
      minimum: 1,
      maximum: MAX_RATE_LIMIT,
      description: 'How many requests (or how much cost) each window allows.',
    }),
    duration: Type.Integer({
      minimum: MIN_RATE_LIMIT_DURATION_MS,
      maximum: MAX_RATE_LIMIT_DURATION_MS,
      multipleOf: 1000,
      description: 'The window, in milliseconds of whole seconds: from 1000 (1 s) to 86400000 (1 day).',
    }),
  },
  {
    additionalProperties: false,
    description:
      "At most `limit` per `duration`, counted in fixed windows. Each request costs 1 unless its route gives the limit another cost. An identity's limits are shared by all its keys.",
  },
)
const ratelimits = Type.Union([Type.Array(RateLimitSchema, { maxItems: MAX_RATE_LIMITS }), Type.Null()], {
  description: `The key's own named rate limits, at most ${MAX_RATE_LIMITS}, names distinct; \`null\` or \`[]\` for none.`,
})
const policyFields = {
  ip_allowlist: Type.Optional(ipAllowlist),
  permissions: Type.Optional(permissions),
  metadata: Type.Optional(metadata),
  ratelimits: Type.Optional(ratelimits),
  roles: Type.Optional(KeyRolesSchema),
}

// An API key's credits. Amounts are checked by the key service, which says which field is wrong.
const credits = (description: string) =>
  Type.Union([Type.Integer({ minimum: 0, maximum: MAX_CREDITS }), Type.Null()], { description })

/** A refill rule of a key's credits. */
export const CreditRefillSchema = Type.Object(
  {
    amount: Type.Integer({
      minimum: 1,
      maximum: MAX_CREDITS,
      description: 'The balance a refill brings the key up to.',
    }),
    interval: Type.Union([Type.Literal('daily'), Type.Literal('monthly')]),
    day: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: 31,
        description: "Monthly only: the day of the month (default 1); past the month's end, its last day.",
      }),
    ),
  },
  {
    additionalProperties: false,
    description:
      'Refills at 00:00 UTC, daily or on a day of the month. A refill sets the balance to `amount` when it is ' +
      'below, once per period, and leaves a higher balance (credits added) as it is.',
  },
)
const refill = Type.Union([CreditRefillSchema, Type.Null()], {
  description: 'How the credits come back; `null` for never.',
})
/** When credits are low, for the webhook event `credits.low`. */
export const CreditsLowAtSchema = Type.Union(
  [
    Type.Object(
      { remaining: Type.Integer({ description: `Low at or below this many credits, 0 to ${MAX_CREDITS}.` }) },
      { additionalProperties: false },
    ),
    Type.Object(
      {
        percent: Type.Integer({
          description: "Low at or below this share of the refill rule's amount, 1 to 99.",
        }),
      },
      { additionalProperties: false },
    ),
    Type.Null(),
  ],
  {
    description:
      'When the credits are low: `credits.low` is sent once per refill period when a lease leaves the balance at or ' +
      'below it. Needs `remaining`; `percent` needs `refill`. `null` for none.',
  },
)
const creditFields = {
  remaining: Type.Optional(
    credits(
      "The credits the key has left, `null` for unlimited. Each request costs its route's cost (default 1); " +
        "credits that servers leased in blocks are spent already from the key's viewpoint.",
    ),
  ),
  refill: Type.Optional(refill),
  credits_low_at: Type.Optional(CreditsLowAtSchema),
}

// The identity an API key belongs to, by its id (one of the key's project's).
const identityId = (description: string) => Type.String({ description })

/** The body of `POST .../api-keys`: the fields of a developer key's, and the key's policies. */
export const CreateApiKeyBodySchema = Type.Object(
  {
    ...CreateKeyBodySchema.properties,
    ...policyFields,
    ...creditFields,
    identity_id: Type.Optional(
      identityId("The identity the key joins, one of the project's (422 at `identity_id` for any other)."),
    ),
    external_id: Type.Optional(
      externalId(
        'The identity the key joins, by its `external_id`: created on first use, joined by every later key that names it.',
      ),
    ),
  },
  {
    additionalProperties: false,
    description:
      'Unknown fields are refused (`extra_forbidden`). Give `expires_at` or `expires_in_days`, not both. Without `permissions` the key has every permission. ' +
      'Without `remaining` its credits are unlimited; `refill` needs `remaining`. Give `identity_id` or `external_id`, not both.',
  },
)

/** The body of `PATCH .../developer-keys/{key_id}` and `PATCH .../api-keys/{key_id}`: one of the two fields. */
export const SetKeyExpiryBodySchema = Type.Object(
  {
    expires_at: Type.Optional(
      Type.Union([timestamp('When the key stops working: an ISO 8601 time in the future.'), Type.Null()], {
        description: 'When the key stops working, or `null`: it never expires.',
      }),
    ),
    expires_in_days: Type.Optional(
      Type.Integer({ minimum: 1, maximum: 3650, description: 'Days from now until the key stops working.' }),
    ),
  },
  {
    additionalProperties: false,
    description:
      'Give `expires_at` (a time, or `null` for never) or `expires_in_days`, not both. Unknown fields are refused (`extra_forbidden`).',
  },
)

/** The body of `PATCH .../api-keys/{key_id}`: a new expiry, new policies, a new identity, or several. */
export const UpdateApiKeyBodySchema = Type.Object(
  {
    ...SetKeyExpiryBodySchema.properties,
    ...policyFields,
    credits_low_at: Type.Optional(CreditsLowAtSchema),
    identity_id: Type.Optional(
      Type.Union(
        [
          identityId(
            "The identity the key joins, one of the project's (422 at `identity_id` for any other).",
          ),
          Type.Null(),
        ],
        { description: 'The identity the key joins, or `null`: it leaves its identity.' },
      ),
    ),
  },
  {
    additionalProperties: false,
    description:
      'Any of: `expires_at` or `expires_in_days` (not both), `ip_allowlist`, `permissions`, `metadata`, `ratelimits` ' +
      "(`null` clears a policy), `credits_low_at` (checked against the key's credits as at creation; `null` clears " +
      'it), `identity_id` (`null`: the key leaves its identity). Fields left out stay as ' +
      'they are. Unknown fields are refused (`extra_forbidden`).',
  },
)

/** The body of `POST .../api-keys/{key_id}/credits`: one atomic change of a key's credits. */
export const ChangeCreditsBodySchema = Type.Object(
  {
    op: Type.Union([Type.Literal('set'), Type.Literal('add'), Type.Literal('subtract')]),
    amount: credits(
      '`set`: the new balance (`null`: unlimited); `add`, `subtract`: how many credits, at least 1. ' +
        'A subtraction below zero is refused (422) and changes nothing.',
    ),
    refill: Type.Optional(refill),
  },
  {
    additionalProperties: false,
    description:
      'Acts on the stored balance; credits that servers leased are spent already. `refill` goes with `set` ' +
      'only (left out: unchanged). Unknown fields are refused (`extra_forbidden`).',
  },
)

/**
 * The body of an operation that takes none (re-activation, access tokens): absent, or `{}`. A
 * field is refused (`extra_forbidden`) as everywhere, so that no option is taken for granted.
 */
export const NoFieldsBodySchema = Type.Object(
  {},
  { additionalProperties: false, description: 'No fields: send no body, or `{}`.' },
)

/** The body of `POST /api/v1/projects`. */
export const CreateProjectBodySchema = Type.Object(
  { name: NameSchema },
  { additionalProperties: false, description: 'Unknown fields are refused (`extra_forbidden`).' },
)

/** The body of a key roll. */
export const RollKeyBodySchema = Type.Object(
  {
    grace_seconds: Type.Optional(
      Type.Integer({
        minimum: 0,
        maximum: 604_800,
        description: 'How long the old key keeps working, in seconds (default 86400; 0 stops it at once).',
      }),
    ),
  },
  { additionalProperties: false, description: 'Unknown fields are refused (`extra_forbidden`).' },
)

const keyFields = {
  id: Type.String({ description: "The key record's id: what deactivation, roll and activation take." }),
  key_prefix: Type.String({
    minLength: KEY_PREFIX_LENGTH,
    maxLength: KEY_PREFIX_LENGTH,
    description: 'The first 8 characters of the key: for display, not unique.',
  }),
  display: Type.String({ description: '`key_prefix` followed by `...`.' }),
  name: Type.Union([Type.String(), Type.Null()]),
}
const lifecycleFields = {
  active: Type.Boolean({ description: 'Only active keys authenticate.' }),
  created_at: timestamp('When the key was issued.'),
  expires_at: Type.Optional(Type.Union([timestamp('When the key stops working.'), Type.Null()])),
  last_used_at: Type.Optional(Type.Union([timestamp('When the key last authenticated.'), Type.Null()])),
  rotation_due: Type.Optional(Type.Boolean({ description: 'Older than the rotation period.' })),
  revoked_reason: Type.Optional(
    Type.Union([Type.Literal('leaked'), Type.Literal('revoked'), Type.Literal('rolled'), Type.Null()], {
      description:
        'Why the key no longer works or is on its way out: `leaked` (deactivated by a secret-scanning report), ' +
        '`revoked` (any other deactivation), `rolled` (replaced by a roll; it works until `expires_at`), ' +
        '`null` for an active key.',
    }),
  ),
}
const fullKey = Type.String({
  minLength: KEY_LENGTH,
  maxLength: KEY_LENGTH,
  description: 'The full key, shown this once and never again.',
})

// The `K` shape: the `L` fields with `key` after `id`, in the order the wire shows them.
function withKey<P extends { id: TSchema }>(listed: P) {
  const { id, ...rest } = listed
  return { id, key: fullKey, ...rest }
}

/** A developer key as listed (the `L` shape): never the key itself. */
export const DeveloperKeySchema = Type.Object({
  ...keyFields,
  developer_id: Type.String(),
  ...lifecycleFields,
})

/** A project's API key as listed (the `L` shape): never the key itself. */
export const ApiKeySchema = Type.Object({
  ...keyFields,
  project_id: Type.String(),
  ...lifecycleFields,
  ip_allowlist: Type.Optional(ipAllowlist),
  permissions: Type.Optional(permissions),
  metadata: Type.Optional(metadata),
  ratelimits: Type.Optional(
    Type.Array(RateLimitSchema, {
      maxItems: MAX_RATE_LIMITS,
      description: "The key's own named rate limits; `[]` for none.",
    }),
  ),
  ...creditFields,
  identity_id: Type.Optional(
    Type.Union([Type.String(), Type.Null()], {
      description: 'The identity the key belongs to (its id); `null` for none.',
    }),
  ),
  roles: Type.Optional(KeyRolesSchema),
})

/** A developer key just created (the `K` shape): the listing fields and the full `key`. */
export const CreatedDeveloperKeySchema = Type.Object(withKey(DeveloperKeySchema.properties))

/** A project's API key just created (the `K` shape). */
export const CreatedApiKeySchema = Type.Object(withKey(ApiKeySchema.properties))

const previousKey = Type.Object(
  { id: Type.String(), expires_at: timestamp('When the old key stops working.') },
  { description: 'The key that was rolled: its id and its new expiry (the grace window).' },
)

/** A developer key issued by a roll: the new key (`K`) and the old key's id and expiry. */
export const RolledDeveloperKeySchema = Type.Object({
  ...CreatedDeveloperKeySchema.properties,
  previous_key: previousKey,
})

/** A project's API key issued by a roll. */
export const RolledApiKeySchema = Type.Object({
  ...CreatedApiKeySchema.properties,
  previous_key: previousKey,
})

const nextCursor = Type.Union([Type.String(), Type.Null()], {
  description:
    'Pass it as `?cursor=` for the next page; `null` on the last page. Opaque: send it back as it is.',
})

/** A page of developer keys, newest first. */
export const DeveloperKeyListSchema = Type.Object({
  keys: Type.Array(DeveloperKeySchema),
  next_cursor: nextCursor,
})

/** A page of a project's API keys, newest first. */
export const ApiKeyListSchema = Type.Object({ keys: Type.Array(ApiKeySchema), next_cursor: nextCursor })

const identityRatelimits = Type.Union(
  [Type.Array(RateLimitSchema, { maxItems: MAX_RATE_LIMITS, description: 'Distinct names.' }), Type.Null()],
  {
    description: `At most ${MAX_RATE_LIMITS} named limits shared by every key of the identity; \`null\` or \`[]\` for none.`,
  },
)
// An identity's credit pool. Amounts are checked by the service, which says which field is wrong.
const poolFields = {
  remaining: Type.Optional(
    credits(
      'The credit pool every key of the identity spends from; `null` (or absent) for none. ' +
        'A key with credits of its own spends from both.',
    ),
  ),
  refill: Type.Optional(refill),
  credits_low_at: Type.Optional(CreditsLowAtSchema),
}

/** The body of `POST .../identities`. */
export const CreateIdentityBodySchema = Type.Object(
  {
    external_id: ExternalIdSchema,
    metadata: Type.Optional(metadata),
    ratelimits: Type.Optional(identityRatelimits),
    ...poolFields,
    roles: Type.Optional(IdentityRolesSchema),
  },
  {
    additionalProperties: false,
    description:
      'Unknown fields are refused (`extra_forbidden`). A second identity with the same `external_id` in the project is 409 `identity_exists`. `refill` needs `remaining`.',
  },
)

/** The body of `PATCH .../identities/{identity_id}`. */
export const UpdateIdentityBodySchema = Type.Object(
  {
    metadata: Type.Optional(metadata),
    ratelimits: Type.Optional(identityRatelimits),
    roles: Type.Optional(IdentityRolesSchema),
    credits_low_at: Type.Optional(CreditsLowAtSchema),
  },
  {
    additionalProperties: false,
    description:
      'Any of `metadata`, `ratelimits`, `roles` and `credits_low_at` (checked against the pool as at creation) ' +
      '(`null` clears); fields left out stay as they are. `external_id` never ' +
      'changes, and the credit pool changes through its own operation: both are refused (422). Unknown fields ' +
      'are refused (`extra_forbidden`).',
  },
)

/** An identity: one customer of the host, whose keys share its limits, its pool and its metadata. */
export const IdentitySchema = Type.Object({
  id: Type.String({ description: "The identity's id: what its operations and a key's `identity_id` take." }),
  project_id: Type.String(),
  external_id: Type.String({ description: "The host's own id for its customer." }),
  metadata,
  ratelimits: Type.Array(RateLimitSchema),
  remaining: Type.Union([Type.Integer({ minimum: 0 }), Type.Null()], {
    description: 'The credits left in the pool; `null` for no pool.',
  }),
  refill,
  credits_low_at: Type.Optional(CreditsLowAtSchema),
  roles: IdentityRolesSchema,
  created_at: timestamp('When the identity was created.'),
  updated_at: timestamp('When it last changed.'),
})

/** A page of a project's identities, newest first. */
export const IdentityListSchema = Type.Object({
  identities: Type.Array(IdentitySchema),
  next_cursor: nextCursor,
})

/** The answer to deleting an identity. */
export const DeletedIdentitySchema = Type.Object({
  id: Type.String(),
  deleted: Type.Literal(true),
  revoked_keys: Type.Array(Type.String(), {
    description: 'The ids of the keys the deletion revoked (with `revoke_keys=true`); empty otherwise.',
  }),
})

/** A project. */
export const ProjectSchema = Type.Object({
  id: Type.String(),
  name: Type.String(),
  developer_id: Type.String(),
  created_at: timestamp('When the project was created.'),
})

/** A page of the calling developer's projects, newest first. */
export const ProjectListSchema = Type.Object({ projects: Type.Array(ProjectSchema), next_cursor: nextCursor })

/** The answer to creating a project: the project and its default API key (named `default`). */
export const CreatedProjectSchema = Type.Object({ project: ProjectSchema, api_key: CreatedApiKeySchema })

/** Who made a change in the audit log. */
export const AuditActorSchema = Type.Object(
  {
    type: Type.Union([
      Type.Literal('developer'),
      Type.Literal('operator'),
      Type.Literal('secret_scanning'),
      Type.Literal('system'),
    ]),
    developer_id: Type.Optional(Type.String({ description: 'The developer (type `developer`).' })),
    key_prefix: Type.Optional(
      Type.String({ description: 'The first 8 characters of the key they used (type `developer`).' }),
    ),
    name: Type.Optional(Type.String({ description: "The operator's name, when the CLI was given one." })),
  },
  {
    description: 'A developer (by their key), the CLI operator, the secret-scanning endpoint, or the system.',
  },
)

/** One row of the audit log. */
export const AuditEntrySchema = Type.Object({
  seq: Type.Integer({ minimum: 1, description: "The row's place in the log: 1, 2, 3, ... with no gap." }),
  at: timestamp('When the change was made.'),
  action: Type.String({
    description: 'What happened, e.g. `key.revoked`, `project.created`, `console.signed_in`.',
  }),
  actor: AuditActorSchema,
  client_address: Type.Union([Type.String(), Type.Null()]),
  request_id: Type.Union([Type.String(), Type.Null()]),
  developer_id: Type.Union([Type.String(), Type.Null()]),
  project_id: Type.Union([Type.String(), Type.Null()]),
  target: Type.Object({
    type: Type.Union([
      Type.Literal('key'),
      Type.Literal('project'),
      Type.Literal('developer'),
      Type.Literal('identity'),
      Type.Literal('role'),
      Type.Literal('webhook_endpoint'),
    ]),
    id: Type.String(),
  }),
  before: Type.Union([Type.Object({}, { additionalProperties: true }), Type.Null()], {
    description: 'The changed fields before the change (a key by its 8-character prefix, never the key).',
  }),
  after: Type.Union([Type.Object({}, { additionalProperties: true }), Type.Null()], {
    description: 'The changed fields after the change.',
  }),
  previous_hash: Type.String({ description: 'The hash of the row before: the chain.' }),
  hash: Type.String({
    description:
      'SHA-256 (hex) of the canonical JSON of this row without `hash`: what `keyward audit verify` checks.',
  }),
})

/** A page of the calling developer's audit log, newest first. */
export const AuditLogSchema = Type.Object({ entries: Type.Array(AuditEntrySchema), next_cursor: nextCursor })

/** The answer to a deletion. */
export const DeletedSchema = Type.Object({ id: Type.String(), deleted: Type.Literal(true) })

/** A short-lived bearer token for one project. */
export const AccessTokenSchema = Type.Object({
  access_token: Type.String({ description: 'Send it as `Authorization: Bearer <access_token>`.' }),
  token_type: Type.Literal('bearer'),
  expires_in: Type.Integer({ minimum: 1, description: 'Lifetime in seconds.' }),
})

/** The body of a generation: any JSON object, kept as sent. */
export const GenerationBodySchema = Type.Object({}, { additionalProperties: true })

/** A generation. */
export const GenerationSchema = Type.Object({
  id: Type.String({ format: 'uuid' }),
  project_id: Type.String(),
  created_at: timestamp('When the generation was created.'),
})

/** The answer of `GET /healthz` when the server and its store are up. */
export const HealthSchema = Type.Object({
  status: Type.Literal('ok'),
  throttle: Type.Optional(
    Type.Literal('degraded', {
      description:
        "Present while the throttle's shared counters do not answer: keys are still checked, failed verifications are not counted.",
    }),
  ),
})

/** One match of a secret-scanning alert, in GitHub's partner format. */
export const SecretScanningAlertSchema = Type.Object({
  token: Type.String({ description: 'The string that matched the key format.' }),
  type: Type.String({ description: 'The token type the sender matched.' }),
  url: Type.String({ description: 'Where the match was found.' }),
  source: Type.String({ description: 'What kind of place that is (content, commit, npm, ...).' }),
})

/** The answer to a secret-scanning alert: one verdict per match. */
export const SecretScanningFeedbackSchema = Type.Object({
  token_hash: Type.Optional(Type.String({ description: 'SHA-256 of the token, hex.' })),
  token_raw: Type.Optional(Type.String()),
  token_type: Type.String(),
  label: Type.Union([Type.Literal('true_positive'), Type.Literal('false_positive')]),
})

/**
 * The refusals the verification service answers as a verdict (`valid: false`, `code`): those of
 * the guard of an API key, with its error type. Any other failure (a store outage) is an error
 * response, as everywhere.
 */
export const VERIFY_CODES = [
  ErrorType.keyMissing,
  ErrorType.keyMalformed,
  ErrorType.keyLegacyPrefix,
  ErrorType.keyInvalid,
  ErrorType.keyWrongType,
  ErrorType.projectMismatch,
  ErrorType.ipNotAllowed,
  ErrorType.permissionDenied,
  ErrorType.rateLimited,
  ErrorType.usageExceeded,
] as const satisfies readonly ErrorType[]

const queryGroup = (op: 'and' | 'or', meaning: string) =>
  Type.Object(
    { [op]: Type.Array(Type.Unknown(), { minItems: 1, description: `Queries, ${meaning}.` }) },
    { additionalProperties: false },
  )

/**
 * A permission query: a string in the query language (`reports:read and (billing:read or admin)`:
 * names, `and`, `or`, parentheses, `and` binding tighter), or `{ "and": [...] }` / `{ "or": [...] }`
 * of queries. At most 8 levels deep (each object and each pair of parentheses is one), 1000
 * characters per string, declared permissions only; wildcards are granted, never required.
 */
export const PermissionQuerySchema = Type.Union(
  [
    Type.String({ description: `At most ${MAX_QUERY_LENGTH} characters.` }),
    queryGroup('and', 'every one of which the key must satisfy'),
    queryGroup('or', 'at least one of which the key must satisfy'),
  ],
  {
    description:
      'A permission query: a string such as `reports:read and (billing:read or admin)` (names, `and`, `or`, ' +
      'parentheses; `and` binds tighter than `or`), or `{"and": [...]}` / `{"or": [...]}` of queries, at most 8 ' +
      'levels deep, 1000 characters per string, declared permissions only. Wildcards (`reports:*`, `*`) are granted to keys, never required.',
  },
)

/** The body of `POST /api/v1/keys/verify`. */
export const VerifyKeyBodySchema = Type.Object(
  {
    key: Type.String({ description: 'The API key to verify, as the client presented it.' }),
    project_id: Type.Optional(
      Type.String({
        minLength: 1,
        description: "The key must be one of this project's (`project_mismatch` otherwise). Default: any.",
      }),
    ),
    permissions: Type.Optional(
      Type.Union(
        [
          Type.Array(Type.String({ pattern: PERMISSION_PATTERN.source }), {
            maxItems: MAX_PERMISSIONS,
            description: 'Permissions the key must all carry.',
          }),
          PermissionQuerySchema,
        ],
        {
          description:
            'What the key must carry (`permission_denied` otherwise), among the permissions the server declares: ' +
            'a list (every one), or a permission query as a guard takes it.',
        },
      ),
    ),
    cost: Type.Optional(
      Type.Integer({
        minimum: 0,
        maximum: 1000,
        description:
          "Credits this request spends of a key that has credits, as a route's `cost` does: 0 to 1000, default 1. " +
          'A key without enough is refused (`usage_exceeded`); a key without credits spends nothing.',
      }),
    ),
    ip: Type.Optional(
      Type.String({
        description:
          "The address of the client that presented the key, checked against the key's IP allowlist and used " +
          'for nothing else. Without it, a key with an allowlist is refused (`ip_not_allowed`). Failed ' +
          'verifications count against the caller (its own address and its credential), never against `ip`.',
      }),
    ),
  },
  { additionalProperties: false, description: 'Unknown fields are refused (`extra_forbidden`).' },
)

/** The answer of `POST /api/v1/keys/verify`: a verdict, with what a valid key carries. */
export const VerifyKeyResultSchema = Type.Object({
  valid: Type.Boolean({ description: 'Whether the key passed every check.' }),
  code: Type.Union([Type.Unsafe<ErrorType>({ type: 'string', enum: [...VERIFY_CODES] }), Type.Null()], {
    description:
      'Why the key was refused: the error type the guard of an API key answers, e.g. `key_invalid`; `null` when valid.',
  }),
  key_id: Type.Union([Type.String(), Type.Null()], {
    description: "The key record's id; `null` when refused.",
  }),
  owner: Type.Union(
    [
      Type.Object({ type: Type.Literal('project'), id: Type.String({ description: 'The project id.' }) }),
      Type.Null(),
    ],
    { description: 'Whose key it is; `null` when refused.' },
  ),
  permissions,
  metadata,
  identity: Type.Union(
    [
      Type.Object({
        id: Type.String({ description: "The identity's id." }),
        external_id: Type.String({ description: "The host's own id for its customer." }),
        metadata,
      }),
      Type.Null(),
    ],
    { description: 'The identity the key belongs to; `null` for none, or when refused.' },
  ),
  remaining: Type.Union([Type.Integer({ minimum: 0 }), Type.Null()], {
    description:
      "The key's credits left after this request (what this process holds of them, as `X-Credits-Remaining` tells; for a key that spends from its identity's pool too, the lower of the two); `null` for a key without credits or pool, or a cost of 0.",
  }),
  expires_at: Type.Union([timestamp('When the key stops working.'), Type.Null()], {
    description: 'When the key stops working; `null` for never, or when refused.',
  }),
  ratelimit: Type.Union(
    [
      Type.Object({
        limit: Type.Integer({ minimum: 1, description: 'Requests per window.' }),
        window_seconds: Type.Integer({ minimum: 1 }),
        remaining: Type.Integer({ minimum: 0, description: 'Requests left in this window.' }),
        reset_seconds: Type.Integer({ minimum: 1, description: 'Seconds until the window ends.' }),
      }),
      Type.Null(),
    ],
    {
      description: "The key's own rate limit after this request took from it; `null` for a key without one.",
    },
  ),
})

/** An error type code, limited to `types` (by default every one). */
export const errorTypeSchema = (types: readonly ErrorType[] = Object.keys(ERROR_STATUS) as ErrorType[]) =>
  Type.Unsafe<ErrorType>({ type: 'string', enum: [...types] })

/** One element of an error body, with `type` limited to `types`. */
export const errorDetailSchema = (types?: readonly ErrorType[]) =>
  Type.Object({
    loc: Type.Array(Type.String(), {
      description: 'Where the faulty input is, e.g. `["header", "x-api-key"]`.',
    }),
    msg: Type.String({ description: 'For humans; never more of a key than its first 8 characters.' }),
    type: errorTypeSchema(types),
  })

/** The body of every error response: `{"detail": [{"loc", "msg", "type"}]}`. */
export const ErrorBodySchema = Type.Object({ detail: Type.Array(errorDetailSchema(), { minItems: 1 }) })

/** The counts of an owner's keys, per bucket, key and outcome (`GET .../usage`). */
export const UsageSchema = Type.Object({
  granularity: Type.Union(USAGE_GRANULARITIES.map((g) => Type.Literal(g))),
  from: timestamp('The start of the range, as asked (its bucket is the first).'),
  to: timestamp('The end of the range, exclusive.'),
  usage: Type.Array(
    Type.Object({
      start: timestamp('The start of the bucket, in UTC.'),
      key_id: Type.String(),
      outcome: Type.Union(
        USAGE_OUTCOMES.map((o) => Type.Literal(o)),
        {
          description:
            '`accepted`, or the refusal of the key: `inactive`, `expired`, `wrong_type`, `wrong_project`, `not_project_owner`, `project_not_found`, `ip_not_allowed`, `permission_denied`, `rate_limited`, `usage_exceeded`.',
        },
      ),
      count: Type.Integer(),
    }),
    { description: 'Oldest first; buckets, keys and outcomes without counts are left out.' },
  ),
})

/**
 * Every named schema of the HTTP API, as the document's `components.schemas` holds it: JSON
 * Schema objects, usable with any JSON Schema validator.
 *
 * @example
 * ```ts
 * import { Value } from '@sinclair/typebox/value'
 * Value.Check(API_SCHEMAS.CreatedDeveloperKey, await response.json()) // true
 * ```
 */
export const API_SCHEMAS = {
  Name: NameSchema,
  CreateKeyBody: CreateKeyBodySchema,
  CreateApiKeyBody: CreateApiKeyBodySchema,
  UpdateApiKeyBody: UpdateApiKeyBodySchema,
  ChangeCreditsBody: ChangeCreditsBodySchema,
  CreateIdentityBody: CreateIdentityBodySchema,
  UpdateIdentityBody: UpdateIdentityBodySchema,
  RateLimit: RateLimitSchema,
  PermissionQuery: PermissionQuerySchema,
  CreditRefill: CreditRefillSchema,
  CreateProjectBody: CreateProjectBodySchema,
  RollKeyBody: RollKeyBodySchema,
  NoFieldsBody: NoFieldsBodySchema,
  SetKeyExpiryBody: SetKeyExpiryBodySchema,
  DeveloperKey: DeveloperKeySchema,
  ApiKey: ApiKeySchema,
  CreatedDeveloperKey: CreatedDeveloperKeySchema,
  CreatedApiKey: CreatedApiKeySchema,
  RolledDeveloperKey: RolledDeveloperKeySchema,
  RolledApiKey: RolledApiKeySchema,
  DeveloperKeyList: DeveloperKeyListSchema,
  ApiKeyList: ApiKeyListSchema,
  Identity: IdentitySchema,
  IdentityList: IdentityListSchema,
  DeletedIdentity: DeletedIdentitySchema,
  Project: ProjectSchema,
  ProjectList: ProjectListSchema,
  CreatedProject: CreatedProjectSchema,
  Deleted: DeletedSchema,
  AuditEntry: AuditEntrySchema,
  AuditLog: AuditLogSchema,
  AccessToken: AccessTokenSchema,
  GenerationBody: GenerationBodySchema,
  Generation: GenerationSchema,
  Health: HealthSchema,
  SecretScanningAlert: SecretScanningAlertSchema,
  SecretScanningFeedback: SecretScanningFeedbackSchema,
  VerifyKeyBody: VerifyKeyBodySchema,
  VerifyKeyResult: VerifyKeyResultSchema,
  Usage: UsageSchema,
  ErrorBody: ErrorBodySchema,
  ...ROLE_SCHEMAS,
  ...WEBHOOK_SCHEMAS,
} as const satisfies Record<string, TSchema>

/**
 * The name of a schema in `components.schemas`.
 *
 * @example
 * ```ts
 * const name: ApiSchemaName = 'CreatedApiKey'
 * ```
 */
export type ApiSchemaName = keyof typeof API_SCHEMAS

/**
 * The JSON value a named schema describes.
 *
 * @example
 * ```ts
 * const listed: ApiValue<'ApiKeyList'> = await response.json()
 * ```
 */
export type ApiValue<N extends ApiSchemaName> = Static<(typeof API_SCHEMAS)[N]>
