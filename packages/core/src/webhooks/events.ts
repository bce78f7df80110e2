import type { AuditAction, AuditEntry, AuditRecord, AuditValues } from '../audit/types.js'
import type { WebhookEndpointRecord, WebhookEvent, WebhookEventType } from './types.js'

// The audit actions that are events, and the event each one is.
const EVENT_OF: Partial<Record<AuditAction, WebhookEventType>> = {
  'key.issued': 'key.created',
  'key.revoked': 'key.revoked',
  'key.revoked_leaked': 'key.leaked',
  'key.rolled': 'key.rolled',
  'webhook_endpoint.disabled': 'endpoint.disabled',
}

// The fields of a row an event carries (ids, prefixes, names, figures), never a key or a hash.
const KEY_FIELDS = ['key_prefix', 'name', 'expires_at', 'replaced_by', 'revoked_reason', 'rolled_from']
const LEAK_FIELDS = ['leak_url', 'leak_source']
const ENDPOINT_FIELDS = ['url', 'failing_since']

const picked = (values: AuditValues, fields: readonly string[]) =>
  Object.fromEntries(
    fields.filter((field) => values[field] !== undefined).map((field) => [field, values[field]]),
  )

/**
 * The webhook events of audit rows, as a store writes them into its outbox in the rows'
 * transaction: one per row whose action is an event (`key.issued` is `key.created`,
 * `key.revoked_leaked` is `key.leaked`, `webhook_endpoint.disabled` is `endpoint.disabled`), for
 * rows of a developer. Its id (`msg_` and 32 hex digits of the row's hash) is the delivery's
 * `webhook-id`: the same row is the same event.
 *
 * @example
 * ```ts
 * const records = await chainAuditEntries(head, entries)
 * const events = webhookEventsOf(records) // written with the rows, in their transaction
 * ```
 */
export function webhookEventsOf(records: readonly AuditRecord[]): WebhookEvent[] {
  return records.flatMap((record) => {
    const type = EVENT_OF[record.action]
    if (type === undefined || record.developerId === null) return []
    const values = { ...record.before, ...record.after, ...record.subject }
    const data =
      record.targetType === 'key'
        ? {
            key_id: record.targetId,
            developer_id: record.developerId,
            project_id: record.projectId,
            ...picked(values, type === 'key.leaked' ? [...KEY_FIELDS, ...LEAK_FIELDS] : KEY_FIELDS),
          }
        : {
            endpoint_id: record.targetId,
            developer_id: record.developerId,
            ...picked(values, ENDPOINT_FIELDS),
          }
    return [
      {
        id: `msg_${record.hash.slice(0, 32)}`,
        type,
        developerId: record.developerId,
        projectId: record.projectId,
        createdAt: record.at,
        data: { ...data, actor: record.actor.type },
      },
    ]
  })
}

/**
 * The body of a delivery of `event`, as Standard Webhooks shapes it: `type`, `timestamp` (of the
 * event) and `data`.
 *
 * @example
 * ```ts
 * const body = JSON.stringify(webhookPayload(event)) // {"type":"key.revoked","timestamp":"...","data":{...}}
 * ```
 */
export function webhookPayload(event: WebhookEvent) {
  return { type: event.type, timestamp: event.createdAt.toISOString(), data: event.data }
}

/**
 * The audit row of an endpoint disabled at `at` after failing too long
 * (`webhook_endpoint.disabled`, by the system), whose event (`endpoint.disabled`) goes to the
 * developer's other endpoints: what a dispatcher gives `finishDelivery`.
 *
 * @example
 * ```ts
 * await store.webhooks.finishDelivery(delivery, attempt, { state: 'failed' }, endpointDisabledRows(new Date()))
 * ```
 */
export const endpointDisabledRows =
  (at: Date) =>
  (endpoint: WebhookEndpointRecord): AuditEntry[] => [
    {
      at,
      action: 'webhook_endpoint.disabled',
      actor: { type: 'system' },
      clientAddress: null,
      requestId: null,
      developerId: endpoint.developerId,
      projectId: null,
      targetType: 'webhook_endpoint',
      targetId: endpoint.id,
      before: null,
      after: { url: endpoint.url, failing_since: endpoint.failingSince?.toISOString() ?? null },
    },
  ]
