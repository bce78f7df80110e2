import { Type } from '@sinclair/typebox'
import { MAX_WEBHOOK_ENDPOINTS, WEBHOOK_EVENT_TYPES } from '../webhooks/types.js'

const timestamp = (description: string) => Type.String({ format: 'date-time', description })
const eventType = Type.Union(
  WEBHOOK_EVENT_TYPES.map((type) => Type.Literal(type)),
  { description: 'A webhook event type.' },
)
const url = Type.String({
  minLength: 1,
  maxLength: 2048,
  description:
    'Where deliveries are POSTed: `https://` (the operator may allow `http://` for development); a host that ' +
    'resolves to a loopback, private, link-local or metadata address is refused (422), here and at each delivery.',
})
const description = Type.Union([Type.String({ maxLength: 500 }), Type.Null()])
const projectIds = Type.Union(
  [Type.Array(Type.String({ minLength: 1, maxLength: 255 }), { maxItems: 100 }), Type.Null()],
  {
    description:
      "Only the events of these projects; `null` (default): every project's, and the developer's own keys'.",
  },
)
const eventTypes = Type.Union([Type.Array(eventType, { minItems: 1 }), Type.Null()], {
  description: 'Only events of these types; `null` (default): every type.',
})

/** The body of `POST /api/v1/webhooks/endpoints`. */
export const CreateWebhookEndpointBodySchema = Type.Object(
  {
    url,
    description: Type.Optional(description),
    project_ids: Type.Optional(projectIds),
    event_types: Type.Optional(eventTypes),
  },
  {
    additionalProperties: false,
    description: `A new endpoint: at most ${MAX_WEBHOOK_ENDPOINTS} per developer.`,
  },
)

/** The body of `PATCH /api/v1/webhooks/endpoints/{endpoint_id}`. */
export const UpdateWebhookEndpointBodySchema = Type.Object(
  {
    url: Type.Optional(url),
    description: Type.Optional(description),
    project_ids: Type.Optional(projectIds),
    event_types: Type.Optional(eventTypes),
    disabled: Type.Optional(
      Type.Literal(false, {
        description: '`false` enables an endpoint disabled after failing, and forgets its failures.',
      }),
    ),
  },
  { additionalProperties: false, description: 'Fields left out stay as they are.' },
)

/** The body of `POST /api/v1/webhooks/endpoints/{endpoint_id}/roll-secret`. */
export const RollWebhookSecretBodySchema = Type.Object(
  {
    grace_seconds: Type.Optional(
      Type.Integer({
        minimum: 0,
        maximum: 7 * 86_400,
        description: 'How long the previous secret signs too, beside the new one (default 86400: one day).',
      }),
    ),
  },
  { additionalProperties: false },
)

/** The body of `POST /api/v1/webhooks/endpoints/{endpoint_id}/redeliver`: one event, or a time range. */
export const RedeliverWebhookBodySchema = Type.Object(
  {
    event_id: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 255,
        description: 'The event to send again (its `webhook-id`).',
      }),
    ),
    from: Type.Optional(timestamp('The events made from this time (inclusive).')),
    to: Type.Optional(timestamp('... to this time (exclusive): at most 30 days after `from`.')),
  },
  {
    additionalProperties: false,
    description:
      'Either `event_id`, or `from` and `to`: the events the endpoint takes made in that range (a test event only to the endpoint it was sent to).',
  },
)

/** The answer to a redelivery: how many deliveries are due again. */
export const WebhookRedeliveryResultSchema = Type.Object({
  redelivered: Type.Integer({
    minimum: 0,
    description: 'How many events are due to the endpoint again, sent through the outbox as any delivery.',
  }),
})

/** The answer to a test: the event sent. */
export const WebhookTestResultSchema = Type.Object({
  event_id: Type.String({ description: 'The `webhook-id` of the test delivery.' }),
  type: Type.Literal('webhook.test'),
})

const endpointFields = {
  id: Type.String({ format: 'uuid' }),
  url: Type.String(),
  description,
  project_ids: projectIds,
  event_types: eventTypes,
  previous_secret_expires_at: Type.Union([
    timestamp('Until when the previous secret signs too.'),
    Type.Null(),
  ]),
  failing_since: Type.Union([
    timestamp('Since when its deliveries fail, without a success since.'),
    Type.Null(),
  ]),
  disabled_at: Type.Union([timestamp('When it was disabled after 5 days of failures.'), Type.Null()]),
  created_at: timestamp('When it was registered.'),
  updated_at: timestamp('When it last changed.'),
}

/** A webhook endpoint, without its secret. */
export const WebhookEndpointSchema = Type.Object(endpointFields)

/** A webhook endpoint with its signing secret: the answer to its creation and to a roll, the only times it is shown. */
export const WebhookEndpointWithSecretSchema = Type.Object({
  ...endpointFields,
  secret: Type.String({
    pattern: '^whsec_',
    description: 'The signing secret (`whsec_` and base64), shown this once: keep it to verify deliveries.',
  }),
})

/** The calling developer's endpoints. */
export const WebhookEndpointListSchema = Type.Object({ endpoints: Type.Array(WebhookEndpointSchema) })

/** One attempt of a delivery, as the delivery log keeps it (30 days). */
export const WebhookAttemptSchema = Type.Object({
  delivery_id: Type.String(),
  event_id: Type.String({ description: 'The `webhook-id` of the delivery.' }),
  event_type: eventType,
  at: timestamp('When the attempt started.'),
  status: Type.Union([Type.Integer(), Type.Null()], {
    description:
      'The HTTP status answered; `null` when none was (refused address, timeout, connection error).',
  }),
  duration_ms: Type.Integer({ minimum: 0 }),
  response: Type.String({ description: 'The first 1 KB of the answer, or why there was none.' }),
})

