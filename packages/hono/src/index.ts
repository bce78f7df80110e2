/**
 * Hono middleware and routes for Keyward: conversion only, on Web-standard APIs, so it runs
 * on Node, Bun, Deno and edge workers alike. Every decision is `@keyward/core`'s.
 *
 * @packageDocumentation
 */
import {
  type ApiKeyGuardOptions,
  apiKeyGuard,
  type BearerAuth,
  type BearerGuardOptions,
  type BodySource,
  bearerGuard,
  createKeyRoutes,
  type DeveloperAuth,
  type DeveloperGuardOptions,
  developerGuard,
  type ElevatedAuth,
  elevatedGuard,
  errorResponse,
  type Guard,
  type GuardResult,
  isKeywardError,
  type KeyMetadata,
  type KeyRoutesOptions,
  type Keyward,
  type KeywardContext,
  type KeywardRequest,
  type KeywardResponse,
  notFoundResponse,
  type ProjectAuth,
  type ProjectGuardOptions,
  projectGuard,
} from '@keyward/core'
import {
  type Context,
  type ErrorHandler,
  Hono,
  type MiddlewareHandler,
  type Next,
  type NotFoundHandler,
} from 'hono'
import { HTTPException } from 'hono/http-exception'
import type { ContentfulStatusCode } from 'hono/utils/http-status'

declare module 'hono' {
  interface ContextVariableMap {
    /**
     * Who is calling, set by a Keyward middleware: in a handler after `requireProject(keyward)`
     * it is a `ProjectAuth`, and so on; in a handler no Keyward middleware types (no guard on the
     * route), `KeywardContext | undefined`.
     */
    keyward: KeywardContext | undefined
  }
}

/**
 * The environment a Keyward middleware adds: `c.get('keyward')` is the context `A`. Give it to
 * a sub-app or handler that only guarded routes reach, e.g. `new Hono<KeywardEnv<ProjectAuth>>()`.
 */
export type KeywardEnv<A extends KeywardContext = KeywardContext> = { Variables: { keyward: A } }

/**
 * The Node request of `@hono/node-server`, in `c.env.incoming`: its socket tells the client's
 * address, and it is the body's stream.
 */
type NodeBindings =
  | {
      incoming?: {
        socket?: { remoteAddress?: string }
        readableDidRead?: boolean
        [Symbol.asyncIterator]?: () => AsyncIterator<Uint8Array | string>
      }
    }
  | undefined

/**
 * Converts a Hono context into Keyward's neutral request (Web `Request` and `Headers` only, plus
 * the socket's address when `@hono/node-server` serves the app).
 *
 * @example
 * ```ts
 * const result = await projectGuard(keyward)(toKeywardRequest(c))
 * ```
 */
export function toKeywardRequest(c: Context): KeywardRequest {
  return new HonoKeywardRequest(c)
}

