import type { AuditEntry } from '../audit/types.js'
import { KeywardError } from '../errors/error.js'
import { ErrorType } from '../errors/types.js'
import type {
  ClaimedDelivery,
  EndpointAuditWrite,
  WebhookAttempt,
  WebhookAttemptRecord,
  WebhookEndpointChange,
  WebhookEndpointRecord,
  WebhookEvent,
  WebhookOutcome,
  WebhookStore,
} from './types.js'

interface Delivery {
  readonly id: string
  readonly event: WebhookEvent
  readonly endpointId: string
  readonly createdAt: Date
  attempts: number
  state: 'pending' | 'delivered' | 'failed'
  dueAt: Date
}

/** @internal What the memory store lends its webhooks: its audit log. */
export interface MemoryWebhooksAccess {
  readonly append: (entries: readonly AuditEntry[]) => Promise<unknown>
}

/** @internal The refusal of an endpoint past the most a developer may have. */
export const endpointLimitError = (limit: number) =>
  new KeywardError(
    ErrorType.limitExceeded,
    `This developer already has ${limit} webhook endpoints, the most allowed. Delete one before adding another.`,
    [],
  )

/** @internal The secrets that sign at `now`: the current one, and the previous in its grace window. */
export const signingSecrets = (endpoint: WebhookEndpointRecord, now: Date): string[] =>
  endpoint.previousSecret !== null &&
  endpoint.previousSecretExpiresAt !== null &&
  endpoint.previousSecretExpiresAt > now
    ? [endpoint.secret, endpoint.previousSecret]
    : [endpoint.secret]

/** @internal What a claimed delivery holds of its endpoint at `now`: where, and what signs. */
export const deliveryEndpoint = (
  endpoint: WebhookEndpointRecord,
  now: Date,
): ClaimedDelivery['endpoint'] => ({
  id: endpoint.id,
  developerId: endpoint.developerId,
  url: endpoint.url,
  failingSince: endpoint.failingSince,
  secrets: signingSecrets(endpoint, now),
})

/** @internal Whether an endpoint takes an event: enabled, of its developer, through its filters. */
export const endpointTakes = (endpoint: WebhookEndpointRecord, event: WebhookEvent): boolean =>
  endpoint.disabledAt === null &&
  endpoint.developerId === event.developerId &&
  (endpoint.eventTypes === null || endpoint.eventTypes.includes(event.type)) &&
  (endpoint.projectIds === null ||
    (event.projectId !== null && endpoint.projectIds.includes(event.projectId)))

/**
 * @internal The memory store's webhooks: endpoints, the outbox (filled by the store's audit
 * appends, in the same synchronous step) and the delivery log, in process memory. Nothing awaits
 * between a claim's check and its write, so two dispatchers never claim one delivery.
 */
export class MemoryWebhooks implements WebhookStore {
  readonly #endpoints = new Map<string, WebhookEndpointRecord>()
  /** @internal The outbox: events not yet fanned out (tests read it). */
  readonly outbox: WebhookEvent[] = []
  readonly #deliveries = new Map<string, Delivery>()
  readonly #attempts: WebhookAttemptRecord[] = []

  constructor(private readonly access: MemoryWebhooksAccess) {}

  async insertEndpoint(record: WebhookEndpointRecord, limit: number): Promise<WebhookEndpointRecord> {
    const owned = [...this.#endpoints.values()].filter(
      (endpoint) => endpoint.developerId === record.developerId,
    )
    if (owned.length >= limit) throw endpointLimitError(limit)
    this.#endpoints.set(record.id, record)
    return record
  }

  async findEndpoint(id: string): Promise<WebhookEndpointRecord | null> {
    return this.#endpoints.get(id) ?? null
  }

