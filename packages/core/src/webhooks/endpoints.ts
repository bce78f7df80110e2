import type { AuditAction, AuditContext, AuditValues } from '../audit/types.js'
import { KeywardError } from '../errors/error.js'
import { ErrorType } from '../errors/types.js'
import { AuditRows, changed } from '../service/audit-rows.js'
import {
  type EndpointAuditWrite,
  MAX_WEBHOOK_ENDPOINTS,
  WEBHOOK_EVENT_TYPES,
  type WebhookAttemptRecord,
  type WebhookEndpointChange,
  type WebhookEndpointRecord,
  type WebhookEvent,
  type WebhookEventType,
  type WebhookRedelivery,
  type WebhookStore,
} from './types.js'

/** Options of {@link WebhookEndpoints}. */
export interface WebhookEndpointsOptions {
  /** Accept `http://` URLs (development only). Default `false`: `https://` only. */
  readonly allowHttp?: boolean
  /**
   * Checks where a URL's host resolves, and throws (any error) to refuse it: the Node sender's
   * `checkWebhookAddress` of `@keyward/webhooks` refuses loopback, private, link-local and
   * metadata addresses. Without it, only the scheme is checked here (deliveries check again).
   */
  readonly checkAddress?: (url: string) => Promise<void>
  /** The clock. Default `() => new Date()`. */
  readonly now?: () => Date
}

/** A new endpoint, as its creation takes it. */
export interface NewWebhookEndpoint {
  readonly url: string
  readonly description?: string | null
  readonly projectIds?: readonly string[] | null
  readonly eventTypes?: readonly WebhookEventType[] | null
}

const DEFAULT_GRACE_SECONDS = 86_400
const SECRET_BYTES = 24
const BASE64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/'

/**
 * A new signing secret: `whsec_` and the base64 of 24 random bytes (192 bits), as Standard
 * Webhooks libraries read it.
 *
 * @example
 * ```ts
 * webhookSecret() // 'whsec_C2FVsBQIhrscChlQIMV+b5sSYspob7oD'
 * ```
 */
export function webhookSecret(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(SECRET_BYTES))
  let text = ''
  for (let i = 0; i < bytes.length; i += 3) {
    const n = (bytes[i]! << 16) | (bytes[i + 1]! << 8) | bytes[i + 2]!
    text += BASE64[(n >> 18) & 63]! + BASE64[(n >> 12) & 63]! + BASE64[(n >> 6) & 63]! + BASE64[n & 63]!
  }
  return `whsec_${text}`
}

const urlError = (message: string) => new KeywardError(ErrorType.valueError, message, ['body', 'url'])

// Each a known event type (422 at the unknown one's place).
function checkEventTypes(types: readonly string[] | null | undefined): void {
  types?.forEach((type, i) => {
    if (!(WEBHOOK_EVENT_TYPES as readonly string[]).includes(type)) {
      throw new KeywardError(ErrorType.valueError, `Expected one of ${WEBHOOK_EVENT_TYPES.join(', ')}.`, [
        'body',
        'event_types',
        String(i),
      ])
    }
  })
}

const notFound = () =>
  new KeywardError(ErrorType.notFound, 'Webhook endpoint not found.', ['path', 'endpoint_id'])

// What the audit log keeps of an endpoint: where it sends and what it takes, never its secrets.
const endpointFields = (endpoint: WebhookEndpointRecord): AuditValues => ({
  url: endpoint.url,
  description: endpoint.description,
  project_ids: endpoint.projectIds,
  event_types: endpoint.eventTypes,
  disabled_at: endpoint.disabledAt?.toISOString() ?? null,
})

/** The most a manual redelivery's time range may span: the delivery log's 30 days. */
export const MAX_REDELIVERY_RANGE_MS = 30 * 86_400_000

