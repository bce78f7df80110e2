import { isKeywardError } from '../errors/error.js'
import type {
  KeywardTelemetry,
  TelemetryAttributes,
  TelemetrySpan,
  TelemetrySpanOptions,
  TelemetryTracer,
} from './types.js'

/** OpenTelemetry's `SpanKind.INTERNAL` and `SpanKind.CLIENT`, and `SpanStatusCode.ERROR`. */
export const SPAN_INTERNAL = 0
export const SPAN_CLIENT = 2
const STATUS_ERROR = 2

/** @internal The tracer of a package, from the host's provider; `undefined` without telemetry. */
export function tracerOf(
  telemetry: KeywardTelemetry | undefined,
  scope: string,
): TelemetryTracer | undefined {
  return telemetry?.tracerProvider.getTracer(scope)
}

/**
 * @internal Now, as a span's time: `performance.now()`, which OpenTelemetry's `TimeInput` takes
 * (to the microsecond where the runtime tells it).
 */
export const spanTime = (): number => performance.now()

/**
 * The `error.type` of a failure, as OpenTelemetry's conventions ask: a Keyward error's `type`,
 * else the error's `code` (a PostgreSQL SQLSTATE such as `57P01`, a system error such as
 * `ECONNREFUSED`), else its class name, else `_OTHER`. Never its message: a database's message
 * may quote the values of a statement.
 *
 * @example
 * ```ts
 * telemetryErrorType(new QueryTimeoutError(3000)) // 'QueryTimeoutError'
 * telemetryErrorType(Object.assign(new Error('...'), { code: '57P01' })) // '57P01'
 * ```
 */
export function telemetryErrorType(error: unknown): string {
  if (isKeywardError(error)) return error.type
  if (typeof error !== 'object' || error === null) return '_OTHER'
  const { code, name } = error as { code?: unknown; name?: unknown }
  if (typeof code === 'string' && code !== '') return code
  return typeof name === 'string' && name !== '' ? name : '_OTHER'
}

// A PostgreSQL SQLSTATE (and MySQL's): five digits or capitals.
const SQLSTATE = /^[0-9A-Z]{5}$/

/**
 * @internal Marks a span failed with `error.type`; a database call's span also gets the
 * database's code of the error (`db.response.status_code`), when it has one.
 */
export function spanFailed(span: TelemetrySpan, error: unknown, database = false): void {
  const type = telemetryErrorType(error)
  span.setAttribute('error.type', type)
  if (database && SQLSTATE.test(type)) span.setAttribute('db.response.status_code', type)
  span.setStatus({ code: STATUS_ERROR })
}

/**
 * @internal Runs `run` in an active span (its spans nest under it), ends the span when the
 * promise settles, and marks it failed when it rejects; `done` adds what the result tells.
 */
export function inSpan<T>(
  tracer: TelemetryTracer,
  name: string,
  options: TelemetrySpanOptions,
  run: () => Promise<T>,
  done?: (span: TelemetrySpan, result: T) => void,
  database = false,
): Promise<T> {
  return tracer.startActiveSpan(name, options, (span) => {
    // Without an SDK, or sampled out: the call alone.
    if (!span.isRecording()) {
      span.end()
      return run()
    }
    let running: Promise<T>
    try {
      running = run()
    } catch (error) {
      spanFailed(span, error, database)
      span.end()
      throw error
    }
    return running.then(
      (result) => {
        done?.(span, result)
        span.end()
        return result
      },
      (error: unknown) => {
        spanFailed(span, error, database)
        span.end()
        throw error
      },
    )
  })
}

/**
 * What {@link traceStoreCalls} says of a store: its database, after OpenTelemetry's conventions
 * for database client spans, and the methods to trace.
 */
export interface StoreTelemetry {
  /** The instrumentation scope of the spans: the store's package, e.g. `@keyward/postgres`. */
  readonly scope: string
  /** `db.system.name`, e.g. `postgresql`. */
  readonly system: string
  /** `db.namespace`, when the store knows it without asking the database, e.g. the schema. */
  readonly namespace?: string
  /**
   * The methods to trace, each with the collection it works on (`db.collection.name`, e.g.
   * `keyward.api_keys`), or `''` when it works on several.
   */
  readonly operations: Readonly<Record<string, string>>
}

/**
 * Traces the calls of a key store's methods: one span per call, named after OpenTelemetry's
 * database conventions (`findKeyByHash keyward.api_keys`), of kind client, with `db.system.name`,
 * `db.operation.name` (the method), `db.collection.name` and `db.namespace`, and `error.type` when
 * it fails (and `db.response.status_code` when that is the database's SQLSTATE). It
 * records no argument and no result: a key's hash, metadata and the rows stay out of the trace.
 * The methods are replaced on `store` itself (own properties), so a store traces itself when it
 * is built; without `telemetry` nothing changes.
 *
 * @example
 * ```ts
 * class MyKeyStore implements KeyStore {
 *   constructor(db: Db, options: { telemetry?: KeywardTelemetry } = {}) {
 *     traceStoreCalls(this, options.telemetry, {
 *       scope: 'my-key-store',
 *       system: 'sqlite',
 *       operations: { findKeyByHash: 'api_keys', insertKey: 'api_keys' },
 *     })
 *   }
 * }
 * ```
 */
export function traceStoreCalls<S extends object>(
  store: S,
  telemetry: KeywardTelemetry | undefined,
  describe: StoreTelemetry,
): S {
  const tracer = tracerOf(telemetry, describe.scope)
  if (!tracer) return store
  const methods = store as unknown as Record<string, unknown>
  for (const [operation, collection] of Object.entries(describe.operations)) {
    const method = methods[operation]
    if (typeof method !== 'function') continue
    const name = collection === '' ? operation : `${operation} ${collection}`
    const attributes: TelemetryAttributes = {
      'db.system.name': describe.system,
      'db.operation.name': operation,
      ...(describe.namespace === undefined ? {} : { 'db.namespace': describe.namespace }),
      ...(collection === '' ? {} : { 'db.collection.name': collection }),
    }
    const options = { kind: SPAN_CLIENT, attributes }
    methods[operation] = function (this: unknown, ...args: unknown[]) {
      const call = () => Promise.resolve(method.apply(this, args))
      return inSpan(tracer, name, options, call, undefined, true)
    }
  }
  return store
}
