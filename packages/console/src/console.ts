import {
  auditContext,
  developerGuard,
  errorResponse,
  KEY_HEADER,
  type Keyward,
  type KeywardRequest,
} from '@keyward/core'
import { type Asset, defaultAssetsDir, loadAssets } from './assets.js'
import { clearedSessionCookie, readCookie, sessionCookie, sessionCookieName } from './cookies.js'
import { SECURITY_HEADERS } from './headers.js'
import { importSealKey, newSealKey, randomId, seal, unseal } from './seal.js'
import { type ConsoleSession, type ConsoleSessionStore, memorySessionStore } from './sessions.js'

/** Options of {@link createConsole}. Checked once, when the console is built. */
export interface ConsoleOptions {
  /** The path the console is mounted at. Default `'/console'`. */
  readonly basePath?: string
  /** A session ends after this many minutes without a request. Default 30. */
  readonly idleTimeoutMinutes?: number
  /** A session ends this many hours after sign-in, however busy. Default 12. */
  readonly maxAgeHours?: number
  /** Where sessions live. Default: this process's memory ({@link memorySessionStore}). */
  readonly sessions?: ConsoleSessionStore
  /**
   * Origins allowed to change state besides the request's own (scheme, `Host` and port), e.g.
   * `['https://admin.example.com']` behind a proxy that rewrites `Host`.
   */
  readonly origins?: readonly string[]
  /** The folder of the built page. Default: the one the package ships. */
  readonly assetsDir?: string
}

/** What the framework tells the console of a request besides the request itself. */
export interface ConsoleRequestContext {
  /** The request came over HTTPS (directly, or through a proxy the host trusts). */
  readonly secure: boolean
}

/** An answer of the console: a status, headers (lower-case names) and a body. */
export interface ConsoleResponse {
  readonly status: number
  readonly headers: Readonly<Record<string, string>>
  readonly body: string | Uint8Array
}

/**
 * What the console makes of a request: answer it (a page, a file, a session call, a refusal),
 * authenticate it (an API call of the signed-in page: the adapter puts `developerKey` in the
 * request's `X-Developer-Key` for the key routes behind), or pass it on untouched.
 */
export type ConsoleAnswer =
  | { readonly type: 'respond'; readonly response: ConsoleResponse }
  | { readonly type: 'authenticate'; readonly developerKey: string }
  | { readonly type: 'pass' }

/** The administrative console, framework-neutral: mount it with `@keyward/console/hono`, `/express` or `/fastify`. */
export interface KeywardConsole {
  /** The path it is mounted at, without a trailing slash. */
  readonly basePath: string
  /** Answers, authenticates or passes one request (see {@link ConsoleAnswer}). Never throws. */
  handle(request: KeywardRequest, context: ConsoleRequestContext): Promise<ConsoleAnswer>
}

/**
 * The header the console's page sends with each API call. A page of another origin cannot send
 * it without a CORS preflight, which the console never grants, so a forged request is never
 * authenticated by the session cookie.
 */
export const CONSOLE_HEADER = 'x-keyward-console'

const PASS: ConsoleAnswer = { type: 'pass' }
const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS'])

function checkOptions(keyward: Keyward, options: ConsoleOptions): void {
  if (typeof keyward?.authenticate !== 'function') {
    throw new TypeError('createConsole: the first argument must be a Keyward service (createKeyward).')
  }
  const base = options.basePath
  if (base !== undefined && !/^(\/[A-Za-z0-9._~-]+)+$/.test(base)) {
    throw new TypeError(
      `createConsole: option \`basePath\` must be a path such as '/console', without a trailing slash, got ${JSON.stringify(base)}.`,
    )
  }
  for (const name of ['idleTimeoutMinutes', 'maxAgeHours'] as const) {
    const value = options[name]
    if (value !== undefined && !(typeof value === 'number' && value > 0 && Number.isFinite(value))) {
      throw new TypeError(
        `createConsole: option \`${name}\` must be a positive number, got ${String(value)}.`,
      )
    }
  }
  for (const origin of options.origins ?? []) {
    if (typeof origin !== 'string' || !/^https?:\/\/[^/]+$/.test(origin)) {
      throw new TypeError(
        `createConsole: option \`origins\` takes origins such as 'https://admin.example.com', got ${JSON.stringify(origin)}.`,
      )
    }
  }
}

