import { KeywardError } from '../errors/error.js'
import { ErrorType } from '../errors/types.js'
import { checkBody } from '../openapi/validate.js'
import {
  CreateWebhookEndpointBodySchema,
  RedeliverWebhookBodySchema,
  RollWebhookSecretBodySchema,
  UpdateWebhookEndpointBodySchema,
} from '../openapi/webhook-schemas.js'
import type { Keyward } from '../service/keyward.js'
import type { DeveloperAuth } from '../service/requirements.js'
import { WebhookEndpoints, type WebhookEndpointsOptions } from '../webhooks/endpoints.js'
import {
  webhookAttemptToJson as attemptToJson,
  webhookEndpointToJson as endpointToJson,
  webhookEndpointWithSecretToJson as withSecret,
} from '../webhooks/json.js'
import type { WebhookRedelivery } from '../webhooks/types.js'
import { auditContext } from './audit-context.js'
import { guardedRoute, respond } from './guarded-route.js'
import type { Guard, KeyRoute, KeywardRequest } from './types.js'

const BASE = '/api/v1/webhooks/endpoints'

// One event (`event_id`) or a time range (`from` and `to`), never both.
function redeliveryOf(given: { event_id?: string; from?: string; to?: string }): WebhookRedelivery {
  const range = given.from !== undefined || given.to !== undefined
  if ((given.event_id !== undefined) === range) {
    throw new KeywardError(ErrorType.valueError, 'Give either event_id, or from and to.', ['body'])
  }
  if (given.event_id !== undefined) return { eventId: given.event_id }
  for (const field of ['from', 'to'] as const) {
    if (given[field] === undefined) {
      throw new KeywardError(ErrorType.missing, 'Field required with a time range.', ['body', field])
    }
  }
  return { from: new Date(given.from!), to: new Date(given.to!) }
}

/**
 * @internal The webhook endpoints under `/api/v1/webhooks/endpoints`, guarded by `developer`
 * (the developer key of their owner): register, list, read, change, delete, roll the secret, read
 * the delivery log, send events again and send a test event. An endpoint of another developer is
 * 404, as an unknown one. Each change appends its audit row, by the developer.
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
      const created = await endpoints.create(
        auth.developerId,
        {
          url: given.url,
          description: given.description ?? null,
          projectIds: given.project_ids ?? null,
          eventTypes: given.event_types ?? null,
        },
        auditContext(keyward, request, auth),
      )
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
      const updated = await endpoints.update(
        auth.developerId,
        id(request),
        {
          ...(given.url !== undefined ? { url: given.url } : {}),
          ...(given.description !== undefined ? { description: given.description } : {}),
          ...(given.project_ids !== undefined ? { projectIds: given.project_ids } : {}),
          ...(given.event_types !== undefined ? { eventTypes: given.event_types } : {}),
          ...(given.disabled === false ? { disabled: false as const } : {}),
        },
        auditContext(keyward, request, auth),
      )
      return respond(200, endpointToJson(updated))
    }),
    guardedRoute('DELETE', `${BASE}/:endpoint_id`, developer, async (request, auth) => {
      await endpoints.delete(auth.developerId, id(request), auditContext(keyward, request, auth))
      return respond(200, { id: id(request), deleted: true })
    }),
    guardedRoute('POST', `${BASE}/:endpoint_id/roll-secret`, developer, async (request, auth) => {
      const given = checkBody(RollWebhookSecretBodySchema, await body(request))
      const context = auditContext(keyward, request, auth)
      return respond(
        200,
        withSecret(await endpoints.rollSecret(auth.developerId, id(request), given.grace_seconds, context)),
      )
    }),
    guardedRoute('POST', `${BASE}/:endpoint_id/redeliver`, developer, async (request, auth) => {
      const which = redeliveryOf(checkBody(RedeliverWebhookBodySchema, await body(request)))
      return respond(202, { redelivered: await endpoints.redeliver(auth.developerId, id(request), which) })
    }),
    guardedRoute('POST', `${BASE}/:endpoint_id/test`, developer, async (request, auth) => {
      const event = await endpoints.sendTest(auth.developerId, id(request))
      return respond(202, { event_id: event.id, type: event.type })
    }),
    guardedRoute('GET', `${BASE}/:endpoint_id/attempts`, developer, async (request, auth) =>
      respond(200, {
        attempts: (await endpoints.attempts(auth.developerId, id(request))).map(attemptToJson),
      }),
    ),
  ]
}
