import type { IncomingMessage } from 'node:http'
import { type KeywardRequest, type KeywardResponse, nodeRequestHeader } from '@keyward/core'
import type { HttpServer } from '@nestjs/common'

/** What Nest's request is on either platform: Express's request, or Fastify's with its Node request in `raw`. */
interface PlatformRequest {
  readonly raw?: IncomingMessage
  readonly originalUrl?: string
  readonly url?: string
  readonly params?: unknown
  readonly body?: unknown
}

const isStream = (body: unknown): body is AsyncIterable<Uint8Array> =>
  typeof body === 'object' && body !== null && Symbol.asyncIterator in body

/**
 * Converts Nest's request, on platform-express or platform-fastify, into Keyward's neutral
 * request. A body the platform's parser already parsed is taken as it is; otherwise Keyward reads
 * the stream itself.
 *
 * @example
 * ```ts
 * const result = await projectGuard(keyward)(toKeywardRequest(context.switchToHttp().getRequest()))
 * ```
 */
export function toKeywardRequest(request: unknown): KeywardRequest {
  const platform = request as PlatformRequest
  const raw = platform.raw ?? (request as IncomingMessage)
  return {
    method: raw.method ?? 'GET',
    url: platform.originalUrl ?? platform.url ?? raw.url ?? '/',
    params: (platform.params ?? {}) as Record<string, string | undefined>,
    address: raw.socket?.remoteAddress,
    header: (name) => nodeRequestHeader(raw, name),
    body: () => {
      const { body } = platform
      return body === undefined || isStream(body) ? { raw: body ?? raw } : { parsed: body }
    },
  }
}

/**
 * Sends a Keyward response as it is, through Nest's HTTP adapter (`HttpAdapterHost.httpAdapter`),
 * so it works on either platform.
 *
 * @example
 * ```ts
 * send(this.adapterHost.httpAdapter, host.switchToHttp().getResponse(), notFoundResponse())
 * ```
 */
export function send(adapter: HttpServer, response: unknown, answer: KeywardResponse): void {
  for (const [name, value] of Object.entries(answer.headers)) adapter.setHeader(response, name, value)
  adapter.reply(response, answer.body, answer.status)
}