// Each part is read when a guard asks for it: a guard that answers from the cache reads a header
// and a parameter, and builds nothing else.
class HonoKeywardRequest implements KeywardRequest {
  readonly #c: Context
  constructor(c: Context) {
    this.#c = c
  }
  get method(): string {
    return this.#c.req.raw.method
  }
  get url(): string {
    return this.#c.req.raw.url
  }
  get params(): Record<string, string | undefined> {
    return this.#c.req.param() as Record<string, string | undefined>
  }
  param(name: string): string | undefined {
    return this.#c.req.param(name)
  }
  get address(): string | undefined {
    return (this.#c.env as NodeBindings)?.incoming?.socket?.remoteAddress
  }
  header(name: string): string | undefined {
    return this.#c.req.raw.headers.get(name) ?? undefined
  }
  body(): BodySource {
    const raw = this.#c.req.raw
    // On @hono/node-server, the Node request itself while no one has read the body: `raw.body`
    // builds a whole Web Request around it first, which costs more than the rest of a small
    // request (see bench/). Once anything read it, the Web body is the one to read.
    const incoming = (this.#c.env as NodeBindings)?.incoming
    if (incoming?.[Symbol.asyncIterator] && incoming.readableDidRead === false && !raw.bodyUsed) {
      return { raw: incoming as AsyncIterable<Uint8Array | string> }
    }
    return { raw: raw.body }
  }
}

/**
 * Sends a Keyward response as it is.
 *
 * @example
 * ```ts
 * return send(c, errorResponse(err))
 * ```
 */
export function send(c: Context, response: KeywardResponse): Response {
  return c.body(response.body, response.status as ContentfulStatusCode, response.headers)
}

/**
 * Turns any Keyward guard into a middleware; `c.get('keyward')` is then typed by the guard.
 *
 * @example
 * ```ts
 * app.get('/reports', protect(bearerGuard({ verify })), (c) => c.json(c.get('keyward').claims))
 * ```
 */
export function protect<A extends KeywardContext>(guard: Guard<A>): MiddlewareHandler<KeywardEnv<A>> {
  const proceed = (
    c: Context<KeywardEnv<A>>,
    next: Next,
    result: GuardResult<A>,
  ): Promise<Response | undefined> => {
    if (!result.ok) return Promise.resolve(send(c, result.response))
    if (result.headers) for (const [name, value] of Object.entries(result.headers)) c.header(name, value)
    c.set('keyward', result.auth)
    // Hono's `next` resolves to nothing: the route's response is on the context.
    return next() as Promise<undefined>
  }
  // An answer known at once (a cached key) goes on without an asynchronous hop.
  return (c, next) => {
    const request = new HonoKeywardRequest(c)
    const known = guard.now?.(request)
    if (known) return proceed(c, next, known)
    return guard(request).then((result) => proceed(c, next, result))
  }
}

/**
 * Requires a developer key (`X-Developer-Key`); with `projectParam`, of that project's owner.
 *
 * @example
 * ```ts
 * app.get('/me', requireDeveloper(keyward), (c) => c.json({ id: c.get('keyward').developerId }))
 * ```
 */
export const requireDeveloper = (
  keyward: Keyward,
  options?: DeveloperGuardOptions,
): MiddlewareHandler<KeywardEnv<DeveloperAuth>> => protect<DeveloperAuth>(developerGuard(keyward, options))

/**
 * Requires an API key (`X-API-Key`) of the request's `:project_id`; with `permissions`, those
 * permissions too. `M` types the key's metadata (`c.get('keyward').metadata`).
 *
 * @example
 * ```ts
 * app.get('/api/v1/projects/:project_id/items', requireProject(keyward), (c) => c.json(c.get('keyward')))
 * app.get('/reports', requireProject<{ plan: string }>(keyward, { permissions: { allOf: ['reports:read'] } }), handler)
 * ```
 */
export const requireProject = <M extends KeyMetadata = KeyMetadata>(
  keyward: Keyward,
  options?: ProjectGuardOptions,
): MiddlewareHandler<KeywardEnv<ProjectAuth<M>>> => protect<ProjectAuth<M>>(projectGuard<M>(keyward, options))

/**
 * Requires an active API key (`X-API-Key`) on a route without a project in its path: of any
 * project, or with `project` of that one. `c.get('keyward').projectId` says whose key it is.
 *
 * @example
 * ```ts
 * app.get('/reports', requireKey(keyward), (c) => c.json({ project: c.get('keyward').projectId }))
 * ```
 */
export const requireKey = <M extends KeyMetadata = KeyMetadata>(
  keyward: Keyward,
  options?: ApiKeyGuardOptions,
): MiddlewareHandler<KeywardEnv<ProjectAuth<M>>> => protect<ProjectAuth<M>>(apiKeyGuard<M>(keyward, options))

/**
 * Requires both keys: the owner's developer key and an API key of the request's `:project_id`.
 *
 * @example
 * ```ts
 * app.delete('/api/v1/projects/:project_id', requireElevated(keyward), handler)
 * ```
 */
export const requireElevated = <M extends KeyMetadata = KeyMetadata>(
  keyward: Keyward,
  options?: ProjectGuardOptions,
): MiddlewareHandler<KeywardEnv<ElevatedAuth<M>>> =>
  protect<ElevatedAuth<M>>(elevatedGuard<M>(keyward, options))

/**
 * Requires `Authorization: Bearer <token>`, verified by your `verify`.
 *
 * @example
 * ```ts
 * app.use('/api/v1/generation/*', requireBearer({ verify }))
 * ```
 */
export const requireBearer = <T>(
  options: BearerGuardOptions<T>,
): MiddlewareHandler<KeywardEnv<BearerAuth<T>>> => protect<BearerAuth<T>>(bearerGuard(options))

/**
 * An app with the key-management endpoints: developer keys, project API keys, with
 * `createProject` project creation, and with `secretScanning` the leaked-key alert endpoint. Mount it with `app.route('/', ...)`.
 *
 * @example
 * ```ts
 * app.route('/', keywardRoutes(keyward, { createProject }))
 * ```
 */
export function keywardRoutes(keyward: Keyward, options: KeyRoutesOptions = {}): Hono {
  const app = new Hono()
  for (const route of createKeyRoutes(keyward, options)) {
    app.on(route.method, route.path, async (c) => send(c, await route.handle(toKeywardRequest(c))))
  }
  return app
}

/**
 * An `onError` handler that answers a `KeywardError` in the specification's format and lets an
 * `HTTPException` answer for itself. Any other error, the host's own, is thrown on untouched:
 * to the parent app's `onError` when this app is mounted with `app.route`, or to the server
 * (`@hono/node-server` then answers 500 and reports it).
 *
 * @example
 * ```ts
 * app.onError(keywardOnError)
 * ```
 */
export const keywardOnError: ErrorHandler = (error, c) => {
  if (isKeywardError(error)) return send(c, errorResponse(error))
  if (error instanceof HTTPException) return error.getResponse()
  throw error
}

/**
 * A not-found handler: 404 `not_found` in the specification's format.
 *
 * @example
 * ```ts
 * app.notFound(keywardNotFound)
 * ```
 */
export const keywardNotFound: NotFoundHandler = (c) => send(c, notFoundResponse())
