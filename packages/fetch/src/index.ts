/**
 * Keyward for Web-standard `Request -> Response` handlers (Next.js route handlers, Bun.serve,
 * Deno.serve): conversion only. Every decision (which header, which status, which message) is
 * `@keyward/core`'s.
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
  type DeveloperAuth,
  type DeveloperGuardOptions,
  developerGuard,
  type ElevatedAuth,
  elevatedGuard,
  errorResponse,
  type Guard,
  isKeywardError,
  type KeyMetadata,
  type Keyward,
  type KeywardContext,
  type KeywardRequest,
  type KeywardResponse,
  type ProjectAuth,
  type ProjectGuardOptions,
  projectGuard,
} from '@keyward/core'

/** Path parameters as routers give them: Next.js gives a catch-all segment as an array. */
export type RouteParams = Readonly<Record<string, string | readonly string[] | undefined>>

/**
 * What a Web Request does not carry: the route's path parameters and the client's address.
 * Next.js passes `{ params }` (a promise since Next 15, an object before) as a route handler's
 * second argument; on Bun and Deno, build it from `req.params` and the server's peer address.
 */
export interface FetchContext {
  /** The path parameters (`project_id`), or a promise of them. */
  readonly params?: RouteParams | Promise<RouteParams>
  /** The client's address (the socket's peer), for the throttle of the service's `protection`. */
  readonly address?: string
}

/** The parts of a {@link FetchContext} once its `params` are known. */
export interface FetchRequestInfo {
  readonly params?: RouteParams
  readonly address?: string | undefined
}

/**
 * Converts a Web `Request` into Keyward's neutral request.
 *
 * @example
 * ```ts
 * const result = await projectGuard(keyward)(toKeywardRequest(request, { params: { project_id: 'proj_1' } }))
 * ```
 */
export function toKeywardRequest(request: Request, info: FetchRequestInfo = {}): KeywardRequest {
  const params: Record<string, string | undefined> = {}
  for (const [name, value] of Object.entries(info.params ?? {})) {
    params[name] = typeof value === 'string' || value === undefined ? value : value.join('/')
  }
  return {
    method: request.method,
    url: request.url,
    params,
    address: info.address,
    header: (name) => request.headers.get(name) ?? undefined,
    body: (): BodySource => ({ raw: request.body }),
  }
}

/**
 * Turns a Keyward response into a Web `Response`, as it is.
 *
 * @example
 * ```ts
 * return send(errorResponse(error))
 * ```
 */
export function send(response: KeywardResponse): Response {
  return new Response(response.body, { status: response.status, headers: response.headers })
}

/**
 * The answer to an error thrown by a handler: a `KeywardError` in the specification's format.
 * Any other error, the host's own, is thrown again untouched.
 *
 * @example
 * ```ts
 * try {
 *   return await handle(request)
 * } catch (error) {
 *   return keywardOnError(error)
 * }
 * ```
 */
export function keywardOnError(error: unknown): Response {
  if (isKeywardError(error)) return send(errorResponse(error))
  throw error
}

/** The outcome of {@link authenticate}: the caller's context, or the `Response` that refuses it. */
export type FetchAuthResult<A> =
  | {
      readonly ok: true
      readonly auth: A
      /** Headers for your response (e.g. `x-credits-remaining` of a key with credits). */
      readonly headers?: Readonly<Record<string, string>>
    }
  | { readonly ok: false; readonly response: Response }

/**
 * Runs any Keyward guard on a Web `Request`: the lower level of the `require*` wrappers.
 *
 * @example
 * ```ts
 * const result = await authenticate(projectGuard(keyward), request, { params: { project_id } })
 * if (!result.ok) return result.response
 * result.auth.projectId
 * ```
 */
export async function authenticate<A extends KeywardContext>(
  guard: Guard<A>,
  request: Request,
  context: FetchContext = {},
): Promise<FetchAuthResult<A>> {
  const converted = toKeywardRequest(request, { params: await context.params, address: context.address })
  const result = guard.now?.(converted) ?? (await guard(converted))
  return result.ok ? result : { ok: false, response: send(result.response) }
}

/** The guard's headers on the handler's response (a copy when the response's headers are immutable). */
function withHeaders(response: Response, headers: Readonly<Record<string, string>> | undefined): Response {
  if (!headers) return response
  try {
    for (const [name, value] of Object.entries(headers)) response.headers.set(name, value)
    return response
  } catch {
    const copy = new Response(response.body, response)
    for (const [name, value] of Object.entries(headers)) copy.headers.set(name, value)
    return copy
  }
}

