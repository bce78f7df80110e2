/**
 * Express middleware and router for Keyward: conversion only. Every decision (which header,
 * which status, which message) is `@keyward/core`'s.
 *
 * @packageDocumentation
 */
import {
  type BearerAuth,
  type BearerGuardOptions,
  bearerGuard,
  type CreateProject,
  createKeyRoutes,
  type DeveloperAuth,
  type DeveloperGuardOptions,
  developerGuard,
  type ElevatedAuth,
  elevatedGuard,
  errorResponse,
  type Guard,
  isKeywardError,
  type Keyward,
  type KeywardContext,
  type KeywardRequest,
  type KeywardResponse,
  nodeRequestHeader,
  type ProjectAuth,
  type ProjectGuardOptions,
  projectGuard,
} from '@keyward/core'
import { type ErrorRequestHandler, type Request, type RequestHandler, type Response, Router } from 'express'

declare global {
  namespace Express {
    interface Request {
      /** Who is calling, set by a Keyward middleware (`requireProject`, ...). Switch on `scope`. */
      keyward?: KeywardContext
    }
  }
}

/**
 * Converts an Express request into Keyward's neutral request.
 *
 * @example
 * ```ts
 * const result = await projectGuard(keyward)(toKeywardRequest(req))
 * ```
 */
export function toKeywardRequest(req: Request): KeywardRequest {
  return {
    method: req.method,
    url: req.originalUrl,
    params: req.params as Record<string, string | undefined>,
    header: (name) => nodeRequestHeader(req, name),
    body: () => (req.body === undefined ? { raw: req } : { parsed: req.body }),
    address: req.socket?.remoteAddress,
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

/**
 * Turns any Keyward guard into a middleware: it sets `req.keyward` and calls `next()`, or
 * answers the refusal.
 *
 * @example
 * ```ts
 * app.get('/reports', protect(bearerGuard({ verify })), (req, res) => res.json(req.keyward))
 * ```
 */
export function protect<A extends KeywardContext>(guard: Guard<A>): RequestHandler {
  return (req, res, next) => {
    guard(toKeywardRequest(req)).then((result) => {
      if (!result.ok) return send(res, result.response)
      req.keyward = result.auth
      next()
    }, next)
  }
}

/**
 * Requires a developer key (`X-Developer-Key`); with `projectParam`, of that project's owner.
 *
 * @example
 * ```ts
 * app.get('/me', requireDeveloper(keyward), (req, res) => res.json({ id: req.keyward?.developerId }))
 * ```
 */
export const requireDeveloper = (keyward: Keyward, options?: DeveloperGuardOptions): RequestHandler =>
  protect<DeveloperAuth>(developerGuard(keyward, options))

/**
 * Requires an API key (`X-API-Key`) of the request's `:project_id`.
 *
 * @example
 * ```ts
 * app.get('/api/v1/projects/:project_id/items', requireProject(keyward), handler)
 * ```
 */
export const requireProject = (keyward: Keyward, options?: ProjectGuardOptions): RequestHandler =>
  protect<ProjectAuth>(projectGuard(keyward, options))

/**
 * Requires both keys: the owner's developer key and an API key of the request's `:project_id`.
 *
 * @example
 * ```ts
 * app.delete('/api/v1/projects/:project_id', requireElevated(keyward), handler)
 * ```
 */
export const requireElevated = (keyward: Keyward, options?: ProjectGuardOptions): RequestHandler =>
  protect<ElevatedAuth>(elevatedGuard(keyward, options))

/**
 * Requires `Authorization: Bearer <token>`, verified by your `verify`.
 *
 * @example
 * ```ts
 * app.delete('/api/v1/generation/generations-v2/:generation_id', requireBearer({ verify }), handler)
 * ```
 */
export const requireBearer = <T>(options: BearerGuardOptions<T>): RequestHandler =>
  protect<BearerAuth<T>>(bearerGuard(options))

/** Options of {@link keywardRouter}. */
export interface KeywardRouterOptions {
  /** Creates a project; mounts `POST /api/v1/projects`, which answers it with its default key. */
  readonly createProject?: CreateProject
  /** The largest body read, in bytes. Default 16 KiB. */
  readonly bodyLimit?: number
}

/**
 * A router with the key-management endpoints: developer keys, project API keys and, with
 * `createProject`, project creation. It reads bodies itself; a body parser mounted before it
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
    const method = route.method === 'GET' ? 'get' : route.method === 'POST' ? 'post' : 'delete'
    router[method](route.path, (req, res, next) => {
      route.handle(toKeywardRequest(req)).then((response) => send(res, response), next)
    })
  }
  return router
}

/**
 * An error middleware that answers a `KeywardError` thrown by your routes in the specification's
 * format, and passes any other error on.
 *
 * @example
 * ```ts
 * app.use(keywardErrorHandler())
 * ```
 */
export function keywardErrorHandler(): ErrorRequestHandler {
  return (err, _req, res, next) => (isKeywardError(err) ? send(res, errorResponse(err)) : next(err))
}