/**
 * A developer's webhook endpoints over a store's {@link WebhookStore}: what the HTTP routes and
 * the CLI call. Each URL is checked (scheme, credentials, and where its host resolves with
 * `checkAddress`) before anything is written; an endpoint of another developer is "not found".
 *
 * @example
 * ```ts
 * const endpoints = new WebhookEndpoints(store.webhooks!, { checkAddress: checkWebhookAddress })
 * const { secret } = await endpoints.create('dev_1', { url: 'https://hooks.example.com/keyward' })
 * ```
 */
export class WebhookEndpoints {
  readonly #now: () => Date
  readonly #rows: AuditRows

  constructor(
    readonly store: WebhookStore,
    private readonly options: WebhookEndpointsOptions = {},
  ) {
    this.#now = options.now ?? (() => new Date())
    this.#rows = new AuditRows(true, this.#now)
  }

  /**
   * Registers an endpoint with a new secret; throws `limit_exceeded` past 10 of the developer's.
   * Each write appends its audit row (`webhook_endpoint.created`, `.updated`, `.deleted`,
   * `.secret_rolled`), by `context`'s actor (absent: the system), in the write's transaction.
   */
  async create(
    developerId: string,
    given: NewWebhookEndpoint,
    context?: AuditContext,
  ): Promise<WebhookEndpointRecord> {
    await this.#checkUrl(given.url)
    checkEventTypes(given.eventTypes)
    const now = this.#now()
    return this.store.insertEndpoint(
      {
        id: crypto.randomUUID(),
        developerId,
        url: given.url,
        description: given.description ?? null,
        projectIds: given.projectIds ?? null,
        eventTypes: given.eventTypes ?? null,
        secret: webhookSecret(),
        previousSecret: null,
        previousSecretExpiresAt: null,
        failingSince: null,
        disabledAt: null,
        createdAt: now,
        updatedAt: now,
      },
      MAX_WEBHOOK_ENDPOINTS,
      this.#audit('webhook_endpoint.created', context, now, null),
    )
  }

  /** The developer's endpoints, oldest first. */
  list(developerId: string): Promise<WebhookEndpointRecord[]> {
    return this.store.listEndpoints(developerId)
  }

  /** One of the developer's endpoints; throws `not_found` for any other. */
  async get(developerId: string, id: string): Promise<WebhookEndpointRecord> {
    const found = await this.store.findEndpoint(id)
    if (found === null || found.developerId !== developerId) throw notFound()
    return found
  }

  /** Changes one of the developer's endpoints. */
  async update(
    developerId: string,
    id: string,
    change: WebhookEndpointChange,
    context?: AuditContext,
  ): Promise<WebhookEndpointRecord> {
    const before = await this.get(developerId, id)
    if (change.url !== undefined) await this.#checkUrl(change.url)
    checkEventTypes(change.eventTypes)
    const now = this.#now()
    const audit = this.#audit('webhook_endpoint.updated', context, now, before)
    return (await this.store.updateEndpoint(id, change, now, audit)) ?? Promise.reject(notFound())
  }

  /** Gives an endpoint a new secret; the old one signs too for `graceSeconds` (default a day). */
  async rollSecret(
    developerId: string,
    id: string,
    graceSeconds = DEFAULT_GRACE_SECONDS,
    context?: AuditContext,
  ): Promise<WebhookEndpointRecord> {
    const before = await this.get(developerId, id)
    const now = this.#now()
    const rolled = await this.store.rollEndpointSecret(
      id,
      webhookSecret(),
      new Date(now.getTime() + graceSeconds * 1000),
      now,
      this.#audit('webhook_endpoint.secret_rolled', context, now, before),
    )
    if (rolled === null) throw notFound()
    return rolled
  }

  /** Deletes one of the developer's endpoints. */
  async delete(developerId: string, id: string, context?: AuditContext): Promise<void> {
    const before = await this.get(developerId, id)
    const audit = this.#audit('webhook_endpoint.deleted', context, this.#now(), before)
    if (!(await this.store.deleteEndpoint(id, audit))) throw notFound()
  }

