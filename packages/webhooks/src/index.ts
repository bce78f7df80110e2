/**
 * Keyward's webhook dispatcher for Node: delivers a store's outbox (`store.webhooks`) at least
 * once, signed per Standard Webhooks, refusing internal addresses at registration
 * ({@link checkWebhookAddress}) and at each delivery.
 *
 * @packageDocumentation
 */
export {
  ALWAYS_REFUSED,
  checkWebhookAddress,
  guardedLookup,
  refusalOf,
  type WebhookAddressOptions,
  type WebhookLookup,
} from './address.js'
export {
  createWebhookDispatcher,
  signWebhook,
  type WebhookDispatcher,
  type WebhookDispatcherEvent,
  type WebhookDispatcherOptions,
} from './dispatcher.js'
export {
  DELIVERY_TIMEOUT_MS,
  LOGGED_ANSWER_BYTES,
  MAX_ANSWER_BYTES,
  type PostWebhookOptions,
  postWebhook,
  type WebhookAnswer,
} from './send.js'
