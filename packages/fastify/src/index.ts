/**
 * Fastify plugin and `onRequest` hooks for Keyward: conversion only. Every decision (which
 * header, which status, which message) is `@keyward/core`'s.
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
  type Guard,
  type GuardResult,
  type KeyMetadata,
  type KeyRoutesOptions,
  type Keyward,
  type KeywardContext,
  type KeywardRequest,
  type KeywardResponse,
  nodeRequestHeader,
  type ProjectAuth,
  type ProjectGuardOptions,
  projectGuard,
} from '@keyward/core'
import type {
  FastifyPluginAsync,
  FastifyReply,
  FastifyRequest,
  HookHandlerDoneFunction,
  onRequestHookHandler,
  RawReplyDefaultExpression,
  RawRequestDefaultExpression,
  RawServerDefault,
  RouteGenericInterface,
  RouteOptions,
} from 'fastify'
import fp from 'fastify-plugin'

/** A type-only mark: the context a Keyward hook gives the route it guards. */
declare const guarded: unique symbol

/**
 * The route config of a route guarded by a Keyward hook: its context type, and nothing at run
 * time. Name it when you give a route's generics explicitly.
 *
 * @example
 * ```ts
 * fastify.get<{ Params: { project_id: string } }, KeywardRouteConfig<ProjectAuth>>(
 *   '/api/v1/projects/:project_id/items',
 *   { onRequest: requireProject(keyward) },
 *   async (request) => request.keyward.projectId,
 * )
 * ```
 */
export interface KeywardRouteConfig<A extends KeywardContext> {
  readonly [guarded]?: A
}

declare module 'fastify' {
  interface FastifyRequest {
    /**
     * Who is calling, set by a Keyward hook: in a route with `onRequest: requireProject(keyward)`
     * it is a `ProjectAuth`, with `requireBearer<Claims>(...)` a `BearerAuth<Claims>`, and so on;
     * in a route no Keyward hook guards, `KeywardContext | null`.
     */
    keyward: this extends { routeOptions: { config: { readonly [guarded]?: infer A } } }
      ? unknown extends A
        ? KeywardContext | null
        : Exclude<A, undefined>
      : KeywardContext | null
  }
}

/**
 * An `onRequest` hook: it sets `request.keyward` and continues, or answers the refusal. In the
 * route it guards, `request.keyward` is typed `A`.
 *
 * @example
 * ```ts
 * const hook: KeywardHook<ProjectAuth> = requireProject(keyward)
 * fastify.get('/api/v1/projects/:project_id/items', { onRequest: hook }, async (request) => request.keyward)
 * ```
 */
// Two signatures: TypeScript infers a route's config from the last (so `request.keyward` is
// typed `A`), and the first fits routes whose generics are given explicitly.
export type KeywardHook<A extends KeywardContext = KeywardContext> = onRequestHookHandler &
  onRequestHookHandler<
    RawServerDefault,
    RawRequestDefaultExpression,
    RawReplyDefaultExpression,
    RouteGenericInterface,
    KeywardRouteConfig<A>
  >

const isStream = (body: unknown): body is AsyncIterable<Uint8Array> =>
  typeof body === 'object' && body !== null && Symbol.asyncIterator in body

/**
 * Converts a Fastify request into Keyward's neutral request.
 *
 * @example
 * ```ts
 * const result = await projectGuard(keyward)(toKeywardRequest(request))
 * ```
 */
export function toKeywardRequest(request: FastifyRequest): KeywardRequest {
  return new FastifyKeywardRequest(request)
}

