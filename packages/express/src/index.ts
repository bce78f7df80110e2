/**
 * Express middleware and router for Keyward: conversion only. Every decision (which header,
 * which status, which message) is `@keyward/core`'s.
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
  type CreateProject,
  createKeyRoutes,
  type DeveloperAuth,
  type DeveloperGuardOptions,
  developerGuard,
  type ElevatedAuth,
  elevatedGuard,
  type Guard,
  type GuardResult,
  type KeyMetadata,
  type Keyward,
  type KeywardContext,
  type KeywardRequest,
  type KeywardResponse,
  type ListProjects,
  nodeRequestHeader,
  type ProjectAuth,
  type ProjectGuardOptions,
  projectGuard,
  type SecretScanningOptions,
} from '@keyward/core'
import express, { type NextFunction, type Request, type RequestHandler, type Response, Router } from 'express'

declare global {
  namespace Express {
    interface Request {
      /**
       * Who is calling, set by a Keyward middleware: in a handler after `requireProject(keyward)`
       * it is a `ProjectAuth`, after `requireBearer<Claims>(...)` a `BearerAuth<Claims>`, and so
       * on; in a handler no Keyward middleware types, `KeywardContext | undefined`.
       */
      keyward: this extends { res?: { locals: { keyward: infer A } } } ? A : KeywardContext | undefined
    }
  }
}

/**
 * What a Keyward middleware adds to `res.locals`: the context `A`, also at `req.keyward`.
 *
 * @example
 * ```ts
 * const handler: RequestHandler<ParamsDictionary, unknown, unknown, ParsedQs, KeywardLocals<ProjectAuth>> =
 *   (req, res) => res.json({ project: res.locals.keyward.projectId })
 * ```
 */
export interface KeywardLocals<A extends KeywardContext> {
  keyward: A
}

/**
 * A Keyward middleware: in the handlers after it on a route, `req.keyward` (and
 * `res.locals.keyward`) is typed `A`, the context its requirement yields.
 *
 * @example
 * ```ts
 * const guard: KeywardMiddleware<ProjectAuth> = requireProject(keyward)
 * app.get('/api/v1/projects/:project_id/items', guard, (req, res) => res.json(req.keyward.projectId))
 * ```
 */
export type KeywardMiddleware<A extends KeywardContext> = RequestHandler<
  Request['params'],
  // biome-ignore lint/suspicious/noExplicitAny: Express's own default for the response body
  any,
  // biome-ignore lint/suspicious/noExplicitAny: Express's own default for the request body
  any,
  Request['query'],
  KeywardLocals<A>
>

/**
 * Converts an Express request into Keyward's neutral request.
 *
 * @example
 * ```ts
 * const result = await projectGuard(keyward)(toKeywardRequest(req))
 * ```
 */
export function toKeywardRequest(req: Request): KeywardRequest {
  return new ExpressKeywardRequest(req)
}