/** An endpoint's last attempts, newest first. */
export const WebhookAttemptListSchema = Type.Object({ attempts: Type.Array(WebhookAttemptSchema) })

/** The body of every delivery (Standard Webhooks): its type, its time and its data. */
export const WebhookPayloadSchema = Type.Object({
  type: eventType,
  timestamp: timestamp('When the change that made the event was made.'),
  data: Type.Object(
    {
      key_id: Type.Optional(Type.String()),
      key_prefix: Type.Optional(
        Type.String({ description: "The key's first 8 characters: never the key or its hash." }),
      ),
      name: Type.Optional(Type.Union([Type.String(), Type.Null()])),
      developer_id: Type.String(),
      project_id: Type.Optional(Type.Union([Type.String(), Type.Null()])),
      expires_at: Type.Optional(
        Type.Union([Type.String(), Type.Null()], {
          description: "The key's expiry (`key.expiring`, `key.expired`: when it expires or expired).",
        }),
      ),
      days_before: Type.Optional(
        Type.Number({
          description:
            '`key.expiring`: the threshold reached, in days before the expiry (by default 7 or 1).',
        }),
      ),
      replaced_by: Type.Optional(Type.Union([Type.String(), Type.Null()])),
      revoked_reason: Type.Optional(Type.Union([Type.String(), Type.Null()])),
      rolled_from: Type.Optional(Type.String()),
      leak_url: Type.Optional(
        Type.String({ description: '`key.leaked`: where the secret-scanning alert found it.' }),
      ),
      leak_source: Type.Optional(Type.String()),
      identity_id: Type.Optional(
        Type.Union([Type.String(), Type.Null()], {
          description:
            "`ratelimit.exceeded`: the identity whose shared limit refused the key's requests; `credits.*`: the identity whose pool it is (or the key's identity).",
        }),
      ),
      holder: Type.Optional(
        Type.Union([Type.Literal('key'), Type.Literal('identity')], {
          description: "`credits.*`: whose credits: a key's own, or an identity's pool.",
        }),
      ),
      external_id: Type.Optional(
        Type.String({ description: "`credits.refilled` of a pool: the identity's external id." }),
      ),
      remaining: Type.Optional(
        Type.Integer({
          minimum: 0,
          description:
            '`credits.*`: the stored balance the lease or the refill left (credits leased to processes are spent).',
        }),
      ),
      credits_low_at: Type.Optional(
        Type.Union(
          [
            Type.Object({ remaining: Type.Integer({ minimum: 0 }) }),
            Type.Object({ percent: Type.Integer({ minimum: 1, maximum: 99 }) }),
          ],
          { description: '`credits.low`: the threshold as set.' },
        ),
      ),
      threshold: Type.Optional(
        Type.Integer({
          description:
            '`credits.low`: the threshold in credits (a percent of the refill amount, rounded down).',
        }),
      ),
      refill_amount: Type.Optional(
        Type.Union([Type.Integer(), Type.Null()], {
          description: "`credits.*`: the refill rule's amount, `null` without a rule.",
        }),
      ),
      period_start: Type.Optional(
        Type.String({
          description:
            '`credits.*`: the refill period the event belongs to (without a refill rule, the UTC day): at most one event of a kind each.',
        }),
      ),
      limit_name: Type.Optional(Type.String({ description: '`ratelimit.exceeded`: the rate limit spent.' })),
      limit: Type.Optional(Type.Integer({ description: '`ratelimit.exceeded`: its requests per window.' })),
      duration_ms: Type.Optional(Type.Integer({ description: "`ratelimit.exceeded`: its window's length." })),
      count: Type.Optional(
        Type.Integer({ description: '`ratelimit.exceeded`: the requests it refused in the minute.' }),
      ),
      window_start: Type.Optional(
        Type.String({ description: '`ratelimit.exceeded`: the minute counted, at most one event each.' }),
      ),
      endpoint_id: Type.Optional(Type.String({ description: '`endpoint.disabled`: the endpoint disabled.' })),
      url: Type.Optional(Type.String()),
      failing_since: Type.Optional(Type.Union([Type.String(), Type.Null()])),
      actor: Type.String({
        description: 'Who made the change: `developer`, `operator`, `secret_scanning` or `system`.',
      }),
    },
    { additionalProperties: true },
  ),
})

/** The webhook schemas of `components.schemas`. */
export const WEBHOOK_SCHEMAS = {
  CreateWebhookEndpointBody: CreateWebhookEndpointBodySchema,
  UpdateWebhookEndpointBody: UpdateWebhookEndpointBodySchema,
  RollWebhookSecretBody: RollWebhookSecretBodySchema,
  WebhookEndpoint: WebhookEndpointSchema,
  WebhookEndpointWithSecret: WebhookEndpointWithSecretSchema,
  WebhookEndpointList: WebhookEndpointListSchema,
  WebhookAttemptList: WebhookAttemptListSchema,
  RedeliverWebhookBody: RedeliverWebhookBodySchema,
  WebhookRedeliveryResult: WebhookRedeliveryResultSchema,
  WebhookTestResult: WebhookTestResultSchema,
  WebhookPayload: WebhookPayloadSchema,
}
