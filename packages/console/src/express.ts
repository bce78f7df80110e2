/**
 * `@keyward/console/express`: the console as Express middleware.
 *
 * @packageDocumentation
 */
import { KEY_HEADER } from '@keyward/core'
import { toKeywardRequest } from '@keyward/express'
import type { RequestHandler } from 'express'
import type { KeywardConsole } from './console.js'

/**
 * Serves the console at its `basePath` and authenticates the signed-in page's calls to the key
 * routes. Use it before the routes, on every path. Behind a proxy that ends TLS, set Express's
 * `trust proxy` so that `req.secure` is true and the cookie is `Secure`.
 *
 * @example
 * ```ts
 * app.use(consoleMiddleware(createConsole(keyward)))
 * app.use(keywardRouter(keyward, { createProject, listProjects }))
 * ```
 */
export function consoleMiddleware(console: KeywardConsole): RequestHandler {
  return (req, res, next) => {
    console.handle(toKeywardRequest(req), { secure: req.secure }).then((answer) => {
      if (answer.type === 'respond') {
        const { status, headers, body } = answer.response
        res.writeHead(status, headers).end(body)
        return
      }
      if (answer.type === 'authenticate') req.headers[KEY_HEADER.developer] = answer.developerKey
      next()
    }, next)
  }
}
