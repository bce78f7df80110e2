import type { ErrorDetail } from '@keyward/core/client'
import { KeywardApiError, KeywardNetworkError } from './errors.js'

/** The part of `fetch` the client uses; inject one for tests or custom transports. */
export type FetchLike = (url: string, init: RequestInit) => Promise<Response>

/** @internal Where and how requests go. */
export interface Transport {
  readonly baseUrl: string
  readonly fetch: FetchLike
  /** Milliseconds; `Infinity` for none. */
  readonly timeoutMs: number
  /** `fetch`'s `credentials`, when the client sets it (`same-origin` in session mode). */
  readonly credentials?: 'same-origin'
}

/** @internal One request. */
export interface Call {
  readonly method: 'GET' | 'POST' | 'PATCH' | 'DELETE'
  /** The API path, ids already encoded. */
  readonly path: string
  readonly headers: Readonly<Record<string, string>>
  readonly body?: unknown
  readonly signal?: AbortSignal | undefined
}

function isDetail(value: unknown): value is ErrorDetail {
  if (typeof value !== 'object' || value === null) return false
  const { loc, msg, type } = value as Record<string, unknown>
  return (
    Array.isArray(loc) &&
    loc.every((part) => typeof part === 'string') &&
    typeof msg === 'string' &&
    typeof type === 'string'
  )
}

/** The well-formed elements of a body's `detail` array; none if the body is not an error body. */
function readDetail(body: unknown): ErrorDetail[] {
  const detail = typeof body === 'object' && body !== null ? (body as { detail?: unknown }).detail : undefined
  if (!Array.isArray(detail)) return []
  return detail.filter(isDetail).map((d) => ({ loc: [...d.loc], msg: d.msg, type: d.type }))
}

function parseJson(text: string): { ok: true; value: unknown } | { ok: false } {
  try {
    return { ok: true, value: JSON.parse(text) }
  } catch {
    return { ok: false }
  }
}

function apiError(call: Call, response: Response, text: string): KeywardApiError {
  const where = `${call.method} ${call.path}`
  const parsed = parseJson(text)
  const detail = parsed.ok ? readDetail(parsed.value) : []
  const first = detail[0]
  let message: string
  if (response.status >= 300 && response.status < 400) {
    message =
      `${where} answered ${response.status}, a redirect. The client does not follow redirects, so that keys ` +
      'are never sent to another address: set the base URL to where the server answers.'
  } else if (response.ok) {
    message = `${where} answered ${response.status} with a body that is not JSON.`
  } else if (first) {
    message = `${where} failed with ${response.status} ${first.type}: ${first.msg}`
  } else {
    message = `${where} failed with ${response.status}${response.statusText ? ` ${response.statusText}` : ''}.`
  }
  return new KeywardApiError({
    status: response.status,
    detail,
    method: call.method,
    path: call.path,
    message,
  })
}

/**
 * @internal Sends one request and returns the parsed JSON body of a 2xx answer. Throws
 * {@link KeywardApiError} for any other answer and {@link KeywardNetworkError} for none.
 */
export async function send<T>(transport: Transport, call: Call): Promise<T> {
  const timeout = Number.isFinite(transport.timeoutMs) ? AbortSignal.timeout(transport.timeoutMs) : undefined
  const signals = [call.signal, timeout].filter((s): s is AbortSignal => s !== undefined)
  const headers: Record<string, string> = { accept: 'application/json', ...call.headers }
  if (call.body !== undefined) headers['content-type'] = 'application/json'
  let response: Response
  let text: string
  try {
    response = await transport.fetch(transport.baseUrl + call.path, {
      method: call.method,
      headers,
      body: call.body === undefined ? undefined : JSON.stringify(call.body),
      redirect: 'manual',
      ...(transport.credentials ? { credentials: transport.credentials } : {}),
      signal: signals.length > 1 ? AbortSignal.any(signals) : signals[0],
    })
    text = await response.text()
  } catch (error) {
    if (call.signal?.aborted) throw call.signal.reason
    const timedOut = timeout?.aborted === true
    throw new KeywardNetworkError({
      reason: timedOut ? 'timeout' : 'unreachable',
      method: call.method,
      path: call.path,
      baseUrl: transport.baseUrl,
      message: timedOut
        ? `${call.method} ${call.path} got no answer from ${transport.baseUrl} within ${transport.timeoutMs} ms.`
        : `${call.method} ${call.path} could not reach the server at ${transport.baseUrl}.`,
      cause: error,
    })
  }
  if (!response.ok) throw apiError(call, response, text)
  const parsed = parseJson(text)
  if (!parsed.ok) throw apiError(call, response, text)
  return parsed.value as T
}
