import { KeywardError } from '../errors/error.js'
import { ErrorType } from '../errors/types.js'
import { errorResponse } from './response.js'
import type { KeywardResponse } from './types.js'

/** A socket of Node.js's `clientError` event, as far as {@link answerClientError} uses it. */
export interface NodeClientErrorSocket {
  readonly writable: boolean
  end(data: string): unknown
  destroy(): unknown
}

// The reason phrases of the statuses answered on a bare socket.
const REASON: Readonly<Record<number, string>> = {
  400: 'Bad Request',
  405: 'Method Not Allowed',
  408: 'Request Timeout',
  413: 'Payload Too Large',
  417: 'Expectation Failed',
  431: 'Request Header Fields Too Large',
}

// What llhttp's error codes mean, in words that help the sender fix the request.
const INVALID: Readonly<Record<string, string>> = {
  HPE_INVALID_METHOD: 'The request method is not one that HTTP/1.1 knows.',
  HPE_INVALID_HEADER_TOKEN:
    'A header name or value holds a character it may not (a NUL, a CR or LF, a space).',
  HPE_INVALID_HEADER_VALUE: 'A header holds a character it may not (a NUL, a CR or LF alone).',
  HPE_LF_EXPECTED: 'A line of the request does not end with CR LF.',
  HPE_CR_EXPECTED: 'A line of the request does not end with CR LF.',
  HPE_INVALID_CHUNK_SIZE: 'The chunked body has a malformed chunk size.',
  HPE_UNEXPECTED_CONTENT_LENGTH:
    'The request has both Content-Length and Transfer-Encoding: send one of them.',
  HPE_INVALID_CONTENT_LENGTH: 'The Content-Length header is not one decimal number.',
  HPE_INVALID_TRANSFER_ENCODING:
    'The Transfer-Encoding header is not one that HTTP/1.1 allows (chunked last).',
  HPE_INVALID_VERSION: 'The request line does not name HTTP/1.0 or HTTP/1.1.',
  HPE_INVALID_URL: 'The request target is not a valid URL path.',
  // What Node's parser lets through, but no route can take (see requestTargetProblem).
  KEYWARD_INVALID_HOST:
    'The Host header is not a host name or address with an optional port (no user info, no spaces).',
  KEYWARD_BACKSLASH_PATH: 'The request path holds a backslash: separate its segments with /.',
  KEYWARD_ASTERISK_TARGET: 'The request target * is not served: send the request to a path.',
}

// A Host header as RFC 9110 allows it, and no more: a name or an IPv4 address, or an IPv6
// address in brackets, then an optional port.
const VALID_HOST = /^(?:[A-Za-z0-9._~-]+|\[[0-9A-Fa-f:.]+\])(?::\d{1,5})?$/

/**
 * Why a request that Node.js's parser accepted cannot be served, as a `code` for
 * {@link clientErrorResponse}, or `undefined` when it can: a Host header with user info, a space
 * or another character no host has; a backslash in the path (before any query); the asterisk
 * form `*` of `OPTIONS *`. A framework would answer these 400 with an empty body, or route them
 * to a path they do not name.
 *
 * @example
 * ```ts
 * requestTargetProblem('/api/v1/projects', 'user@example.com') // 'KEYWARD_INVALID_HOST'
 * ```
 */
export function requestTargetProblem(target: string, host: string | undefined): string | undefined {
  if (target === '*') return 'KEYWARD_ASTERISK_TARGET'
  const query = target.indexOf('?')
  if (target.slice(0, query === -1 ? undefined : query).includes('\\')) return 'KEYWARD_BACKSLASH_PATH'
  if (host && !VALID_HOST.test(host)) return 'KEYWARD_INVALID_HOST'
  return undefined
}

// A connection whose request was refused here is closed after the answer: left this long for the
// client to read it, then destroyed, so that a client that never closes cannot keep it.
const CLOSE_AFTER_MS = 1_000

/**
 * The answer for a request that Node.js's HTTP parser or its timeouts refused before any route
 * (the `code` of a `clientError` event), in the specification's error format: 400
 * `request_invalid` (a NUL or CR in a header, an unknown method, a bad chunk size,
 * `Content-Length` with `Transfer-Encoding`), 408 `request_timeout` (`headersTimeout`,
 * `requestTimeout`), 431 `headers_too_large`, 413 `payload_too_large` (chunk extensions over
 * Node's bound). With `Cache-Control: no-store` and `Connection: close`.
 *
 * @example
 * ```ts
 * const { status, body } = clientErrorResponse({ code: 'HPE_HEADER_OVERFLOW' }) // 431 headers_too_large
 * ```
 */