/** A refusal in the specification's error format, with the console's headers. */
function refusal(
  status: number,
  type: string,
  loc: string[],
  msg: string,
  extra: Record<string, string> = {},
) {
  return {
    status,
    headers: {
      ...SECURITY_HEADERS,
      'content-type': 'application/json',
      'cache-control': 'no-store',
      ...extra,
    },
    body: JSON.stringify({ detail: [{ loc, msg, type }] }),
  } satisfies ConsoleResponse
}

const json = (status: number, value: unknown, extra: Record<string, string> = {}): ConsoleResponse => ({
  status,
  headers: { ...SECURITY_HEADERS, 'content-type': 'application/json', 'cache-control': 'no-store', ...extra },
  body: JSON.stringify(value),
})

const respond = (response: ConsoleResponse): ConsoleAnswer => ({ type: 'respond', response })

function single(value: string | readonly string[] | undefined): string | undefined {
  return typeof value === 'string' ? value : value?.length === 1 ? value[0] : undefined
}

/**
 * The administrative console: the page, sign-in and sign-out, and the session that
 * authenticates the page's calls to the key routes.
 *
 * A developer signs in with a developer key, once; the page then holds no key. The answer
 * sets a session cookie (`HttpOnly`, `SameSite=Strict`, `Secure` and `__Host-` over HTTPS)
 * that holds the key encrypted with a key that only this server's session has. The page's API
 * calls carry the cookie and the `X-Keyward-Console` header; the console checks their origin,
 * re-verifies the developer key (a revoked or expired key ends the session) and hands it to
 * the key routes, which answer as they answer any caller.
 *
 * @example
 * ```ts
 * import { createConsole } from '@keyward/console'
 * import { consoleMiddleware } from '@keyward/console/hono'
 *
 * app.use(consoleMiddleware(createConsole(keyward)))
 * app.route('/', keywardRoutes(keyward, { createProject, listProjects }))
 * ```
 */