// Each part is read when a guard asks for it: a guard that answers from the cache reads a header
// and a parameter, and builds nothing else.
class FastifyKeywardRequest implements KeywardRequest {
  readonly #request: FastifyRequest
  constructor(request: FastifyRequest) {
    this.#request = request
  }
  get method(): string {
    return this.#request.method
  }
  get url(): string {
    return this.#request.url
  }
  get params(): Record<string, string | undefined> {
    return this.#request.params as Record<string, string | undefined>
  }
  get address(): string | undefined {
    return this.#request.raw.socket?.remoteAddress
  }
  header(name: string): string | readonly string[] | undefined {
    return nodeRequestHeader(this.#request.raw, name)
  }
  body(): BodySource {
    const { body } = this.#request
    return body === undefined || isStream(body) ? { raw: body } : { parsed: body }
  }
}

/**
 * Sends a Keyward response as it is.
 *
 * @example
 * ```ts
 * return send(reply, errorResponse(err))
 * ```
 */
export function send(reply: FastifyReply, response: KeywardResponse): FastifyReply {
  return reply.code(response.status).headers(response.headers).send(response.body)
}

/**
 * Turns any Keyward guard into an `onRequest` hook.
 *
 * @example
 * ```ts
 * fastify.get('/reports', { onRequest: protect(bearerGuard({ verify })) }, async (request) => request.keyward)
 * ```
 */
export function protect<A extends KeywardContext>(guard: Guard<A>): KeywardHook<A> {
  // A callback hook: Fastify continues as soon as `done` is called, one promise fewer than async.
  const proceed = (
    request: FastifyRequest,
    reply: FastifyReply,
    done: HookHandlerDoneFunction,
    result: GuardResult<A>,
  ) => {
    if (!result.ok) return void send(reply, result.response)
    if (result.headers) reply.headers(result.headers)
    ;(request as { keyward: KeywardContext | null }).keyward = result.auth
    done()
  }
  // An answer known at once (a cached key) goes on without an asynchronous hop.
  const hook: KeywardHook<A> = (request, reply, done) => {
    const converted = new FastifyKeywardRequest(request)
    const known = guard.now?.(converted)
    if (known) return proceed(request, reply, done, known)
    guard(converted).then((result) => proceed(request, reply, done, result), done)
  }
  // The path parameter the guard reads: `keywardPlugin` checks each route's path for it.
  return guard.routeParam === undefined ? hook : Object.assign(hook, { [ROUTE_PARAM]: guard.routeParam })
}

const ROUTE_PARAM = Symbol('keyward.routeParam')

/** The hooks of a route that are Keyward guards reading a path parameter. */
function hooksOf(route: RouteOptions): { readonly [ROUTE_PARAM]: string }[] {
  const hooks = [route.onRequest, route.preParsing, route.preValidation, route.preHandler].flat()
  return hooks.filter((hook): hook is never => typeof hook === 'function' && ROUTE_PARAM in hook)
}

/**
 * Refuses, as it is declared, a route whose Keyward guard reads a path parameter that the route's
 * path lacks (otherwise each request would meet a 500).
 */
function checkRoute(route: RouteOptions): void {
  for (const hook of hooksOf(route)) {
    const param = hook[ROUTE_PARAM]
    if (!new RegExp(`:${param}(?![\\w-])`).test(route.url)) {
      throw new TypeError(
        `A Keyward guard on ${route.method} ${route.url} needs the path parameter \`${param}\`, ` +
          `and the route has none: put it on a route such as /projects/:${param}/..., give the guard the ` +
          "parameter's name (`projectParam`), or use requireKey for a route without a project.",
      )
    }
  }
}

/**
 * Requires a developer key (`X-Developer-Key`); with `projectParam`, of that project's owner.
 *
 * @example
 * ```ts
 * fastify.get('/me', { onRequest: requireDeveloper(keyward) }, async (request) => request.keyward)
 * ```
 */
export const requireDeveloper = (
  keyward: Keyward,
  options?: DeveloperGuardOptions,
): KeywardHook<DeveloperAuth> => protect<DeveloperAuth>(developerGuard(keyward, options))

/**
 * Requires an API key (`X-API-Key`) of the request's `:project_id`; with `permissions`, those
 * permissions too. `M` types the key's metadata (`request.keyward.metadata`).
 *
 * @example
 * ```ts
 * fastify.get('/api/v1/projects/:project_id/items', { onRequest: requireProject(keyward) }, handler)
 * fastify.get('/reports', { onRequest: requireProject<{ plan: string }>(keyward, { permissions: { allOf: ['reports:read'] } }) }, handler)
 * ```
 */
export const requireProject = <M extends KeyMetadata = KeyMetadata>(
  keyward: Keyward,
  options?: ProjectGuardOptions,
): KeywardHook<ProjectAuth<M>> => protect<ProjectAuth<M>>(projectGuard<M>(keyward, options))

/**
 * Requires an active API key (`X-API-Key`) on a route without a project in its path: of any
 * project, or with `project` of that one. `request.keyward.projectId` says whose key it is.
 *
 * @example
 * ```ts
 * app.get('/reports', { onRequest: requireKey(keyward) }, async (request) => ({ project: request.keyward.projectId }))
 * ```
 */
export const requireKey = <M extends KeyMetadata = KeyMetadata>(
  keyward: Keyward,
  options?: ApiKeyGuardOptions,
): KeywardHook<ProjectAuth<M>> => protect<ProjectAuth<M>>(apiKeyGuard<M>(keyward, options))

/**
 * Requires both keys: the owner's developer key and an API key of the request's `:project_id`.
 *
 * @example
 * ```ts
 * fastify.delete('/api/v1/projects/:project_id', { onRequest: requireElevated(keyward) }, handler)
 * ```
 */
export const requireElevated = <M extends KeyMetadata = KeyMetadata>(
  keyward: Keyward,
  options?: ProjectGuardOptions,
): KeywardHook<ElevatedAuth<M>> => protect<ElevatedAuth<M>>(elevatedGuard<M>(keyward, options))

/**
 * Requires `Authorization: Bearer <token>`, verified by your `verify`.
 *
 * @example
 * ```ts
 * fastify.addHook('onRequest', requireBearer({ verify }))
 * ```
 */
export const requireBearer = <T>(options: BearerGuardOptions<T>): KeywardHook<BearerAuth<T>> =>
  protect<BearerAuth<T>>(bearerGuard(options))

/** Options of {@link keywardPlugin}. */
export interface KeywardPluginOptions extends KeyRoutesOptions {
  /** The Keyward service. */
  readonly keyward: Keyward
  /** Mount the key-management endpoints. Default `true`. */
  readonly keyRoutes?: boolean
}

// The key routes live in their own encapsulated context: its body parser, which hands the raw
// body to Keyward, never reaches the host's routes.
const keyRoutes: FastifyPluginAsync<KeywardPluginOptions> = async (fastify, options) => {
  fastify.removeAllContentTypeParsers()
  fastify.addContentTypeParser('*', (_request, payload, done) => done(null, payload))
  for (const route of createKeyRoutes(options.keyward, options)) {
    fastify.route({
      method: route.method,
      url: route.path,
      handler: async (request, reply) => send(reply, await route.handle(toKeywardRequest(request))),
    })
  }
}

/**
 * The Keyward plugin: declares `request.keyward` and mounts the key-management endpoints
 * (developer keys, project API keys, with `createProject` project creation, and with
 * `secretScanning` the leaked-key alert endpoint).
 *
 * @example
 * ```ts
 * await fastify.register(keywardPlugin, { keyward, createProject })
 * ```
 */
export const keywardPlugin = fp<KeywardPluginOptions>(
  async (fastify, options) => {
    fastify.decorateRequest('keyward', null)
    fastify.addHook('onRoute', checkRoute)
    if (options.keyRoutes !== false) await fastify.register(keyRoutes, options)
  },
  { fastify: '5.x', name: '@keyward/fastify' },
)

export { keywardErrorHandler, keywardNotFoundHandler } from './errors.js'