  /**
   * Sends events to one of the developer's endpoints again, through the outbox as any delivery:
   * one event by its id (`not_found` when the endpoint never could take it), or every event of a
   * time range of at most 30 days that the endpoint takes. Returns how many deliveries are due.
   */
  async redeliver(developerId: string, id: string, which: WebhookRedelivery): Promise<number> {
    await this.get(developerId, id)
    if ('from' in which && !(which.from < which.to)) {
      throw new KeywardError(ErrorType.valueError, 'Expected `from` before `to`.', ['body', 'to'])
    }
    if ('from' in which && which.to.getTime() - which.from.getTime() > MAX_REDELIVERY_RANGE_MS) {
      throw new KeywardError(
        ErrorType.valueError,
        'Expected a range of at most 30 days: the delivery log keeps 30 days.',
        ['body', 'to'],
      )
    }
    const count = await this.store.redeliver(id, which, this.#now())
    if ('eventId' in which && count === 0) {
      throw new KeywardError(ErrorType.notFound, 'This endpoint has no such event to send again.', [
        'body',
        'event_id',
      ])
    }
    return count
  }

  /**
   * Sends a `webhook.test` event to one of the developer's endpoints (whatever its filters),
   * through the outbox as any event; returns the event, whose id is its `webhook-id`.
   */
  async sendTest(developerId: string, id: string): Promise<WebhookEvent> {
    const endpoint = await this.get(developerId, id)
    const now = this.#now()
    const event: WebhookEvent = {
      id: `msg_${crypto.randomUUID().replaceAll('-', '')}`,
      type: 'webhook.test',
      developerId,
      projectId: null,
      createdAt: now,
      data: { endpoint_id: endpoint.id, developer_id: developerId, url: endpoint.url, actor: 'developer' },
    }
    await this.store.enqueueForEndpoint(endpoint.id, event, now)
    return event
  }

  /** An endpoint's last attempts, newest first. */
  async attempts(developerId: string, id: string, limit = 100): Promise<WebhookAttemptRecord[]> {
    await this.get(developerId, id)
    return this.store.listAttempts(id, limit)
  }

  // The row of an endpoint's write: its fields that changed (all of them for a creation).
  #audit(
    action: AuditAction,
    context: AuditContext | undefined,
    at: Date,
    before: WebhookEndpointRecord | null,
  ): EndpointAuditWrite {
    return (endpoint) => {
      const diff =
        action === 'webhook_endpoint.updated' && before
          ? changed(endpointFields(before), endpointFields(endpoint))
          : null
      const roll =
        action === 'webhook_endpoint.secret_rolled'
          ? { previous_secret_expires_at: endpoint.previousSecretExpiresAt?.toISOString() ?? null }
          : null
      const row = this.#rows.event(
        {
          action,
          targetType: 'webhook_endpoint',
          targetId: endpoint.id,
          developerId: endpoint.developerId,
          before:
            action === 'webhook_endpoint.created'
              ? null
              : (diff?.before ?? (roll ? null : endpointFields(endpoint))),
          after:
            action === 'webhook_endpoint.deleted' ? null : (diff?.after ?? roll ?? endpointFields(endpoint)),
        },
        context,
        at,
      )
      return [row]
    }
  }

  async #checkUrl(given: string): Promise<void> {
    let url: URL
    try {
      url = new URL(given)
    } catch {
      throw urlError('Expected an absolute URL, such as https://hooks.example.com/keyward.')
    }
    const schemes = this.options.allowHttp ? ['https:', 'http:'] : ['https:']
    if (!schemes.includes(url.protocol)) {
      throw urlError(
        this.options.allowHttp ? 'Expected an https:// or http:// URL.' : 'Expected an https:// URL.',
      )
    }
    if (url.username !== '' || url.password !== '') throw urlError('A URL with credentials is refused.')
    if (!this.options.checkAddress) return
    try {
      await this.options.checkAddress(url.href)
    } catch (error) {
      throw urlError(`Its host is refused: ${error instanceof Error ? error.message : String(error)}`)
    }
  }
}
