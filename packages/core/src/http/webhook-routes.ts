import { checkBody } from '../openapi/validate.js'
import {
  CreateWebhookEndpointBodySchema,
  RollWebhookSecretBodySchema,
  UpdateWebhookEndpointBodySchema,
} from '../openapi/webhook-schemas.js'
import type { Keyward } from '../service/keyward.js'
import type { DeveloperAuth } from '../service/requirements.js'
import { WebhookEndpoints, type WebhookEndpointsOptions } from '../webhooks/endpoints.js'
import type { WebhookAttemptRecord, WebhookEndpointRecord } from '../webhooks/types.js'
import { guardedRoute, respond } from './guarded-route.js'
import type { Guard, KeyRoute, KeywardRequest } from './types.js'

const BASE = '/api/v1/webhooks/endpoints'

const iso = (date: Date | null) => date?.toISOString() ?? null

/** @internal An endpoint as the API shows it: never its secrets. */
export const endpointToJson = (endpoint: WebhookEndpointRecord) => ({
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

// The answer to a creation or a roll: the one time the secret is shown.
const withSecret = (endpoint: WebhookEndpointRecord) => ({
  ...endpointToJson(endpoint),
  secret: endpoint.secret,
})

const attemptToJson = (attempt: WebhookAttemptRecord) => ({
  delivery_id: attempt.deliveryId,
  event_id: attempt.eventId,
  event_type: attempt.eventType,
  at: attempt.at.toISOString(),
  status: attempt.status,
  duration_ms: attempt.durationMs,
  response: attempt.response,
})

/**
 * @internal The webhook endpoints under `/api/v1/webhooks/endpoints`, guarded by `developer`
 * (the developer key of their owner): register, list, read, change, delete, roll the secret and
 * read the delivery log. An endpoint of another developer is 404, as an unknown one.
 */
export function webhookRoutes(
  keyward: Keyward,
  developer: Guard<DeveloperAuth>,
  body: (request: KeywardRequest) => Promise<Readonly<Record<string, unknown>> | undefined>,
  options: WebhookEndpointsOptions,
): KeyRoute[] {
  const endpoints = new WebhookEndpoints(keyward.store.webhooks!, options)
  const id = (request: KeywardRequest) => request.params.endpoint_id ?? ''
  return [
    guardedRoute('POST', BASE, developer, async (request, auth) => {
      const given = checkBody(CreateWebhookEndpointBodySchema, await body(request))
      const created = await endpoints.create(auth.developerId, {
        url: given.url,
        description: given.description ?? null,
        projectIds: given.project_ids ?? null,
        eventTypes: given.event_types ?? null,
      })
      return respond(201, withSecret(created))
    }),
    guardedRoute('GET', BASE, developer, async (_request, auth) =>
      respond(200, { endpoints: (await endpoints.list(auth.developerId)).map(endpointToJson) }),
    ),
    guardedRoute('GET', `${BASE}/:endpoint_id`, developer, async (request, auth) =>
      respond(200, endpointToJson(await endpoints.get(auth.developerId, id(request)))),
    ),
    guardedRoute('PATCH', `${BASE}/:endpoint_id`, developer, async (request, auth) => {
      const given = checkBody(UpdateWebhookEndpointBodySchema, await body(request))
      const updated = await endpoints.update(auth.developerId, id(request), {
        ...(given.url !== undefined ? { url: given.url } : {}),
        ...(given.description !== undefined ? { description: given.description } : {}),
        ...(given.project_ids !== undefined ? { projectIds: given.project_ids } : {}),
        ...(given.event_types !== undefined ? { eventTypes: given.event_types } : {}),
        ...(given.disabled === false ? { disabled: false as const } : {}),
      })
      return respond(200, endpointToJson(updated))
    }),
    guardedRoute('DELETE', `${BASE}/:endpoint_id`, developer, async (request, auth) => {
      await endpoints.delete(auth.developerId, id(request))
      return respond(200, { id: id(request), deleted: true })
    }),
    guardedRoute('POST', `${BASE}/:endpoint_id/roll-secret`, developer, async (request, auth) => {
      const given = checkBody(RollWebhookSecretBodySchema, await body(request))
      return respond(
        200,
        withSecret(await endpoints.rollSecret(auth.developerId, id(request), given.grace_seconds)),
      )
    }),
    guardedRoute('GET', `${BASE}/:endpoint_id/attempts`, developer, async (request, auth) =>
      respond(200, {
        attempts: (await endpoints.attempts(auth.developerId, id(request))).map(attemptToJson),
      }),
    ),
  ]
}
