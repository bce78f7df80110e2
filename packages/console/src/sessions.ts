import { LRUCache } from 'lru-cache'

/**
 * A signed-in developer, as the server keeps it. It holds no key: the developer key is in the
 * browser's cookie, encrypted with `sealKey` (see the console's docs, "Sessions").
 */
export interface ConsoleSession {
  readonly developerId: string
  /** The id and prefix of the developer key that signed in. */
  readonly keyId: string
  readonly keyPrefix: string
  /** The session's AES-256-GCM key, 32 bytes, base64url. Never sent to the browser. */
  readonly sealKey: string
  /** When the session began, in milliseconds since the epoch. */
  readonly createdAt: number
}

/**
 * Where sessions live. The default keeps them in the process's memory; a host that runs the
 * console in several processes behind one address passes a store they share (e.g. on Redis),
 * with the same idle expiry: `get` extends a session's idle time, as a request does.
 *
 * @example
 * ```ts
 * const sessions: ConsoleSessionStore = {
 *   get: async (id) => JSON.parse((await redis.getex(`console:${id}`, 'PX', idleMs)) ?? 'null') ?? undefined,
 *   set: async (id, session, ttlMs) => void (await redis.set(`console:${id}`, JSON.stringify(session), 'PX', ttlMs)),
 *   delete: async (id) => void (await redis.del(`console:${id}`)),
 * }
 * ```
 */
export interface ConsoleSessionStore {
  /** The session, its idle time renewed, or `undefined` when it ended or never was. */
  get(id: string): Promise<ConsoleSession | undefined> | ConsoleSession | undefined
  /** Keeps a session for `idleMs` from now, renewed by each `get`. */
  set(id: string, session: ConsoleSession, idleMs: number): Promise<void> | void
  delete(id: string): Promise<void> | void
}

/** Options of {@link memorySessionStore}. */
export interface MemorySessionStoreOptions {
  /** The most sessions kept; past it, the least recently used ends. Default 10,000. */
  readonly max?: number
  /** How often the idle clock is read, in milliseconds. Default 1,000: idle time is counted in minutes. */
  readonly clockResolutionMs?: number
}

/**
 * Sessions in this process's memory: at most `max`, each dropped after `idleMs` without a request.
 *
 * @example
 * ```ts
 * const console = createConsole(keyward, { sessions: memorySessionStore({ max: 1_000 }) })
 * ```
 */
export function memorySessionStore(options: MemorySessionStoreOptions = {}): ConsoleSessionStore {
  const sessions = new LRUCache<string, ConsoleSession>({
    max: options.max ?? 10_000,
    ttlAutopurge: false,
    updateAgeOnGet: true,
    ttlResolution: options.clockResolutionMs ?? 1_000,
  })
  return {
    get: (id) => sessions.get(id),
    set: (id, session, idleMs) => void sessions.set(id, session, { ttl: idleMs }),
    delete: (id) => void sessions.delete(id),
  }
}
