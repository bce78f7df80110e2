import { lookup as dnsLookup } from 'node:dns'
import http from 'node:http'
import https from 'node:https'
import { isIP } from 'node:net'
import { RequestFilteringHttpAgent, RequestFilteringHttpsAgent } from 'request-filtering-agent'
import { guardedLookup, refusalOf, type WebhookAddressOptions } from './address.js'

/** How long a delivery may take, from connection to the last byte read. */
export const DELIVERY_TIMEOUT_MS = 10_000
/** How much of an answer is read: the rest is not. */
export const MAX_ANSWER_BYTES = 64 * 1024
/** How much of an answer the delivery log keeps. */
export const LOGGED_ANSWER_BYTES = 1024

/** What one POST got: its status (`null`: none), and the first 1 KB of the answer or why there was none. */
export interface WebhookAnswer {
  readonly status: number | null
  readonly response: string
}

/** Options of {@link postWebhook}. */
export interface PostWebhookOptions extends WebhookAddressOptions {
  /** Default {@link DELIVERY_TIMEOUT_MS}. */
  readonly timeoutMs?: number
}

/**
 * POSTs one signed delivery: through an agent that refuses, at connection, an address that is
 * not allowed (`request-filtering-agent`: a name that resolved elsewhere at registration is
 * checked again); no redirect followed (a 3xx is a failed attempt); at most `timeoutMs` in all;
 * the answer read up to 64 KB. Never throws: a refusal, a timeout or a reset is an answer without
 * a status.
 *
 * @example
 * ```ts
 * const { status } = await postWebhook('https://hooks.example.com/keyward', headers, body)
 * ```
 */
export function postWebhook(
  url: string,
  headers: Readonly<Record<string, string>>,
  body: string,
  options: PostWebhookOptions = {},
): Promise<WebhookAnswer> {
  const target = new URL(url)
  // The agent refuses what is not public unicast (unless allowed), by name and by IP literal; the
  // resolver refuses link-local and metadata addresses in any case, and an IP literal is checked here.
  const filter = { allowPrivateIPAddress: options.allowPrivate === true }
  const literal = target.hostname.replace(/^\[(.*)\]$/, '$1')
  const refusal = isIP(literal) === 0 ? null : refusalOf(literal, options)
  if (refusal !== null)
    return Promise.resolve({ status: null, response: `${literal} is refused (${refusal}).` })
  const lookup = guardedLookup(options.lookup ?? dnsLookup, options)
  const secure = target.protocol === 'https:'
  const agent = secure ? new RequestFilteringHttpsAgent(filter) : new RequestFilteringHttpAgent(filter)
  const send = secure ? https.request : http.request
  return new Promise((resolve) => {
    let settled = false
    const finish = (answer: WebhookAnswer) => {
      if (settled) return
      settled = true
      clearTimeout(timer)
      agent.destroy()
      resolve(answer)
    }
    const request = send(target, {
      method: 'POST',
      agent,
      headers: { ...headers, 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
      lookup,
    })
    const timer = setTimeout(() => {
      request.destroy()
      finish({ status: null, response: `No answer within ${options.timeoutMs ?? DELIVERY_TIMEOUT_MS} ms.` })
    }, options.timeoutMs ?? DELIVERY_TIMEOUT_MS)
    request.on('error', (error) =>
      finish({ status: null, response: error.message.slice(0, LOGGED_ANSWER_BYTES) }),
    )
    request.on('response', (response) => {
      const chunks: Buffer[] = []
      let read = 0
      const done = () =>
        finish({
          status: response.statusCode ?? null,
          response: Buffer.concat(chunks).subarray(0, LOGGED_ANSWER_BYTES).toString('utf8'),
        })
      response.on('data', (chunk: Buffer) => {
        if (read >= MAX_ANSWER_BYTES) return
        chunks.push(chunk.subarray(0, MAX_ANSWER_BYTES - read))
        read += chunk.length
        // Enough read: the rest is not waited for.
        if (read >= MAX_ANSWER_BYTES) {
          done()
          response.destroy()
        }
      })
      response.on('end', done)
      response.on('error', done)
    })
    request.end(body)
  })
}
