// Webhook endpoints and their deliveries in words: the event types, how an endpoint stands, how
// an attempt went.
import type { WebhookAttempt, WebhookEndpoint, WebhookEventType } from '../../api'

/**
 * The event types an endpoint may subscribe to, each with what makes one. `webhook.test` is not
 * among them: a test event goes to the endpoint it is sent to, whatever its filters.
 */
export const EVENT_TYPES: readonly { readonly type: WebhookEventType; readonly label: string }[] = [
  { type: 'key.created', label: 'a key is created' },
  { type: 'key.revoked', label: 'a key is revoked' },
  { type: 'key.leaked', label: 'a key is reported leaked' },
  { type: 'key.rolled', label: 'a key is rolled' },
  { type: 'key.expiring', label: 'a key expires in 7 days, then in 1' },
  { type: 'key.expired', label: 'a key has expired' },
  { type: 'ratelimit.exceeded', label: 'a rate limit refuses requests' },
  { type: 'credits.low', label: 'credits fall to their low threshold' },
  { type: 'credits.exhausted', label: 'credits run out' },
  { type: 'credits.refilled', label: 'credits are refilled' },
  { type: 'endpoint.disabled', label: 'an endpoint is disabled after failing' },
]

/** How an endpoint stands, in words (never a colour alone), and why when it is not well. */
export function endpointStatus(endpoint: Pick<WebhookEndpoint, 'disabled_at' | 'failing_since'>): {
  readonly label: string
  readonly tone: 'ok' | 'warn' | 'off'
  readonly why: string
} {
  if (endpoint.disabled_at) {
    return {
      label: 'Disabled',
      tone: 'off',
      why: 'Its deliveries failed for 5 days, so it gets none: enable it once it answers again.',
    }
  }
  if (endpoint.failing_since) {
    return {
      label: 'Failing',
      tone: 'warn',
      why: 'Its deliveries fail and are retried; after 5 days of failures it is disabled.',
    }
  }
  return { label: 'Enabled', tone: 'ok', why: 'Its deliveries succeed.' }
}

/** How an attempt went: the status answered and whether that is a delivery, or that none came. */
export function attemptOutcome(attempt: Pick<WebhookAttempt, 'status'>): {
  readonly label: string
  readonly tone: 'ok' | 'off'
} {
  if (attempt.status === null) return { label: 'No answer', tone: 'off' }
  return attempt.status >= 200 && attempt.status < 300
    ? { label: `${attempt.status}: delivered`, tone: 'ok' }
    : { label: `${attempt.status}: failed`, tone: 'off' }
}

/** The projects an endpoint takes events of, by name where known. */
export function projectsText(
  projectIds: readonly string[] | null,
  names: ReadonlyMap<string, string>,
  shown?: (items: readonly string[]) => string,
): string {
  if (projectIds === null) return 'every project'
  const named = projectIds.map((id) => names.get(id) ?? id)
  return shown ? shown(named) : named.join(', ')
}
