import type {
  ClaimedDelivery,
  ExpiryNoticesOptions,
  KeywardTelemetry,
  WebhookAttempt,
  WebhookOutcome,
  WebhookStore,
} from '@keyward/core'
import { createCreditRefills, createExpiryNotices, endpointDisabledRows, webhookPayload } from '@keyward/core'
import { Webhook } from 'standardwebhooks'
import type { WebhookLookup } from './address.js'
import { postWebhook, type WebhookAnswer } from './send.js'
import { deliverySpan } from './spans.js'

const HOUR_MS = 3_600_000
const DAY_MS = 24 * HOUR_MS

/** What a dispatcher tells its host (it never prints): each attempt's outcome, a disabled endpoint, an error of its loop. */
export type WebhookDispatcherEvent =
  | {
      readonly type: 'webhook.attempted'
      readonly eventId: string
      readonly endpointId: string
      readonly status: number | null
      readonly outcome: WebhookOutcome['state']
    }
  | { readonly type: 'webhook.endpoint_disabled'; readonly endpointId: string; readonly developerId: string }
  | { readonly type: 'webhook.error'; readonly error: unknown }

/** Options of {@link createWebhookDispatcher}. */
export interface WebhookDispatcherOptions {
  /** The store's webhooks (`store.webhooks`). */
  readonly store: WebhookStore
  /** Deliver to `http://` URLs (development only). Default `false`. */
  readonly allowHttp?: boolean
  /** Deliver to loopback and private addresses (development only). Link-local and metadata stay refused. Default `false`. */
  readonly allowPrivate?: boolean
  /** How long a delivery is retried after its event, in ms. Default 24 hours. */
  readonly retryWindowMs?: number
  /** After how long failing without a success an endpoint is disabled, in ms. Default 5 days. */
  readonly disableAfterMs?: number
  /** The first retry's delay, doubled at each attempt, with jitter. Default 5 s. */
  readonly baseDelayMs?: number
  /** The longest delay between two attempts. Default 1 hour. */
  readonly maxDelayMs?: number
  /** How long a claim holds a delivery: a dispatcher killed while delivering leaves it due again then. Default 30 s (more than the 10 s timeout). */
  readonly leaseMs?: number
  /** How many deliveries one claim takes. Default 20. */
  readonly batch?: number
  /** How long an idle dispatcher waits before looking again. Default 500 ms. */
  readonly pollMs?: number
  /** How long the delivery log keeps an attempt. Default 30 days. */
  readonly logRetentionMs?: number
  /**
   * The events of time, `key.expiring` and `key.expired` (see `createExpiryNotices`), and
   * `credits.refilled` (see `createCreditRefills`: the refills due are applied by the round): its
   * options, with the service's `projectOwner` for the events of project keys and identities;
   * `false` for none. One dispatcher at a time across processes runs a round. Default `{}`: 7
   * days and 1 day before.
   */
  readonly expiry?: Omit<ExpiryNoticesOptions, 'store' | 'now'> | false
  /** How often the events of time are looked for, in ms. Default 60 s. */
  readonly expiryIntervalMs?: number
  /** The resolver of the sender (tests rebind a name with it). Default `dns.lookup`. */
  readonly lookup?: WebhookLookup
  /** Sends one delivery. Default {@link postWebhook}, with `allowPrivate` and `lookup`. */
  readonly send?: (url: string, headers: Record<string, string>, body: string) => Promise<WebhookAnswer>
  readonly onEvent?: (event: WebhookDispatcherEvent) => void
  /**
   * Traces each delivery attempt (`keyward.webhook.deliver`, a span of kind client with
   * OpenTelemetry's HTTP attributes: the scheme, host and port, never the path, query, headers or
   * body), through the host's OpenTelemetry API, as `createKeyward`'s option of that name.
   */
  readonly telemetry?: KeywardTelemetry
  /** The clock. Default `() => new Date()`. */
  readonly now?: () => Date
  /** Jitter's source of randomness, from 0 to 1. Default `Math.random`. */
  readonly random?: () => number
}

/** A running dispatcher. */
export interface WebhookDispatcher {
  /** One round: fans out waiting events, claims due deliveries and delivers them; returns how many it delivered or tried. */
  runOnce(): Promise<number>
  /** Stops the loop after the round in flight; resolves when it has stopped. */
  stop(): Promise<void>
}

/**
 * Signs a delivery per Standard Webhooks (`webhook-id`, `webhook-timestamp`, `webhook-signature`
 * v1, HMAC-SHA256) with each secret given: after a roll, both the new and the previous one sign.
 *
 * @example
 * ```ts
 * const headers = signWebhook(['whsec_...'], 'msg_123', new Date(), body)
 * ```
 */
export function signWebhook(
  secrets: readonly string[],
  id: string,
  at: Date,
  body: string,
): Record<string, string> {
  return {
    'webhook-id': id,
    'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
    'webhook-signature': secrets.map((secret) => new Webhook(secret).sign(id, at, body)).join(' '),
  }
}

