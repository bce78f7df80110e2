import type { AuditEntry } from '../audit/types.js'
import type { KeyRecord } from '../store/types.js'
import type { RefilledCredits } from './credit-refills.js'

/**
 * What a webhook tells a developer's systems. Events of a write (`key.created`, `key.revoked`,
 * `key.leaked`, `key.rolled`, `endpoint.disabled`) are written in the write's transaction, from
 * its audit rows; events of time (`key.expiring`, `key.expired`, `credits.refilled`) by one
 * scheduler at a time; events of the hot path (`ratelimit.exceeded`, `credits.low`,
 * `credits.exhausted`) where a counter or a lease of credits is, never per request;
 * `webhook.test` is sent to one endpoint when its developer asks.
 */
export type WebhookEventType =
  | 'key.created'
  | 'key.revoked'
  | 'key.leaked'
  | 'key.rolled'
  | 'key.expiring'
  | 'key.expired'
  | 'ratelimit.exceeded'
  | 'credits.low'
  | 'credits.exhausted'
  | 'credits.refilled'
  | 'endpoint.disabled'
  | 'webhook.test'

/** Every {@link WebhookEventType}, for checks and documentation. */
export const WEBHOOK_EVENT_TYPES: readonly WebhookEventType[] = [
  'key.created',
  'key.revoked',
  'key.leaked',
  'key.rolled',
  'key.expiring',
  'key.expired',
  'ratelimit.exceeded',
  'credits.low',
  'credits.exhausted',
  'credits.refilled',
  'endpoint.disabled',
  'webhook.test',
]

/** The most endpoints a developer may register. */
export const MAX_WEBHOOK_ENDPOINTS = 10

/**
 * A developer's webhook endpoint as stored. `secret` (`whsec_...`) signs every delivery;
 * after a roll, `previousSecret` signs too until `previousSecretExpiresAt`.
 */
export interface WebhookEndpointRecord {
  readonly id: string
  readonly developerId: string
  readonly url: string
  readonly description: string | null
  /** Only events of these projects (`null`: every project's, and the developer's own). */
  readonly projectIds: readonly string[] | null
  /** Only events of these types (`null`: every type). */
  readonly eventTypes: readonly WebhookEventType[] | null
  readonly secret: string
  readonly previousSecret: string | null
  readonly previousSecretExpiresAt: Date | null
  /** When deliveries started failing without a success since (`null`: not failing). */
  readonly failingSince: Date | null
  /** When it was disabled (after failing too long), or `null`. */
  readonly disabledAt: Date | null
  readonly createdAt: Date
  readonly updatedAt: Date
}

/** A change of an endpoint: a field left `undefined` stays as it is. */
export interface WebhookEndpointChange {
  readonly url?: string
  readonly description?: string | null
  readonly projectIds?: readonly string[] | null
  readonly eventTypes?: readonly WebhookEventType[] | null
  /** `false` enables a disabled endpoint again (and forgets its failures). */
  readonly disabled?: false
}

/**
 * One event in the outbox, as a write puts it there. `id` is its `webhook-id` (`msg_...`), the
 * same on every attempt; `data` names keys by id and prefix, never by a key or a hash.
 */
export interface WebhookEvent {
  readonly id: string
  readonly type: WebhookEventType
  readonly developerId: string
  readonly projectId: string | null
  readonly createdAt: Date
  readonly data: { readonly [field: string]: unknown }
}

/** A delivery a dispatcher claimed: one event to one endpoint, with what signs it. */
export interface ClaimedDelivery {
  readonly id: string
  /** Attempts before this one. */
  readonly attempts: number
  /** When the first attempt was due (the event's fan-out): the retry window starts then. */
  readonly createdAt: Date
  readonly event: WebhookEvent
  readonly endpoint: Pick<WebhookEndpointRecord, 'id' | 'developerId' | 'url' | 'failingSince'> & {
    /** The secrets that sign it now: the current one, and the previous one in its grace window. */
    readonly secrets: readonly string[]
  }
}

/** What one attempt of a delivery got. */
export interface WebhookAttempt {
  readonly at: Date
  /** The answer's HTTP status, or `null` when there was none (refused, timed out, unreachable). */
  readonly status: number | null
  readonly durationMs: number
  /** The first 1 KB of the answer, or why there was none. */
  readonly response: string
}

/** What becomes of a delivery after an attempt. */
export type WebhookOutcome =
  | { readonly state: 'delivered' }
  /** Tried again at `retryAt`. */
  | { readonly state: 'retry'; readonly retryAt: Date }
  /** Given up: its retry window is over. */
  | { readonly state: 'failed' }

/** An attempt as the delivery log keeps it (30 days). */
export interface WebhookAttemptRecord extends WebhookAttempt {
  readonly deliveryId: string
  readonly eventId: string
  readonly eventType: WebhookEventType
  readonly endpointId: string
}

/**
 * The audit rows and events of an endpoint disabled after failing: the store calls it with
 * the endpoint as disabled and appends the rows (whose `endpoint.disabled` event goes to the
 * developer's other endpoints) in the same transaction.
 */
export type EndpointAuditWrite = (endpoint: WebhookEndpointRecord) => readonly AuditEntry[]

/**
 * The events a manual redelivery sends again to one endpoint: one event by its id, or those made
 * from `from` (inclusive) to `to` (exclusive) that the endpoint takes.
 */
export type WebhookRedelivery = { readonly eventId: string } | { readonly from: Date; readonly to: Date }

/** A key whose expiry the scheduler of expiry events looks at: active, not replaced by a roll. */
export type ExpiringKey = Pick<
  KeyRecord,
  'id' | 'keyPrefix' | 'name' | 'ownerType' | 'ownerId' | 'expiresAt'
