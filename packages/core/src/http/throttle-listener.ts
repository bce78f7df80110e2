import { KEY_HEADER } from '../key/format.js'
import type { Keyward } from '../service/keyward.js'
import { type NodeHeaders, nodeRequestHeader } from './node-headers.js'
import { errorResponse } from './response.js'
import type { KeywardRequest } from './types.js'

/** A Node.js `IncomingMessage`, as far as {@link throttleListener} reads it. */
export interface NodeListenerRequest extends NodeHeaders {
  readonly method?: string
  readonly url?: string
  readonly socket?: { readonly remoteAddress?: string } | null
}

/** A Node.js `ServerResponse`, as far as {@link throttleListener} writes it. */
export interface NodeListenerResponse {
  writeHead(status: number, headers: Record<string, string>): unknown
  end(body: string): unknown
}

/** The headers that carry a credential: a request with none of them is never throttled here. */
const CREDENTIAL_HEADERS = [KEY_HEADER.developer, KEY_HEADER.project, 'authorization'] as const

const NO_PARAMS: Readonly<Record<string, string | undefined>> = Object.freeze({})

/**
 * Wraps a Node.js request listener (an Express app, `@hono/node-server`'s `getRequestListener`,
 * Fastify's `serverFactory` handler) so that a credentialed request from an address this process
 * already knows to be throttled is answered 429 `rate_limited` before the framework sees it: no
 * routing, no framework request, the response built once. A throttled client's flood then costs
 * the server about half what a valid request costs. Everything else goes to `listener` as it is,
 * and the guards still throttle there (an address over its limit in another process, or whose
 * limit is reached now); without the service's `protection` the listener is returned unchanged.
 *
 * @example
 * ```ts
 * import { createServer } from 'node:http'
 * const server = createServer(throttleListener(keyward, app)) // Express
 * serve({ fetch: app.fetch, createServer: (_, listener) => createServer(throttleListener(keyward, listener)) })
 * ```
 */
export function throttleListener<Q extends NodeListenerRequest, S extends NodeListenerResponse>(
  keyward: Keyward,
  listener: (request: Q, response: S) => void,
): (request: Q, response: S) => void {
  if (typeof keyward?.authenticate !== 'function') {
    throw new TypeError('throttleListener: the first argument must be a Keyward service (createKeyward).')
  }
  if (typeof listener !== 'function') {
    throw new TypeError('throttleListener: the second argument must be a request listener.')
  }
  const { protection } = keyward
  if (!protection) return listener
  return (request, response) => {
    const { headers } = request
    if (
      headers[CREDENTIAL_HEADERS[0]] !== undefined ||
      headers[CREDENTIAL_HEADERS[1]] !== undefined ||
      headers[CREDENTIAL_HEADERS[2]] !== undefined
    ) {
      const neutral: KeywardRequest = {
        method: request.method ?? 'GET',
        url: request.url ?? '/',
        params: NO_PARAMS,
        header: (name) => nodeRequestHeader(request, name),
        address: request.socket?.remoteAddress,
      }
      const refusal = protection.refusalNow(neutral)
      if (refusal) {
        const { status, headers: answer, body } = errorResponse(refusal)
        response.writeHead(status, answer as Record<string, string>)
        response.end(body)
        return
      }
    }
    listener(request, response)
  }
}
