// The one place where the page talks to the server: the console's session, and the documented
// HTTP API (the key routes), authenticated by the session cookie.
import type {
  ApiKeyInfo,
  CreatedApiKey,
  CreatedDeveloperKey,
  CreatedProject,
  DeveloperKeyInfo,
  ErrorBody,
  Project,
  RolledApiKey,
  RolledDeveloperKey,
} from '@keyward/client'

export type { ApiKeyInfo, CreatedApiKey, CreatedDeveloperKey, DeveloperKeyInfo, Project }

/** A key as lists show it, of either kind. */
export type KeyInfo = (ApiKeyInfo | DeveloperKeyInfo) & { revoked_reason?: string | null }
/** A key as its creation shows it: with the key itself, once. */
export type CreatedKey = CreatedApiKey | CreatedDeveloperKey
export type RolledKey = RolledApiKey | RolledDeveloperKey

/** The signed-in developer, as `GET session` tells. */
export interface Session {
  readonly developer_id: string
  readonly key_prefix: string
  readonly display: string
  readonly idle_timeout_seconds: number
  readonly expires_at: string
}

/** One page of a list, and the cursor of the next (`null` on the last). */
export interface Page<T> {
  readonly items: readonly T[]
  readonly next: string | null
}

/** A refusal of the server: its status, `type` and message. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly type: string,
    message: string,
  ) {
    super(message)
  }
}

let onSignedOut: (message: string) => void = () => {}

/** Called when the server says the session has ended (sign-out elsewhere, idle, a revoked key). */
export function whenSignedOut(listener: (message: string) => void): void {
  onSignedOut = listener
}

async function refusalOf(response: Response): Promise<ApiError> {
  let body: ErrorBody | undefined
  try {
    body = (await response.json()) as ErrorBody
  } catch {
    body = undefined
  }
  const first = body?.detail?.[0]
  const message = first?.msg ?? `The server answered ${response.status}.`
  return new ApiError(response.status, first?.type ?? 'http_error', message)
}

async function send<T>(
  method: string,
  path: string,
  init: { body?: unknown; headers?: Record<string, string> } = {},
): Promise<T> {
  let response: Response
  try {
    response = await fetch(path, {
      method,
      credentials: 'same-origin',
      headers: {
        'x-keyward-console': '1',
        ...(init.body === undefined ? {} : { 'content-type': 'application/json' }),
        ...init.headers,
      },
      body: init.body === undefined ? undefined : JSON.stringify(init.body),
    })
  } catch {
    throw new ApiError(
      0,
      'network_error',
      'The server cannot be reached. Check your connection and try again.',
    )
  }
  if (!response.ok) {
    const error = await refusalOf(response)
    if (error.type === 'session_invalid') onSignedOut(error.message)
    throw error
  }
  return (response.status === 204 ? undefined : await response.json()) as T
}

// The session endpoint sits beside the page, wherever the console is mounted.
const sessionUrl = () => new URL('session', location.href).pathname

export const session = {
  current: () => send<Session>('GET', sessionUrl()),
  /** Exchanges a developer key for the session cookie; the key is sent once, in a header. */
  signIn: (developerKey: string) =>
    send<Session>('POST', sessionUrl(), { headers: { 'x-developer-key': developerKey } }),
  signOut: () => send<void>('DELETE', sessionUrl()),
}

const query = (cursor: string | null, limit: number) =>
  `?limit=${limit}${cursor === null ? '' : `&cursor=${encodeURIComponent(cursor)}`}`

async function page<T>(path: string, field: string, cursor: string | null, limit: number): Promise<Page<T>> {
  const body = await send<Record<string, unknown>>('GET', path + query(cursor, limit))
  return { items: (body[field] as T[]) ?? [], next: (body.next_cursor as string | null | undefined) ?? null }
}

const id = encodeURIComponent

/** An expiry change: an instant with its offset, or `null` for none. */
export interface ExpiryBody {
  readonly expires_at: string | null
}

/** The calls of one kind of key, under `base`. */
export interface KeyCalls {
  list(cursor: string | null, limit?: number): Promise<Page<KeyInfo>>
  create(name: string, expiresInDays?: number): Promise<CreatedKey>
  revoke(keyId: string): Promise<KeyInfo>
  activate(keyId: string): Promise<KeyInfo>
  roll(keyId: string, graceSeconds: number): Promise<RolledKey>
  setExpiry(keyId: string, body: ExpiryBody): Promise<KeyInfo>
}

function keyCalls(base: string): KeyCalls {
  return {
    list: (cursor, limit = 50) => page<KeyInfo>(base, 'keys', cursor, limit),
    create: (name, expiresInDays) =>
      send<CreatedKey>('POST', base, {
        body: {
          ...(name === '' ? {} : { name }),
          ...(expiresInDays === undefined ? {} : { expires_in_days: expiresInDays }),
        },
      }),
    revoke: (keyId) => send<KeyInfo>('DELETE', `${base}/${id(keyId)}`),
    activate: (keyId) => send<KeyInfo>('POST', `${base}/${id(keyId)}/activate`),
    roll: (keyId, graceSeconds) =>
      send<RolledKey>('POST', `${base}/${id(keyId)}/roll`, { body: { grace_seconds: graceSeconds } }),
    setExpiry: (keyId, body) => send<KeyInfo>('PATCH', `${base}/${id(keyId)}`, { body }),
  }
}

export const developerKeys = keyCalls('/api/v1/auth/developer-keys')
export const projectKeys = (projectId: string) => keyCalls(`/api/v1/projects/${id(projectId)}/api-keys`)

export const projects = {
  list: (cursor: string | null, limit = 50) => page<Project>('/api/v1/projects', 'projects', cursor, limit),
  create: (name: string) => send<CreatedProject>('POST', '/api/v1/projects', { body: { name } }),
  /**
   * Deletes a project: an elevated operation, which needs a key of the project besides the
   * developer's. The console issues one for the deletion, which ends with the project.
   */
  async delete(projectId: string): Promise<void> {
    const key = await projectKeys(projectId).create('console: deletion', 1)
    await send('DELETE', `/api/v1/projects/${id(projectId)}`, {
      headers: { 'x-api-key': (key as CreatedApiKey).key },
    })
  },
}
