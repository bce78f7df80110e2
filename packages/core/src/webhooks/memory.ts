import type { AuditEntry } from '../audit/types.js'
import { KeywardError } from '../errors/error.js'
import { ErrorType } from '../errors/types.js'
import type { KeyRecord } from '../store/types.js'
import type { RefilledCredits } from './credit-refills.js'
import type {
  ClaimedDelivery,
  EndpointAuditWrite,
  ExpiringKey,
  WebhookAttempt,
  WebhookAttemptRecord,
  WebhookEndpointChange,
  WebhookEndpointRecord,
  WebhookEvent,
  WebhookOutcome,
  WebhookRedelivery,
  WebhookStore,
} from './types.js'

type RollArguments = Parameters<WebhookStore['rollEndpointSecret']>

interface Delivery {
  readonly id: string
  readonly event: WebhookEvent
  readonly endpointId: string
  createdAt: Date
  attempts: number
  state: 'pending' | 'delivered' | 'failed'
  dueAt: Date
}

/** @internal What the memory store lends its webhooks: its audit log. */
export interface MemoryWebhooksAccess {
  readonly append: (entries: readonly AuditEntry[]) => Promise<unknown>
  /** The store's keys, for the scheduler of expiry events. */
  readonly keys: () => Iterable<KeyRecord>
  /** One round of refills of the store's keys and pools (see `WebhookStore.refillCredits`). */
  readonly refill?: (now: Date, limit: number) => RefilledCredits[]
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

// Whether an event of the endpoint's developer passes its filters (a test event never does: it
// is sent to the one endpoint it was made for).
const endpointFilters = (endpoint: WebhookEndpointRecord, event: WebhookEvent): boolean =>
  event.type !== 'webhook.test' &&
  endpoint.developerId === event.developerId &&
  (endpoint.eventTypes === null || endpoint.eventTypes.includes(event.type)) &&
  (endpoint.projectIds === null ||
    (event.projectId !== null && endpoint.projectIds.includes(event.projectId)))

/** @internal Whether an endpoint takes an event: enabled, of its developer, through its filters. */
export const endpointTakes = (endpoint: WebhookEndpointRecord, event: WebhookEvent): boolean =>
  endpoint.disabledAt === null && endpointFilters(endpoint, event)

/**
 * @internal The memory store's webhooks: endpoints, the outbox (filled by the store's audit
 * appends, in the same synchronous step) and the delivery log, in process memory. Nothing awaits
 * between a claim's check and its write, so two dispatchers never claim one delivery.
 */
export class MemoryWebhooks implements WebhookStore {
  readonly #endpoints = new Map<string, WebhookEndpointRecord>()
  /** @internal The outbox: events not yet fanned out (tests read it). */
  readonly outbox: WebhookEvent[] = []
  // The events fanned out, kept as the delivery log is, for redelivery.
  readonly #events: WebhookEvent[] = []
  // The ids of the scheduler's events ever written: each is written once.
  readonly #noticed = new Set<string>()
  // Whether a round of the scheduler is under way: the others skip theirs.
  #scheduling = false
  readonly #deliveries = new Map<string, Delivery>()
  readonly #attempts: WebhookAttemptRecord[] = []

  constructor(private readonly access: MemoryWebhooksAccess) {}

  async insertEndpoint(
    record: WebhookEndpointRecord,
    limit: number,
    audit?: EndpointAuditWrite,
  ): Promise<WebhookEndpointRecord> {
    const owned = [...this.#endpoints.values()].filter(
      (endpoint) => endpoint.developerId === record.developerId,
    )
    if (owned.length >= limit) throw endpointLimitError(limit)
    return this.#write(record, audit)
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
    audit?: EndpointAuditWrite,
  ): Promise<WebhookEndpointRecord | null> {
    const current = this.#endpoints.get(id)
    if (!current) return null
    const { disabled, ...fields } = change
    const enabled = disabled === false ? { disabledAt: null, failingSince: null } : {}
    return this.#write({ ...current, ...fields, ...enabled, updatedAt: now }, audit)
  }

  async rollEndpointSecret(...[id, secret, previousExpiresAt, now, audit]: RollArguments) {
    const current = this.#endpoints.get(id)
    if (!current) return null
    return this.#write(
      {
        ...current,
        secret,
        previousSecret: current.secret,
        previousSecretExpiresAt: previousExpiresAt,
        updatedAt: now,
      },
      audit,
    )
  }

