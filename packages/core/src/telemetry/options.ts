import type { KeywardTelemetry } from './types.js'

/** @internal Checks an option `telemetry` once, when what it traces is built. */
export function checkTelemetryOptions(who: string, telemetry: KeywardTelemetry | undefined): void {
  if (telemetry === undefined) return
  if (typeof telemetry?.tracerProvider?.getTracer !== 'function') {
    throw new TypeError(
      `${who}: option \`telemetry\` must be { tracerProvider }, e.g. { tracerProvider: trace.getTracerProvider() } of @opentelemetry/api.`,
    )
  }
  const address = telemetry.recordClientAddress
  if (address !== undefined && typeof address !== 'boolean') {
    throw new TypeError(`${who}: option \`telemetry.recordClientAddress\` must be a boolean.`)
  }
}
