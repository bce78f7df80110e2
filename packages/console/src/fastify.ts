/**
 * `@keyward/console/fastify`: the console as a Fastify `onRequest` hook.
 *
 * @packageDocumentation
 */
import { KEY_HEADER } from '@keyward/core'
import { toKeywardRequest } from '@keyward/fastify'
import type { onRequestHookHandler } from 'fastify'
import type { KeywardConsole } from './console.js'

/**
 * Serves the console at its `basePath` and authenticates the signed-in page's calls to the key
 * routes. Add it to the root instance, so that it runs before every route (and before the
 * not-found handler, for the console's own paths).
 *
 * @example
 * ```ts
 * fastify.addHook('onRequest', consoleHook(createConsole(keyward)))
 * await fastify.register(keywardPlugin, { keyward, createProject, listProjects })
 * ```
 */
export function consoleHook(console: KeywardConsole): onRequestHookHandler {
  return async (request, reply) => {
    const answer = await console.handle(toKeywardRequest(request), { secure: request.protocol === 'https' })
    if (answer.type === 'respond') {
      const { status, headers, body } = answer.response
      return reply
        .code(status)
        .headers(headers)
        .send(typeof body === 'string' ? body : Buffer.from(body))
    }
    if (answer.type === 'authenticate') request.headers[KEY_HEADER.developer] = answer.developerKey
  }
}
