// Endpoints and attempts as the API answers them, and as the CLI prints them with --json.
import type { WebhookAttemptRecord, WebhookEndpointRecord } from './types.js'

const iso = (date: Date | null) => date?.toISOString() ?? null

/**
 * A webhook endpoint as JSON, never with its secrets:
 * `{"id","url","description","project_ids","event_types","previous_secret_expires_at","failing_since","disabled_at","created_at","updated_at"}`.
 *
 * @example
 * ```ts
 * webhookEndpointToJson(await endpoints.get('dev_1', id)) // { id, url: 'https://...', ... }
 * ```
 */
export const webhookEndpointToJson = (endpoint: WebhookEndpointRecord) => ({
  id: endpoint.id,
  url: endpoint.url,
  description: endpoint.description,
  project_ids: endpoint.projectIds,
  event_types: endpoint.eventTypes,
  previous_secret_expires_at: iso(endpoint.previousSecretExpiresAt),
  failing_since: iso(endpoint.failingSince),
  disabled_at: iso(endpoint.disabledAt),
  created_at: endpoint.createdAt.toISOString(),
  updated_at: endpoint.updatedAt.toISOString(),
})

/**
 * A webhook endpoint as JSON with its signing secret: the answer to a creation or a roll, the
 * one time the secret is shown.
 *
 * @example
 * ```ts
 * webhookEndpointWithSecretToJson(created).secret // 'whsec_...'
 * ```
 */
export const webhookEndpointWithSecretToJson = (endpoint: WebhookEndpointRecord) => ({
  ...webhookEndpointToJson(endpoint),
  secret: endpoint.secret,
})

/**
 * An attempt of the delivery log as JSON:
 * `{"delivery_id","event_id","event_type","at","status","duration_ms","response"}`.
 *
 * @example
 * ```ts
 * (await endpoints.attempts('dev_1', id)).map(webhookAttemptToJson)
 * ```
 */
export const webhookAttemptToJson = (attempt: WebhookAttemptRecord) => ({
  delivery_id: attempt.deliveryId,
  event_id: attempt.eventId,
  event_type: attempt.eventType,
  at: attempt.at.toISOString(),
  status: attempt.status,
  duration_ms: attempt.durationMs,
  response: attempt.response,
})