> & { readonly expiresAt: Date }

/**
 * Where webhook endpoints, the outbox and the delivery log live (`store.webhooks` of a key store
 * that keeps them). The outbox itself is filled by the store's `appendAudit`: every audit row
 * that is an event (see `webhookEventsOf`) is an outbox row in the same transaction.
 *
 * @example
 * ```ts
 * const endpoints = await store.webhooks?.listEndpoints('dev_1')
 * ```
 */
export interface WebhookStore {
  /** Inserts an endpoint; throws `limit_exceeded` when the developer has `limit` already. */
  insertEndpoint(
    record: WebhookEndpointRecord,
    limit: number,
    audit?: EndpointAuditWrite,
  ): Promise<WebhookEndpointRecord>
  findEndpoint(id: string): Promise<WebhookEndpointRecord | null>
  /** A developer's endpoints, oldest first. */
  listEndpoints(developerId: string): Promise<WebhookEndpointRecord[]>
  /**
   * Changes what `change` holds; `null` when there is no such endpoint. Each write of an endpoint
   * appends the rows `audit` makes of the endpoint as written, in its transaction.
   */
  updateEndpoint(
    id: string,
    change: WebhookEndpointChange,
    now: Date,
    audit?: EndpointAuditWrite,
  ): Promise<WebhookEndpointRecord | null>
  /** Makes `secret` the signing secret; the old one signs too until `previousExpiresAt`. */
  rollEndpointSecret(
    id: string,
    secret: string,
    previousExpiresAt: Date,
    now: Date,
    audit?: EndpointAuditWrite,
  ): Promise<WebhookEndpointRecord | null>
  /** Deletes an endpoint and its pending deliveries; `false` when there was none. */
  deleteEndpoint(id: string, audit?: EndpointAuditWrite): Promise<boolean>
  /**
   * Puts the events `which` names into the endpoint's deliveries again, due at `now`, with their
   * attempts counted from zero (a delivery that exists is reset, one that does not is added).
   * Returns how many; an event of another developer, or one the endpoint does not take, is not
   * counted.
   */
  redeliver(endpointId: string, which: WebhookRedelivery, now: Date): Promise<number>
  /**
   * Writes `event` into the outbox as an event for one endpoint only (the test event): a delivery
   * to that endpoint, due at `now`, whatever its filters, that the dispatchers send as any other.
   */
  enqueueForEndpoint(endpointId: string, event: WebhookEvent, now: Date): Promise<void>
  /**
   * Turns at most `limit` outbox events into deliveries, one per enabled endpoint of the event's
   * developer whose filters match, and returns how many events it took. Concurrent callers take
   * different events (PostgreSQL: `FOR UPDATE SKIP LOCKED`).
   */
  fanOutEvents(limit: number, now: Date): Promise<number>
  /**
   * Claims at most `limit` deliveries due at `now`, for `leaseMs`: no other caller claims them
   * until the lease ends, and a claimer that dies without finishing leaves them due again then
   * (PostgreSQL: `FOR UPDATE SKIP LOCKED`).
   */
  claimDeliveries(limit: number, now: Date, leaseMs: number): Promise<ClaimedDelivery[]>
  /**
   * Logs an attempt and applies its outcome, and the endpoint's failure state: a success clears
   * `failingSince`; a failure sets it when unset; with `disable` (the endpoint has failed too long)
   * the endpoint is disabled, with its audit rows in the same transaction. Returns whether this
   * call disabled it (`false` when it was disabled already).
   */
  finishDelivery(
    delivery: ClaimedDelivery,
    attempt: WebhookAttempt,
    outcome: WebhookOutcome,
    disable?: EndpointAuditWrite,
  ): Promise<boolean>
  /**
   * One round of the scheduler of expiry events, under the store's scheduler lock: one caller at
   * a time across processes (PostgreSQL: a transaction-scoped advisory lock, freed when its
   * holder commits or dies), `null` for the others. Reads the active keys not replaced by a roll
   * whose expiry is after `from` and at most `to`, and writes the events `build` makes of them
   * into the outbox, each at most once ever: an event whose id was written before is skipped,
   * which is the record that it was sent. Returns how many it wrote.
   */
  noticeExpiringKeys(
    from: Date,
    to: Date,
    build: (keys: readonly ExpiringKey[]) => Promise<readonly WebhookEvent[]>,
  ): Promise<number | null>
  /**
   * One round of the scheduler of refills, under the store's scheduler lock (as
   * `noticeExpiringKeys`; `null` for the other callers): takes at most `limit` keys and identity
   * pools with a refill rule whose refill is due at `now` (by the `dueAt` the last round kept, or
   * never looked at), applies to each what `refillRound` says (the refill, the next `dueAt`), and
   * writes the events `build` makes of those whose period turned into the outbox, in the same
   * transaction, each at most once ever. Returns how many events it wrote. Optional: a store
   * without it has no `credits.refilled` (its refills are applied by leases only).
   */
  refillCredits?(
    now: Date,
    limit: number,
    build: (refills: readonly RefilledCredits[]) => Promise<readonly WebhookEvent[]>,
  ): Promise<number | null>
  /**
   * Writes events of the hot path into the outbox (`ratelimit.exceeded`, `credits.low`,
   * `credits.exhausted`), each at most once ever:
   * an event whose id was written before is skipped. Returns how many it wrote.
   */
  addEvents(events: readonly WebhookEvent[]): Promise<number>
  /** An endpoint's last attempts, newest first. */
  listAttempts(endpointId: string, limit: number): Promise<WebhookAttemptRecord[]>
  /** Deletes at most `limit` attempts older than `before`; returns how many. */
  pruneAttempts(before: Date, limit: number): Promise<number>
}
