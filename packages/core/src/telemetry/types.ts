/**
 * A value of a span attribute that Keyward sets: one of the scalars OpenTelemetry's API takes.
 *
 * @example
 * ```ts
 * const value: TelemetryAttributeValue = 'ak_Ab3xY'
 * ```
 */
export type TelemetryAttributeValue = string | number | boolean

/** The attributes of a span. */
export type TelemetryAttributes = Readonly<Record<string, TelemetryAttributeValue | undefined>>

/** The options of a span that Keyward starts: OpenTelemetry's `SpanOptions`, the part it uses. */
export interface TelemetrySpanOptions {
  /** OpenTelemetry's `SpanKind`: 0 internal, 2 client. */
  readonly kind?: number
  readonly attributes?: TelemetryAttributes
  /** A `performance.now()` value (OpenTelemetry's `TimeInput` takes one). */
  readonly startTime?: number
  /** A span of its own trace, with no parent (work in the background). */
  readonly root?: boolean
}

/** A span: the part of OpenTelemetry's `Span` that Keyward calls. */
export interface TelemetrySpan {
  setAttribute(key: string, value: TelemetryAttributeValue): unknown
  /** `code` is OpenTelemetry's `SpanStatusCode`: 2 for an error. */
  setStatus(status: { code: number; message?: string }): unknown
  addEvent(name: string, attributes?: TelemetryAttributes): unknown
  /** `endTime` a `performance.now()` value; now when omitted. */
  end(endTime?: number): void
  /** Whether the span is recorded: `false` without an SDK, or when the sampler left it out. */
  isRecording(): boolean
}

/** A tracer: the part of OpenTelemetry's `Tracer` that Keyward calls. */
export interface TelemetryTracer {
  startSpan(name: string, options?: TelemetrySpanOptions): TelemetrySpan
  startActiveSpan<F extends (span: TelemetrySpan) => unknown>(
    name: string,
    options: TelemetrySpanOptions,
    fn: F,
  ): ReturnType<F>
}

/**
 * Where Keyward's tracers come from: OpenTelemetry's `TracerProvider`, such as
 * `trace.getTracerProvider()` of `@opentelemetry/api` (the one the host's SDK registered) or a
 * provider of the host's own. Keyward imports nothing of OpenTelemetry: it calls this.
 *
 * @example
 * ```ts
 * import { trace } from '@opentelemetry/api'
 * const tracerProvider: TelemetryTracerProvider = trace.getTracerProvider()
 * ```
 */
export interface TelemetryTracerProvider {
  getTracer(name: string, version?: string): TelemetryTracer
}

/**
 * Traces of Keyward's work (option `telemetry` of `createKeyward`, and of the PostgreSQL store
 * and its change feed): spans through the host's OpenTelemetry API, with key prefixes and ids,
 * never a key, a hash or metadata. See the observability guide for the spans and attributes.
 *
 * @example
 * ```ts
 * import { trace } from '@opentelemetry/api'
 * const keyward = createKeyward({ store, cache: {}, telemetry: { tracerProvider: trace.getTracerProvider() } })
 * ```
 */
export interface KeywardTelemetry {
  /** Where the spans go: `trace.getTracerProvider()` of `@opentelemetry/api`, or a provider of yours. */
  readonly tracerProvider: TelemetryTracerProvider
  /**
   * Whether verification spans carry the client's address (`client.address`), as the IP allowlist
   * saw it. Default `false`: an address is personal data in many places; allow it knowingly.
   */
  readonly recordClientAddress?: boolean
}