export function createConsole(keyward: Keyward, options: ConsoleOptions = {}): KeywardConsole {
  checkOptions(keyward, options)
  const basePath = options.basePath ?? '/console'
  const idleMs = Math.round((options.idleTimeoutMinutes ?? 30) * 60_000)
  const maxAgeMs = Math.round((options.maxAgeHours ?? 12) * 3_600_000)
  const sessions = options.sessions ?? memorySessionStore()
  const assets = loadAssets(options.assetsDir ?? defaultAssetsDir())
  const origins = new Set(options.origins ?? [])
  const signIn = developerGuard(keyward)
  const keyHeader = KEY_HEADER.developer

  function ownOrigin(request: KeywardRequest, context: ConsoleRequestContext): string | undefined {
    if (/^https?:\/\//.test(request.url)) return new URL(request.url).origin
    const host = single(request.header('host'))
    return host === undefined ? undefined : `${context.secure ? 'https' : 'http'}://${host}`
  }

  // A state-changing request must come from the console's own origin (or one the host allowed).
  // Browsers send `Origin` with every such request; a request without it comes from no page.
  function originRefusal(
    request: KeywardRequest,
    context: ConsoleRequestContext,
  ): ConsoleResponse | undefined {
    if (SAFE_METHODS.has(request.method)) return undefined
    const origin = single(request.header('origin'))
    if (origin === undefined) {
      const site = single(request.header('sec-fetch-site'))
      if (site === undefined || site === 'same-origin' || site === 'none') return undefined
    } else if (origin === ownOrigin(request, context) || origins.has(origin)) {
      return undefined
    }
    return refusal(
      403,
      'origin_refused',
      ['header', 'origin'],
      'This request comes from another site: the console accepts changes from its own pages only.',
    )
  }

  function pathOf(request: KeywardRequest): string {
    const url = request.url
    const start = url.startsWith('/') ? 0 : url.indexOf('/', url.indexOf('//') + 2)
    if (start === -1) return '/'
    const end = url.search(/[?#]/)
    return url.slice(start, end === -1 ? undefined : end)
  }

  type Found = { id: string; session: ConsoleSession; developerKey: string }

  async function findSession(
    request: KeywardRequest,
    context: ConsoleRequestContext,
  ): Promise<Found | undefined> {
    const cookie = readCookie(request.header('cookie'), sessionCookieName(context.secure))
    const at = cookie?.indexOf('.') ?? -1
    if (cookie === undefined || at === -1) return undefined
    const id = cookie.slice(0, at)
    const session = await sessions.get(id)
    if (session === undefined) return undefined
    if (Date.now() - session.createdAt > maxAgeMs) {
      await sessions.delete(id)
      return undefined
    }
    const key = await importSealKey(session.sealKey)
    const developerKey = key && (await unseal(key, cookie.slice(at + 1), id))
    return developerKey === undefined ? undefined : { id, session, developerKey }
  }

  const ended = (context: ConsoleRequestContext, msg: string) =>
    refusal(401, 'session_invalid', ['cookie', sessionCookieName(context.secure)], msg, {
      'set-cookie': clearedSessionCookie(context.secure),
    })
  const signedOut = (context: ConsoleRequestContext) =>
    ended(
      context,
      'You are not signed in to the console, or your session has ended: sign in with a developer key.',
    )

  // The session's developer key must still verify: revoked, expired or past a roll's grace, it
  // ends the session, as soon as the verification cache hears of it (the revocation bound).
  async function current(
    request: KeywardRequest,
    context: ConsoleRequestContext,
  ): Promise<{ found: Found } | { response: ConsoleResponse }> {
    const found = await findSession(request, context)
    if (found === undefined) return { response: signedOut(context) }
    try {
      await keyward.authenticate({ developerKey: found.developerKey }, { scope: 'developer' })
      return { found }
    } catch (error) {
      const response = errorResponse(error)
      if (response.status >= 500)
        return { response: { ...response, headers: { ...SECURITY_HEADERS, ...response.headers } } }
      await sessions.delete(found.id)
      return {
        response: ended(
          context,
          'Your session has ended: its developer key was revoked or has expired. Sign in with an active developer key.',
        ),
      }
    }
  }

  // The permission names the host declared (createKeyward's `permissions`): the page offers them.
  const permissions = [...(keyward.permissions ?? [])]
  const sessionJson = (session: ConsoleSession) => ({
    developer_id: session.developerId,
    key_prefix: session.keyPrefix,
    display: `${session.keyPrefix}...`,
    idle_timeout_seconds: Math.round(idleMs / 1000),
    expires_at: new Date(session.createdAt + maxAgeMs).toISOString(),
    permissions,
  })

  async function startSession(
    request: KeywardRequest,
    context: ConsoleRequestContext,
  ): Promise<ConsoleResponse> {
    const result = await signIn(request)
    if (!result.ok) {
      return { ...result.response, headers: { ...SECURITY_HEADERS, ...result.response.headers } }
    }
    const developerKey = single(request.header(keyHeader))!
    // The audit log records the sign-in first: a sign-in it cannot record is refused (503).
    const developerId = result.auth.developerId
    await keyward.recordAudit(
      { action: 'console.signed_in', targetType: 'developer', targetId: developerId, developerId },
      auditContext(keyward, request, result.auth),
    )
    const id = randomId()
    const sealKey = await newSealKey()
    const session: ConsoleSession = {
      developerId: result.auth.developerId,
      keyId: result.auth.developerKey.id,
      keyPrefix: result.auth.developerKey.keyPrefix,
      sealKey: sealKey.text,
      createdAt: Date.now(),
    }
    await sessions.set(id, session, idleMs)
    const sealed = await seal(sealKey.key, developerKey, id)
    return json(201, sessionJson(session), {
      'set-cookie': sessionCookie(context.secure, `${id}.${sealed}`, Math.round(maxAgeMs / 1000)),
    })
  }

  async function session(request: KeywardRequest, context: ConsoleRequestContext): Promise<ConsoleResponse> {
    switch (request.method) {
      case 'POST':
        return originRefusal(request, context) ?? (await startSession(request, context))
      case 'GET': {
        const state = await current(request, context)
        return 'response' in state ? state.response : json(200, sessionJson(state.found.session))
      }
      case 'DELETE': {
        const refused = originRefusal(request, context)
        if (refused) return refused
        const found = await findSession(request, context)
        if (found) {
          const { developerId, keyId, keyPrefix } = found.session
          await keyward.recordAudit(
            { action: 'console.signed_out', targetType: 'developer', targetId: developerId, developerId },
            auditContext(keyward, request, { developerId, developerKey: { id: keyId, keyPrefix } }),
          )
          await sessions.delete(found.id)
        }
        return {
          status: 204,
          headers: {
            ...SECURITY_HEADERS,
            'cache-control': 'no-store',
            'set-cookie': clearedSessionCookie(context.secure),
          },
          body: '',
        }
      }
      default:
        return refusal(
          405,
          'method_not_allowed',
          ['method'],
          'The session takes GET, POST (sign in) and DELETE (sign out).',
          {
            allow: 'GET, POST, DELETE',
          },
        )
    }
  }

  function file(request: KeywardRequest, asset: Asset): ConsoleResponse {
    const accepts = single(request.header('accept-encoding'))?.includes('gzip') === true
    const gzip = accepts ? asset.gzip : undefined
    return {
      status: 200,
      headers: {
        ...SECURITY_HEADERS,
        'content-type': asset.type,
        'cache-control': asset.immutable ? 'public, max-age=31536000, immutable' : 'no-cache',
        vary: 'accept-encoding',
        ...(gzip ? { 'content-encoding': 'gzip' } : {}),
      },
      body: request.method === 'HEAD' ? '' : (gzip ?? asset.body),
    }
  }

  async function page(
    request: KeywardRequest,
    context: ConsoleRequestContext,
    path: string,
  ): Promise<ConsoleResponse> {
    const rest = path.slice(basePath.length)
    if (rest === '/session') return session(request, context)
    if (request.method !== 'GET' && request.method !== 'HEAD') {
      return refusal(405, 'method_not_allowed', ['method'], "The console's pages are read with GET.", {
        allow: 'GET, HEAD',
      })
    }
    if (rest === '') {
      return {
        status: 308,
        headers: { ...SECURITY_HEADERS, location: `${basePath}/`, 'cache-control': 'no-store' },
        body: '',
      }
    }
    const asset = assets.get(rest === '/' ? '/index.html' : rest)
    if (asset === undefined)
      return refusal(404, 'not_found', ['path'], 'There is no such page in the console.')
    return file(request, asset)
  }

  async function authenticate(
    request: KeywardRequest,
    context: ConsoleRequestContext,
  ): Promise<ConsoleAnswer> {
    // A key sent by the caller is the caller's to use; only the page's calls use the session.
    if (request.header(CONSOLE_HEADER) === undefined || request.header(keyHeader) !== undefined) return PASS
    const refused = originRefusal(request, context)
    if (refused) return respond(refused)
    const state = await current(request, context)
    return 'response' in state
      ? respond(state.response)
      : { type: 'authenticate', developerKey: state.found.developerKey }
  }

  return {
    basePath,
    async handle(request, context) {
      try {
        const path = pathOf(request)
        if (path === basePath || path.startsWith(`${basePath}/`))
          return respond(await page(request, context, path))
        return await authenticate(request, context)
      } catch (error) {
        const response = errorResponse(error)
        return respond({ ...response, headers: { ...SECURITY_HEADERS, ...response.headers } })
      }
    },
  }
}
