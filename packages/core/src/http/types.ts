/** A Web `ReadableStream` of bytes, as far as Keyward reads it. */
export interface ByteStream {
  getReader(): { read(): Promise<{ done: boolean; value?: Uint8Array | undefined }> }
}

/**
 * A request body as the framework holds it: `raw` bytes that Keyward reads itself (with a
 * size limit) and parses as JSON, or a value that a body parser of the host already `parsed`.
 * Raw bytes come as a Web `ReadableStream` or any async iterable (a Node request).
 */
export type BodySource =
  | { readonly raw: AsyncIterable<Uint8Array | string> | ByteStream | null | undefined }
  | { readonly parsed: unknown }

/**
 * The framework-neutral request that adapters build from their framework's request.
 * Keyward's HTTP layer reads nothing else.
 *
 * @example
 * ```ts
 * const request: KeywardRequest = {
 *   method: req.method,
 *   url: req.originalUrl,
 *   params: req.params,
 *   header: (name) => nodeRequestHeader(req, name),
 *   body: () => ({ raw: req }),
 * }
 * ```
 */
export interface KeywardRequest {
  /** The HTTP method, upper-case. */
  readonly method: string
  /**
   * The request target: path and query, or an absolute URL. Keyward reads only its query
   * string, and only to say that keys are never read from there.
   */
  readonly url: string
  /** The route's path parameters, e.g. `project_id`. */
  readonly params: Readonly<Record<string, string | undefined>>
  /**
   * One path parameter, where the framework decodes them one at a time (Hono): the guards read
   * the one they need through it rather than have `params` decode every one. Optional; without
   * it they read `params`.
   */
  param?(name: string): string | undefined
  /**
   * The values of a header, by lower-case name: `undefined` when absent, a string, or an
   * array with one element per header line when the framework keeps them apart.
   */
  header(name: string): string | readonly string[] | undefined
  /** The body, when the route reads one. */
  readonly body?: () => BodySource
  /**
   * The address of the peer of the connection (the socket's remote address), when the runtime
   * tells it. Forwarded headers are read only through a configured trusted proxy.
   */
  readonly address?: string
}

/**
 * What Keyward answers: a status, headers (lower-case names) and a JSON text body.
 * Adapters send it as it is, so every framework answers byte for byte the same.
 *
 * @example
 * ```ts
 * res.writeHead(response.status, response.headers).end(response.body)
 * ```
 */
export interface KeywardResponse {
  readonly status: number
  readonly headers: Readonly<Record<string, string>>
  readonly body: string
}

/** One key-management endpoint: adapters mount `handle` at `method` and `path` (`:name` parameters). */
export interface KeyRoute {
  readonly method: 'GET' | 'POST' | 'PATCH' | 'DELETE'
  readonly path: string
  handle(request: KeywardRequest): Promise<KeywardResponse>
}

/** A request authenticated with a bearer token; `claims` is what the host's verifier returned. */
export interface BearerAuth<T = unknown> {
  readonly scope: 'bearer'
  readonly claims: T
}

/** The outcome of a guard: the caller's context, or the response that refuses the request. */
export type GuardResult<A> =
  | {
      readonly ok: true
      readonly auth: A
      /**
       * Headers for the response to an accepted request (lower-case names), e.g.
       * `x-credits-remaining` for a key with credits; adapters set them on the response.
       */
      readonly headers?: Readonly<Record<string, string>>
    }
  | { readonly ok: false; readonly response: KeywardResponse }

/**
 * Checks a request's credentials. It never throws: every failure, a store outage included,
 * comes back as `{ ok: false, response }`, so adapters only send what it answers.
 *
 * @example
 * ```ts
 * const result = await guard(request)
 * if (result.ok) next(result.auth)
 * else send(result.response)
 * ```
 */
export type Guard<A> = ((request: KeywardRequest) => Promise<GuardResult<A>>) & {
  /**
   * @internal The guard's answer when it is known at once (a key the verification cache holds, an
   * address known to be throttled),
   * else `undefined`: adapters ask it first and skip the asynchronous hop when it answers.
   */
  readonly now?: (request: KeywardRequest) => GuardResult<A> | undefined
  /**
   * The path parameter the guard reads (e.g. `project_id`), if any: an adapter that learns a
   * route's path when it is declared refuses a route without it then.
   */
  readonly routeParam?: string
}