/** A route handler that the `require*` wrappers call with the caller's context (and its own). */
export type GuardedHandler<A> = (
  request: Request,
  auth: A,
  context: FetchContext,
) => Response | Promise<Response>

/**
 * What the `require*` wrappers and {@link keywardHandler} return: a `(request, context?) =>
 * Promise<Response>` handler, which Next.js, Bun and Deno call as it is.
 *
 * @example
 * ```ts
 * const hello: FetchHandler = requireProject(keyward, (request, auth) => Response.json(auth))
 * Bun.serve({ routes: { '/projects/:project_id/hello': (req) => hello(req, { params: req.params }) } })
 * ```
 */
export interface FetchHandler {
  (request: Request, context?: FetchContext): Promise<Response>
  // The signature of a Next.js route handler, last: Next.js's build checks the second argument of
  // the last signature against the `{ params }` it passes.
  (request: Request, context: { params: Promise<RouteParams> }): Promise<Response>
}

/**
 * Wraps a handler with any Keyward guard: it runs with the caller's context, or the refusal is
 * answered; a `KeywardError` it throws is answered in the specification's format.
 *
 * @example
 * ```ts
 * export const GET = protect(bearerGuard({ verify }), (request, auth) => Response.json(auth.claims))
 * ```
 */
export function protect<A extends KeywardContext>(guard: Guard<A>, handler: GuardedHandler<A>): FetchHandler {
  return async (request: Request, context: FetchContext = {}) => {
    const result = await authenticate(guard, request, context)
    if (!result.ok) return result.response
    try {
      return withHeaders(await handler(request, result.auth, context), result.headers)
    } catch (error) {
      return keywardOnError(error)
    }
  }
}

/**
 * Requires a developer key (`X-Developer-Key`); with `projectParam`, of that project's owner.
 *
 * @example
 * ```ts
 * export const GET = requireDeveloper(keyward, (request, auth) => Response.json({ id: auth.developerId }))
 * ```
 */
export const requireDeveloper = (
  keyward: Keyward,
  handler: GuardedHandler<DeveloperAuth>,
  options?: DeveloperGuardOptions,
): FetchHandler => protect(developerGuard(keyward, options), handler)

/**
 * Requires an API key (`X-API-Key`) of the request's `project_id` parameter.
 *
 * @example
 * ```ts
 * // app/api/v1/projects/[project_id]/items/route.ts
 * export const GET = requireProject(keyward, (request, auth) => Response.json({ project: auth.projectId }))
 * ```
 */
export const requireProject = <M extends KeyMetadata = KeyMetadata>(
  keyward: Keyward,
  handler: GuardedHandler<ProjectAuth<M>>,
  options?: ProjectGuardOptions,
): FetchHandler => protect(projectGuard<M>(keyward, options), handler)

/**
 * Requires an active API key (`X-API-Key`) on a route without a project in its path: of any
 * project, or with `project` of that one. `auth.projectId` says whose key it is.
 *
 * @example
 * ```ts
 * // app/api/reports/route.ts
 * export const GET = requireKey(keyward, (request, auth) => Response.json({ project: auth.projectId }))
 * ```
 */
export const requireKey = (
  keyward: Keyward,
  handler: GuardedHandler<ProjectAuth>,
  options?: ApiKeyGuardOptions,
): FetchHandler => protect(apiKeyGuard(keyward, options), handler)

/**
 * Requires both keys: the owner's developer key and an API key of the request's `project_id`.
 *
 * @example
 * ```ts
 * export const DELETE = requireElevated(keyward, (request, auth) => Response.json({ deleted: auth.projectId }))
 * ```
 */
export const requireElevated = <M extends KeyMetadata = KeyMetadata>(
  keyward: Keyward,
  handler: GuardedHandler<ElevatedAuth<M>>,
  options?: ProjectGuardOptions,
): FetchHandler => protect(elevatedGuard<M>(keyward, options), handler)

/**
 * Requires `Authorization: Bearer <token>`, verified by your `verify`.
 *
 * @example
 * ```ts
 * export const DELETE = requireBearer({ verify }, (request, auth) => Response.json(auth.claims))
 * ```
 */
export const requireBearer = <T>(
  options: BearerGuardOptions<T>,
  handler: GuardedHandler<BearerAuth<T>>,
): FetchHandler => protect(bearerGuard(options), handler)

export { keywardHandler } from './routes.js'