  async deleteEndpoint(id: string, audit?: EndpointAuditWrite): Promise<boolean> {
    const current = this.#endpoints.get(id)
    if (!current) return false
    for (const [key, delivery] of this.#deliveries) {
      if (delivery.endpointId === id && delivery.state === 'pending') this.#deliveries.delete(key)
    }
    this.#endpoints.delete(id)
    if (audit) await this.access.append(audit(current))
    return true
  }

  async redeliver(endpointId: string, which: WebhookRedelivery, now: Date): Promise<number> {
    const endpoint = this.#endpoints.get(endpointId)
    if (!endpoint) return 0
    const delivered = new Map(
      [...this.#deliveries.values()]
        .filter((delivery) => delivery.endpointId === endpointId)
        .map((delivery) => [delivery.event.id, delivery]),
    )
    const chosen = this.#events.filter(
      (event) =>
        ('eventId' in which
          ? event.id === which.eventId
          : event.createdAt >= which.from && event.createdAt < which.to) &&
        event.developerId === endpoint.developerId &&
        (delivered.has(event.id) || endpointFilters(endpoint, event)),
    )
    for (const event of chosen) {
      const delivery = delivered.get(event.id) ?? this.#deliver(event, endpointId, now)
      Object.assign(delivery, { state: 'pending', dueAt: now, createdAt: now, attempts: 0 })
    }
    return chosen.length
  }

  async enqueueForEndpoint(endpointId: string, event: WebhookEvent, now: Date): Promise<void> {
    this.#events.push(event)
    this.#deliver(event, endpointId, now)
  }

  /** @internal Puts a write's events into the outbox (the store's audit append calls it). */
  enqueue(events: readonly WebhookEvent[]): void {
    this.outbox.push(...events)
  }

  async fanOutEvents(limit: number, now: Date): Promise<number> {
    const events = this.outbox.splice(0, limit)
    this.#events.push(...events)
    for (const event of events) {
      for (const endpoint of this.#endpoints.values()) {
        if (endpointTakes(endpoint, event)) this.#deliver(event, endpoint.id, now)
      }
    }
    return events.length
  }

  #deliver(event: WebhookEvent, endpointId: string, now: Date): Delivery {
    const delivery: Delivery = {
      id: crypto.randomUUID(),
      event,
      endpointId,
      createdAt: now,
      attempts: 0,
      state: 'pending',
      dueAt: now,
    }
    this.#deliveries.set(delivery.id, delivery)
    return delivery
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

  async noticeExpiringKeys(
    from: Date,
    to: Date,
    build: (keys: readonly ExpiringKey[]) => Promise<readonly WebhookEvent[]>,
  ): Promise<number | null> {
    return this.#scheduled(async () => {
      const keys = [...this.access.keys()].flatMap((key) =>
        key.active && !key.replacedBy && key.expiresAt && key.expiresAt > from && key.expiresAt <= to
          ? [{ ...key, expiresAt: key.expiresAt }]
          : [],
      )
      return this.addEvents(await build(keys))
    })
  }

  async refillCredits(
    now: Date,
    limit: number,
    build: (refills: readonly RefilledCredits[]) => Promise<readonly WebhookEvent[]>,
  ): Promise<number | null> {
    return this.#scheduled(async () => this.addEvents(await build(this.access.refill?.(now, limit) ?? [])))
  }

  // The scheduler's lock: one round at a time, `null` for a caller that finds one under way.
  async #scheduled(round: () => Promise<number>): Promise<number | null> {
    if (this.#scheduling) return null
    this.#scheduling = true
    try {
      return await round()
    } finally {
      this.#scheduling = false
    }
  }

  async addEvents(given: readonly WebhookEvent[]): Promise<number> {
    const events = given.filter((event) => !this.#noticed.has(event.id))
    for (const event of events) this.#noticed.add(event.id)
    this.enqueue(events)
    return events.length
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
    while (this.#events[0] && this.#events[0].createdAt < before) this.#events.shift()
    return pruned
  }

  #put(record: WebhookEndpointRecord): WebhookEndpointRecord {
    this.#endpoints.set(record.id, record)
    return record
  }

  async #write(record: WebhookEndpointRecord, audit: EndpointAuditWrite | undefined) {
    this.#put(record)
    if (audit) await this.access.append(audit(record))
    return record
  }
}