export function clientErrorResponse(error: { readonly code?: unknown }): KeywardResponse {
  const code = typeof error?.code === 'string' ? error.code : ''
  const refusal =
    code === 'HPE_HEADER_OVERFLOW'
      ? new KeywardError(
          ErrorType.headersTooLarge,
          'The request headers are larger than the server accepts.',
          ['header'],
        )
      : code === 'ERR_HTTP_REQUEST_TIMEOUT'
        ? new KeywardError(
            ErrorType.requestTimeout,
            'The request was not received in time: send it faster.',
            [],
          )
        : code === 'HPE_CHUNK_EXTENSIONS_OVERFLOW'
          ? new KeywardError(
              ErrorType.payloadTooLarge,
              'The chunk extensions are larger than the server accepts.',
              ['body'],
            )
          : new KeywardError(
              ErrorType.requestInvalid,
              INVALID[code] ?? 'The request is not valid HTTP/1.1.',
              [],
            )
  const response = errorResponse(refusal)
  return { ...response, headers: { ...response.headers, connection: 'close' } }
}

/**
 * The answer for an `Expect` header other than `100-continue`: 417 `expectation_failed`, for
 * Node.js's `checkExpectation` event (whose own answer has an empty body).
 *
 * @example
 * ```ts
 * server.on('checkExpectation', (req, res) => {
 *   const { status, headers, body } = expectationFailedResponse()
 *   res.writeHead(status, headers).end(body)
 * })
 * ```
 */
export function expectationFailedResponse(): KeywardResponse {
  return errorResponse(
    new KeywardError(ErrorType.expectationFailed, 'Only Expect: 100-continue is understood.', [
      'header',
      'expect',
    ]),
  )
}

/**
 * A listener for Node.js's `clientError` event that answers in the specification's error
 * format (see {@link clientErrorResponse}) where Node's own answer has an empty body, then
 * closes the connection. A connection the client already reset, or one whose response has
 * begun, is destroyed without an answer, as Node does.
 *
 * @example
 * ```ts
 * import { createServer } from 'node:http'
 * const server = createServer(app)
 * server.on('clientError', answerClientError)
 * ```
 */
export function answerClientError(
  error: { readonly code?: unknown },
  socket: NodeClientErrorSocket & { readonly _httpMessage?: { readonly headersSent?: boolean } | null },
): void {
  if (error?.code === 'ECONNRESET' || !socket.writable || socket._httpMessage?.headersSent) {
    socket.destroy()
    return
  }
  answerOnSocket(socket, clientErrorResponse(error))
}

/**
 * A listener for Node.js's `connect` event (a `CONNECT` request, which Node hands to no request
 * listener and, unheard, closes without a word): 405 `method_not_allowed` in the specification's
 * error format, with `Allow` naming no method, then the connection is closed. Keyward serves no
 * tunnel.
 *
 * @example
 * ```ts
 * server.on('connect', answerConnect)
 * ```
 */
export function answerConnect(_request: unknown, socket: NodeClientErrorSocket): void {
  if (!socket.writable) {
    socket.destroy()
    return
  }
  const response = errorResponse(
    new KeywardError(ErrorType.methodNotAllowed, 'CONNECT is not served here: this is no proxy.', []),
  )
  answerOnSocket(socket, { ...response, headers: { ...response.headers, allow: '', connection: 'close' } })
}

// Writes a whole answer on a bare socket, closes it, and destroys it a moment later.
function answerOnSocket(socket: NodeClientErrorSocket, { status, headers, body }: KeywardResponse): void {
  const head = Object.entries({ ...headers, 'content-length': String(byteLength(body)) })
    .map(([name, value]) => `${name}: ${value}\r\n`)
    .join('')
  socket.end(`HTTP/1.1 ${status} ${REASON[status] ?? 'Error'}\r\n${head}\r\n${body}`)
  const timer = setTimeout(() => socket.destroy(), CLOSE_AFTER_MS)
  ;(timer as { unref?: () => void }).unref?.()
}

const byteLength = (text: string) => new TextEncoder().encode(text).byteLength
