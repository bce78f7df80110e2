import type { ApiOperation } from './operations.js'

const ENDPOINTS = '/api/v1/webhooks/endpoints'
const BODY_ERRORS = [413, 415, 422]

/** @internal The webhook endpoints' operations, guarded by the developer's key. */
export const WEBHOOK_OPERATIONS: readonly ApiOperation[] = [
  {
    method: 'post',
    path: ENDPOINTS,
    operationId: 'createWebhookEndpoint',
    summary:
      'Register a webhook endpoint of the calling developer (at most 10), limited to some projects and event types; its signing secret is in this answer only.',
    tag: 'Webhooks',
    credential: 'developer',
    body: { schema: 'CreateWebhookEndpointBody', required: true },
    success: { status: 201, schema: 'WebhookEndpointWithSecret' },
    errors: [409, ...BODY_ERRORS],
    keyRoute: 'webhooks',
  },
  {
    method: 'get',
    path: ENDPOINTS,
    operationId: 'listWebhookEndpoints',
    summary: "The calling developer's webhook endpoints, oldest first, without their secrets.",
    tag: 'Webhooks',
    credential: 'developer',
    success: { status: 200, schema: 'WebhookEndpointList' },
    errors: [],
    keyRoute: 'webhooks',
  },
  {
    method: 'get',
    path: `${ENDPOINTS}/{endpoint_id}`,
    operationId: 'getWebhookEndpoint',
    summary: "One of the calling developer's webhook endpoints (404 for any other).",
    tag: 'Webhooks',
    credential: 'developer',
    success: { status: 200, schema: 'WebhookEndpoint' },
    errors: [404],
    keyRoute: 'webhooks',
  },
  {
    method: 'patch',
    path: `${ENDPOINTS}/{endpoint_id}`,
    operationId: 'updateWebhookEndpoint',
    summary:
      'Change a webhook endpoint: its URL, description and filters, or enable it again (`disabled: false`).',
    tag: 'Webhooks',
    credential: 'developer',
    body: { schema: 'UpdateWebhookEndpointBody', required: true },
    success: { status: 200, schema: 'WebhookEndpoint' },
    errors: [404, ...BODY_ERRORS],
    keyRoute: 'webhooks',
  },
  {
    method: 'delete',
    path: `${ENDPOINTS}/{endpoint_id}`,
    operationId: 'deleteWebhookEndpoint',
    summary: 'Delete a webhook endpoint and its pending deliveries.',
    tag: 'Webhooks',
    credential: 'developer',
    success: { status: 200, schema: 'Deleted' },
    errors: [404],
    keyRoute: 'webhooks',
  },
  {
    method: 'post',
    path: `${ENDPOINTS}/{endpoint_id}/roll-secret`,
    operationId: 'rollWebhookSecret',
    summary:
      'Give a webhook endpoint a new signing secret, shown in this answer only; the previous one signs too for `grace_seconds` (default one day).',
    tag: 'Webhooks',
    credential: 'developer',
    body: { schema: 'RollWebhookSecretBody', required: false },
    success: { status: 200, schema: 'WebhookEndpointWithSecret' },
    errors: [404, ...BODY_ERRORS],
    keyRoute: 'webhooks',
  },
  {
    method: 'get',
    path: `${ENDPOINTS}/{endpoint_id}/attempts`,
    operationId: 'listWebhookAttempts',
    summary: "A webhook endpoint's delivery log: its last 100 attempts, newest first, kept 30 days.",
    tag: 'Webhooks',
    credential: 'developer',
    success: { status: 200, schema: 'WebhookAttemptList' },
    errors: [404],
    keyRoute: 'webhooks',
  },
]