  async listEndpoints(developerId: string): Promise<WebhookEndpointRecord[]> {
    return [...this.#endpoints.values()].filter((endpoint) => endpoint.developerId === developerId)
  }

  async updateEndpoint(
    id: string,
    change: WebhookEndpointChange,
    now: Date,
  ): Promise<WebhookEndpointRecord | null> {
    const current = this.#endpoints.get(id)
    if (!current) return null
    const { disabled, ...fields } = change
    const enabled = disabled === false ? { disabledAt: null, failingSince: null } : {}
    return this.#put({ ...current, ...fields, ...enabled, updatedAt: now })
  }

  async rollEndpointSecret(id: string, secret: string, previousExpiresAt: Date, now: Date) {
    const current = this.#endpoints.get(id)
    if (!current) return null
    return this.#put({
      ...current,
      secret,
      previousSecret: current.secret,
      previousSecretExpiresAt: previousExpiresAt,
      updatedAt: now,
    })
  }

  async deleteEndpoint(id: string): Promise<boolean> {
    for (const [key, delivery] of this.#deliveries) {
      if (delivery.endpointId === id && delivery.state === 'pending') this.#deliveries.delete(key)
    }
    return this.#endpoints.delete(id)
  }

  /** @internal Puts a write's events into the outbox (the store's audit append calls it). */
  enqueue(events: readonly WebhookEvent[]): void {
    this.outbox.push(...events)
  }

  async fanOutEvents(limit: number, now: Date): Promise<number> {
    const events = this.outbox.splice(0, limit)
    for (const event of events) {
      for (const endpoint of this.#endpoints.values()) {
        if (!endpointTakes(endpoint, event)) continue
        const id = crypto.randomUUID()
        this.#deliveries.set(id, {
          id,
          event,
          endpointId: endpoint.id,
          createdAt: now,
          attempts: 0,
          state: 'pending',
          dueAt: now,
        })
      }
    }
    return events.length
  }

  async claimDeliveries(limit: number, now: Date, leaseMs: number): Promise<ClaimedDelivery[]> {
    const due = [...this.#deliveries.values()]
      .filter((delivery) => delivery.state === 'pending' && delivery.dueAt <= now)
      .sort((a, b) => a.dueAt.getTime() - b.dueAt.getTime())
      .slice(0, limit)
    return due.flatMap((delivery) => {
      const endpoint = this.#endpoints.get(delivery.endpointId)
      if (!endpoint) return []
      delivery.dueAt = new Date(now.getTime() + leaseMs)
      const claimed: ClaimedDelivery = {
        id: delivery.id,
        attempts: delivery.attempts,
        createdAt: delivery.createdAt,
        event: delivery.event,
        endpoint: deliveryEndpoint(endpoint, now),
      }
      delivery.attempts += 1
      return [claimed]
    })
  }

  async finishDelivery(
    claimed: ClaimedDelivery,
    attempt: WebhookAttempt,
    outcome: WebhookOutcome,
    disable?: EndpointAuditWrite,
  ): Promise<boolean> {
    const delivery = this.#deliveries.get(claimed.id)
    const endpoint = this.#endpoints.get(claimed.endpoint.id)
    if (!delivery || !endpoint) return false
    const failingSince = outcome.state === 'delivered' ? null : (endpoint.failingSince ?? attempt.at)
    const disabled =
      disable && endpoint.disabledAt === null ? { ...endpoint, failingSince, disabledAt: attempt.at } : null
    this.#put(disabled ?? { ...endpoint, failingSince })
    this.#attempts.push({
      ...attempt,
      deliveryId: delivery.id,
      eventId: delivery.event.id,
      eventType: delivery.event.type,
      endpointId: delivery.endpointId,
    })
    delivery.state = outcome.state === 'retry' ? 'pending' : outcome.state
    if (outcome.state === 'retry') delivery.dueAt = outcome.retryAt
    if (disabled && disable) {
      for (const other of this.#deliveries.values()) {
        if (other.endpointId === endpoint.id && other.state === 'pending') other.state = 'failed'
      }
      await this.access.append(disable(disabled))
    }
    return disabled !== null
  }

  async listAttempts(endpointId: string, limit: number): Promise<WebhookAttemptRecord[]> {
    return this.#attempts
      .filter((attempt) => attempt.endpointId === endpointId)
      .reverse()
      .slice(0, limit)
  }

  async pruneAttempts(before: Date, limit: number): Promise<number> {
    let pruned = 0
    while (pruned < limit && this.#attempts[0] && this.#attempts[0].at < before) {
      this.#attempts.shift()
      pruned += 1
    }
    return pruned
  }

  #put(record: WebhookEndpointRecord): WebhookEndpointRecord {
    this.#endpoints.set(record.id, record)
    return record
  }
}
