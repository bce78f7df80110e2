import {
  type ClaimedDelivery,
  type KeywardTelemetry,
  type TelemetrySpan,
  telemetryErrorType,
  type WebhookOutcome,
} from '@keyward/core'
import type { WebhookAnswer } from './send.js'

/** The name of the span of one delivery attempt. */
export const DELIVERY_SPAN = 'keyward.webhook.deliver'

/** @internal What a delivery tells its span: the answer, then the outcome the store recorded. */
export interface DeliverySpan {
  answered(answer: WebhookAnswer): void
  finished(outcome: WebhookOutcome['state'], disabled: boolean): void
  failed(error: unknown): void
}

const NONE: DeliverySpan = { answered() {}, finished() {}, failed() {} }

// The address as OpenTelemetry's HTTP client conventions name it: scheme, host and port, never
// the path or the query, which may hold a token of the receiver's.
function addressAttributes(url: string) {
  const target = new URL(url)
  const secure = target.protocol === 'https:'
  return {
    'url.scheme': target.protocol.slice(0, -1),
    'server.address': target.hostname.replace(/^\[(.*)\]$/, '$1'),
    'server.port': target.port === '' ? (secure ? 443 : 80) : Number(target.port),
  }
}

/**
 * @internal The span of one delivery attempt (option `telemetry` of the dispatcher): a root span
 * of its own trace, of kind client, with OpenTelemetry's HTTP client attributes
 * (`http.request.method`, `url.scheme`, `server.address`, `server.port`,
 * `http.response.status_code`, `error.type`), and the event's id and type, the endpoint's id,
 * the attempt's number and its outcome. Never the URL's path or query, a header, a secret or the
 * body. Without telemetry, or unsampled, nothing.
 */
export function deliverySpan(
  telemetry: KeywardTelemetry | undefined,
  delivery: ClaimedDelivery,
): DeliverySpan {
  const tracer = telemetry?.tracerProvider.getTracer('@keyward/webhooks')
  if (!tracer) return NONE
  const span: TelemetrySpan = tracer.startSpan(DELIVERY_SPAN, {
    kind: 2,
    root: true,
    attributes: {
      'http.request.method': 'POST',
      ...addressAttributes(delivery.endpoint.url),
      'keyward.webhook.event.id': delivery.event.id,
      'keyward.webhook.event.type': delivery.event.type,
      'keyward.webhook.endpoint.id': delivery.endpoint.id,
      'keyward.webhook.attempt': delivery.attempts + 1,
    },
  })
  if (!span.isRecording()) {
    span.end()
    return NONE
  }
  return {
    answered(answer) {
      if (answer.status !== null) span.setAttribute('http.response.status_code', answer.status)
      // As the conventions ask: the status code when it is not a success, else a word for no answer.
      if (answer.status === null) span.setAttribute('error.type', 'no_answer')
      else if (answer.status < 200 || answer.status >= 300)
        span.setAttribute('error.type', String(answer.status))
      else return
      span.setStatus({ code: 2 })
    },
    finished(outcome, disabled) {
      span.setAttribute('keyward.webhook.outcome', outcome)
      if (disabled) span.setAttribute('keyward.webhook.endpoint.disabled', true)
      span.end()
    },
    failed(error) {
      span.setAttribute('error.type', telemetryErrorType(error))
      span.setStatus({ code: 2 })
      span.end()
    },
  }
}
