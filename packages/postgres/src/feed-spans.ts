import { type KeywardTelemetry, type TelemetrySpan, telemetryErrorType } from '@keyward/core'

/** The name of the span of an outage of the change feed, from its loss to its reconnection. */
export const RECONNECT_SPAN = 'keyward.feed.reconnect'

/** @internal What a change feed tells the span of its outages. */
export interface FeedOutages {
  /** The connection was lost, or an attempt to connect failed. */
  failed(error: unknown): void
  /** The feed listens again. */
  connected(): void
  /** The feed was closed. */
  closed(): void
}

/**
 * @internal The spans of a change feed's outages (option `telemetry`): one span from the loss of
 * the listening connection until the feed listens again, a root span of its own trace (it has
 * no request). It carries `keyward.feed.cause` (the `error.type` of the loss), an event for each
 * failed attempt with its `error.type`, `keyward.feed.attempts` and whether it reconnected
 * (`false` when the feed was closed first). `undefined` without telemetry.
 */
export function feedOutages(telemetry: KeywardTelemetry | undefined): FeedOutages | undefined {
  const tracer = telemetry?.tracerProvider.getTracer('@keyward/postgres')
  if (!tracer) return undefined
  let span: TelemetrySpan | undefined
  let attempts = 0
  const end = (reconnected: boolean) => {
    if (!span) return
    span.setAttribute('keyward.feed.attempts', attempts)
    span.setAttribute('keyward.feed.reconnected', reconnected)
    span.end()
    span = undefined
  }
  return {
    failed(error) {
      const type = telemetryErrorType(error)
      if (!span) {
        attempts = 0
        const attributes = { 'db.system.name': 'postgresql', 'keyward.feed.cause': type }
        span = tracer.startSpan(RECONNECT_SPAN, { kind: 0, root: true, attributes })
        return
      }
      attempts++
      span.addEvent('keyward.feed.attempt_failed', { 'error.type': type })
    },
    connected() {
      attempts++
      end(true)
    },
    closed: () => end(false),
  }
}