/**
 * Starts delivering a store's outbox: at least once, each delivery claimed by one dispatcher at a
 * time (`FOR UPDATE SKIP LOCKED` on PostgreSQL, with a lease: a dispatcher killed while
 * delivering leaves the delivery due again when the lease ends), retried with exponential backoff
 * and jitter for 24 hours; an endpoint failing for 5 days is disabled, with an audit row and an
 * `endpoint.disabled` event to the developer's other endpoints. Run it in as many processes as
 * you like.
 *
 * @example
 * ```ts
 * const dispatcher = createWebhookDispatcher({ store: store.webhooks, onEvent: (e) => logger.info(e) })
 * process.once('SIGTERM', () => dispatcher.stop())
 * ```
 */
export function createWebhookDispatcher(options: WebhookDispatcherOptions): WebhookDispatcher {
  const {
    store,
    retryWindowMs = DAY_MS,
    disableAfterMs = 5 * DAY_MS,
    baseDelayMs = 5_000,
    maxDelayMs = HOUR_MS,
    leaseMs = 30_000,
    batch = 20,
    pollMs = 500,
    logRetentionMs = 30 * DAY_MS,
    now = () => new Date(),
    random = Math.random,
    onEvent = () => {},
  } = options
  if (typeof store?.claimDeliveries !== 'function') {
    throw new TypeError('createWebhookDispatcher: option `store` must be a WebhookStore (`store.webhooks`).')
  }
  const send =
    options.send ??
    ((url: string, headers: Record<string, string>, body: string) =>
      postWebhook(url, headers, body, {
        allowPrivate: options.allowPrivate === true,
        ...(options.lookup ? { lookup: options.lookup } : {}),
      }))

  // The delay before the next attempt: doubled at each, at most maxDelayMs, half of it jitter.
  const delayAfter = (attempts: number) => {
    const full = Math.min(maxDelayMs, baseDelayMs * 2 ** attempts)
    return full / 2 + (full / 2) * random()
  }

  async function deliver(delivery: ClaimedDelivery): Promise<void> {
    const span = deliverySpan(options.telemetry, delivery)
    try {
      await attempt(delivery, span)
    } catch (error) {
      span.failed(error)
      throw error
    }
  }

  async function attempt(delivery: ClaimedDelivery, span: ReturnType<typeof deliverySpan>): Promise<void> {
    const body = JSON.stringify(webhookPayload(delivery.event))
    const started = now()
    const allowed = options.allowHttp || delivery.endpoint.url.startsWith('https:')
    const answer: WebhookAnswer = allowed
      ? await send(
          delivery.endpoint.url,
          signWebhook(delivery.endpoint.secrets, delivery.event.id, started, body),
          body,
        )
      : { status: null, response: 'http:// is not allowed: https:// only.' }
    span.answered(answer)
    const at = now()
    const tried: WebhookAttempt = {
      at: started,
      status: answer.status,
      durationMs: at.getTime() - started.getTime(),
      response: answer.response,
    }
    const ok = answer.status !== null && answer.status >= 200 && answer.status < 300
    const retryAt = new Date(at.getTime() + delayAfter(delivery.attempts))
    const outcome: WebhookOutcome = ok
      ? { state: 'delivered' }
      : retryAt.getTime() <= delivery.createdAt.getTime() + retryWindowMs
        ? { state: 'retry', retryAt }
        : { state: 'failed' }
    const failingSince = delivery.endpoint.failingSince
    const disable = !ok && failingSince !== null && at.getTime() - failingSince.getTime() >= disableAfterMs
    const disabled = await store.finishDelivery(
      delivery,
      tried,
      outcome,
      disable ? endpointDisabledRows(at) : undefined,
    )
    span.finished(outcome.state, disabled)
    onEvent({
      type: 'webhook.attempted',
      eventId: delivery.event.id,
      endpointId: delivery.endpoint.id,
      status: answer.status,
      outcome: outcome.state,
    })
    if (disabled) {
      onEvent({
        type: 'webhook.endpoint_disabled',
        endpointId: delivery.endpoint.id,
        developerId: delivery.endpoint.developerId,
      })
    }
  }

  const expiry = options.expiry === false ? null : createExpiryNotices({ ...options.expiry, store, now })
  const refills =
    options.expiry === false
      ? null
      : createCreditRefills({ store, projectOwner: options.expiry?.projectOwner, now })
  const expiryIntervalMs = options.expiryIntervalMs ?? 60_000
  let expiryLast = Number.NEGATIVE_INFINITY

  let rounds = 0
  async function runOnce(): Promise<number> {
    const at = now()
    if (expiry && at.getTime() - expiryLast >= expiryIntervalMs) {
      expiryLast = at.getTime()
      await expiry.tick()
      await refills?.tick()
    }
    await store.fanOutEvents(100, at)
    const claimed = await store.claimDeliveries(batch, at, leaseMs)
    await Promise.all(claimed.map(deliver))
    // Now and then, the delivery log's oldest rows go.
    if (rounds++ % 100 === 0) await store.pruneAttempts(new Date(at.getTime() - logRetentionMs), 1000)
    return claimed.length
  }

  let running = true
  let wake: (() => void) | undefined
  const loop = (async () => {
    while (running) {
      let done = 0
      try {
        done = await runOnce()
      } catch (error) {
        onEvent({ type: 'webhook.error', error })
      }
      if (done === 0 && running) {
        await new Promise<void>((resolve) => {
          wake = resolve
          setTimeout(resolve, pollMs).unref()
        })
      }
    }
  })()

  return {
    runOnce,
    async stop() {
      running = false
      wake?.()
      await loop
    },
  }
}