// Each part is read when a guard asks for it: a guard that answers from the cache reads a header
// and a parameter, and builds nothing else.
class ExpressKeywardRequest implements KeywardRequest {
  readonly #req: Request
  constructor(req: Request) {
    this.#req = req
  }
  get method(): string {
    return this.#req.method
  }
  get url(): string {
    return this.#req.originalUrl
  }
  get params(): Record<string, string | undefined> {
    return this.#req.params as Record<string, string | undefined>
  }
  get address(): string | undefined {
    return this.#req.socket?.remoteAddress
  }
  header(name: string): string | readonly string[] | undefined {
    return nodeRequestHeader(this.#req, name)
  }
  body(): BodySource {
    const req = this.#req
    return req.body === undefined ? { raw: req } : { parsed: req.body }
  }
}

/**
 * Sends a Keyward response as it is.
 *
 * @example
 * ```ts
 * send(res, errorResponse(err))
 * ```
 */
export function send(res: Response, response: KeywardResponse): void {
  res.writeHead(response.status, response.headers).end(response.body)
}

// `req.keyward` reads `res.locals.keyward`, through an accessor on Express's request prototype
// (`express.request`, the documented place for additions to `req`): a property added to each
// request object itself made every protected request about 4 µs slower (`pnpm bench http`).
// Assigning `req.keyward` still works, and gives that request its own property.
const KEYWARD = 'keyward'
if (!Object.hasOwn(express.request, KEYWARD)) {
  Object.defineProperty(express.request, KEYWARD, {
    configurable: true,
    get(this: Request) {
      return this.res?.locals?.keyward
    },
    set(this: Request, value: unknown) {
      Object.defineProperty(this, KEYWARD, { value, writable: true, enumerable: true, configurable: true })
    },
  })
}

/**
 * Turns any Keyward guard into a middleware: it sets `res.locals.keyward` (which `req.keyward`
 * reads) and calls `next()`, or answers the refusal.
 *
 * @example
 * ```ts
 * app.get('/reports', protect(bearerGuard({ verify })), (req, res) => res.json(req.keyward.claims))
 * ```
 */
export function protect<A extends KeywardContext>(guard: Guard<A>): KeywardMiddleware<A> {
  const proceed = (req: Request, res: Response, next: NextFunction, result: GuardResult<A>) => {
    if (!result.ok) return send(res, result.response)
    if (result.headers) res.set(result.headers)
    res.locals.keyward = result.auth
    // A request of another copy of Express, whose prototype has no such accessor, or one whose
    // `req.keyward` was assigned before, gets the context on itself.
    if (Object.hasOwn(req, KEYWARD) || !(KEYWARD in req)) req.keyward = result.auth
    next()
  }
  // An answer known at once (a cached key) goes on without an asynchronous hop.
  return (req, res, next) => {
    const request = new ExpressKeywardRequest(req as Request)
    const known = guard.now?.(request)
    if (known) return proceed(req as Request, res, next, known)
    guard(request).then((result) => proceed(req as Request, res, next, result), next)
  }
}

/**
 * Requires a developer key (`X-Developer-Key`); with `projectParam`, of that project's owner.
 *
 * @example
 * ```ts
 * app.get('/me', requireDeveloper(keyward), (req, res) => res.json({ id: req.keyward.developerId }))
 * ```
 */
export const requireDeveloper = (
  keyward: Keyward,
  options?: DeveloperGuardOptions,
): KeywardMiddleware<DeveloperAuth> => protect<DeveloperAuth>(developerGuard(keyward, options))

/**
 * Requires an API key (`X-API-Key`) of the request's `:project_id`; with `permissions`, those
 * permissions too. To type the key's metadata, use {@link requireProjectWithMetadata}.
 *
 * @example
 * ```ts
 * app.get('/api/v1/projects/:project_id/items', requireProject(keyward), (req, res) =>
 *   res.json({ project: req.keyward.projectId }),
 * )
 * app.get('/reports', requireProject(keyward, { permissions: { allOf: ['reports:read'] } }), handler)
 * ```
 */
// Not generic: a generic call among a route's handlers defers Express's inference of the locals,
// and the handlers after it would lose `req.keyward`'s type.
export const requireProject = (
  keyward: Keyward,
  options?: ProjectGuardOptions,
): KeywardMiddleware<ProjectAuth> => protect<ProjectAuth>(projectGuard(keyward, options))

/**
 * Requires an active API key (`X-API-Key`) on a route without a project in its path: of any
 * project, or with `project` of that one. `req.keyward.projectId` says whose key it is. `M`
 * types the key's metadata (`req.keyward.metadata`): a promise you make, not a check.
 *
 * @example
 * ```ts
 * app.get('/reports', requireKey(keyward), (req, res) => res.json({ project: req.keyward.projectId }))
 * app.get('/plan', requireKey<{ plan: string }>(keyward), (req, res) => res.json(req.keyward.metadata?.plan))
 * ```
 */
export const requireKey = <M extends KeyMetadata = KeyMetadata>(
  keyward: Keyward,
  options?: ApiKeyGuardOptions,
): KeywardMiddleware<ProjectAuth<M>> => protect<ProjectAuth<M>>(apiKeyGuard<M>(keyward, options))

/**
 * {@link requireProject} with the key's metadata typed `M` (`req.keyward.metadata`). The type is
 * a promise you make about what you store, not a check.
 *
 * @example
 * ```ts
 * type Plan = { plan: 'free' | 'pro' }
 * app.get('/reports', requireProjectWithMetadata<Plan>(keyward), (req, res) => res.json(req.keyward.metadata?.plan))
 * ```
 */
export const requireProjectWithMetadata = <M extends KeyMetadata>(
  keyward: Keyward,
  options?: ProjectGuardOptions,
): KeywardMiddleware<ProjectAuth<M>> => protect<ProjectAuth<M>>(projectGuard<M>(keyward, options))

/**
 * Requires both keys: the owner's developer key and an API key of the request's `:project_id`.
 * `M` types the API key's metadata (`req.keyward.metadata`).
 *
 * @example
 * ```ts
 * app.delete('/api/v1/projects/:project_id', requireElevated(keyward), handler)
 * ```
 */
export const requireElevated = <M extends KeyMetadata = KeyMetadata>(
  keyward: Keyward,
  options?: ProjectGuardOptions,
): KeywardMiddleware<ElevatedAuth<M>> => protect<ElevatedAuth<M>>(elevatedGuard<M>(keyward, options))

/**
 * Requires `Authorization: Bearer <token>`, verified by your `verify`.
 *
 * @example
 * ```ts
 * app.delete('/api/v1/generation/generations-v2/:generation_id', requireBearer({ verify }), handler)
 * ```
 */
export const requireBearer = <T>(options: BearerGuardOptions<T>): KeywardMiddleware<BearerAuth<T>> =>
  protect<BearerAuth<T>>(bearerGuard(options))

/** Options of {@link keywardRouter}. */
export interface KeywardRouterOptions {
  /** Creates a project; mounts `POST /api/v1/projects`, which answers it with its default key. */
  readonly createProject?: CreateProject
  /** Lists the calling developer's projects a page at a time; mounts `GET /api/v1/projects`. */
  readonly listProjects?: ListProjects
  /** The largest body read, in bytes. Default 16 KiB. */
  readonly bodyLimit?: number
  /**
   * Mounts `POST /api/v1/secret-scanning/github`, which revokes keys that GitHub's secret
   * scanning reports as leaked. It checks a signature over the body as sent, so mount the
   * router before a JSON body parser.
   */
  readonly secretScanning?: SecretScanningOptions
}

const METHODS = { GET: 'get', POST: 'post', PATCH: 'patch', DELETE: 'delete' } as const

/**
 * A router with the key-management endpoints: developer keys, project API keys, with
 * `createProject` and `listProjects` project creation and listing, and with `secretScanning` the leaked-key alert endpoint. It reads bodies itself; a body parser mounted before it
 * is used when it has already parsed the body.
 *
 * @example
 * ```ts
 * app.use(keywardRouter(keyward, { createProject }))
 * ```
 */
export function keywardRouter(keyward: Keyward, options: KeywardRouterOptions = {}): Router {
  const router = Router()
  for (const route of createKeyRoutes(keyward, options)) {
    const method = METHODS[route.method]
    router[method](route.path, (req, res, next) => {
      route.handle(toKeywardRequest(req)).then((response) => send(res, response), next)
    })
  }
  return router
}

export { keywardErrorHandler, keywardNotFound } from './errors.js'
