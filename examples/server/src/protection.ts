import type { Limiter, LimiterFactory, ProtectionOptions } from '@keyward/core'
import { Redis } from 'ioredis'
import { RateLimiterMemory, RateLimiterRedis } from 'rate-limiter-flexible'
import { ConfigError, type ServerConfig } from './config.js'

/** How the throttle's counters are doing, for `/healthz`: `degraded` while Redis does not answer. */
export type CountersHealth = 'ok' | 'degraded'

/** Where the throttle keeps its counts: this process's memory, or Redis shared by all processes. */
export interface Counters {
  readonly limiter: LimiterFactory
  /** For the start-up message (never a password). */
  readonly description: string
  /** `degraded` while the shared counters do not answer (the throttle then lets requests through). */
  health(): CountersHealth
  close(): Promise<void>
}

/** What the counters report: an outage once when it starts, and once when it ends. */
export type CountersEvent =
  | { readonly type: 'throttle.degraded'; readonly error: unknown }
  | { readonly type: 'throttle.restored'; readonly downMs: number }

/** Start-up: Redis must answer within this, so that a wrong URL stops the server at once. */
const REDIS_START_TIMEOUT_MS = 1_000
/**
 * The longest a counter's command may take. A Redis that stops answering (stopped, a network
 * stall) keeps its connection open: without a bound every credentialed request would wait
 * for it forever.
 */
export const REDIS_COMMAND_TIMEOUT_MS = 250
/** While Redis is down, the counters are skipped, and Redis is asked this often whether it is back. */
const REDIS_PROBE_MS = 1_000

const REDIS_URL_EXAMPLE = 'redis://127.0.0.1:6379'

function describeRedis(url: string): string {
  const { hostname, port } = new URL(url)
  return `Redis at ${hostname || 'localhost'}:${port || 6379}`
}

const causeOf = (error: unknown) =>
  (error as { code?: string })?.code ?? (error instanceof Error ? error.message : String(error))

/** Connects, or refuses within {@link REDIS_START_TIMEOUT_MS} with a message that names the setting. */
async function connect(redis: Redis, where: string): Promise<void> {
  let timer: NodeJS.Timeout | undefined
  let onError: ((error: unknown) => void) | undefined
  try {
    await Promise.race([
      redis.connect(),
      // The first failure is the answer: ioredis would retry a refused connection for seconds.
      new Promise((_, reject) => {
        onError = reject
        redis.on('error', onError)
        timer = setTimeout(() => reject(undefined), REDIS_START_TIMEOUT_MS)
      }),
    ])
  } catch (error) {
    redis.disconnect()
    const why = error === undefined ? `no answer within ${REDIS_START_TIMEOUT_MS} ms` : causeOf(error)
    throw new ConfigError(
      `KEYWARD_REDIS_URL: ${where} cannot be reached (${why}): start Redis there, or set KEYWARD_REDIS_URL ` +
        `to one that runs, such as ${REDIS_URL_EXAMPLE} (or unset it to count in memory).`,
    )
  } finally {
    clearTimeout(timer)
    if (onError) redis.off('error', onError)
  }
}

/**
 * Opens the counters: Redis when `KEYWARD_REDIS_URL` is set, else memory. Redis must answer at
 * start (else a {@link ConfigError} within 2 s). Later, a command that fails or takes longer
 * than {@link REDIS_COMMAND_TIMEOUT_MS} marks Redis down: the counters then fail at once (the
 * throttle lets requests through to the key checks, which fail closed on their own) until a
 * probe finds Redis answering again. `onEvent` hears the outage once, and its end.
 */
export async function openCounters(
  config: Pick<ServerConfig, 'redisUrl'>,
  onEvent: (event: CountersEvent) => void = () => {},
): Promise<Counters> {
  if (!config.redisUrl) {
    return {
      limiter: (settings) => new RateLimiterMemory(settings),
      description: 'in memory',
      health: () => 'ok',
      close: async () => {},
    }
  }
  const description = describeRedis(config.redisUrl)
  const redis = new Redis(config.redisUrl, {
    enableOfflineQueue: false,
    maxRetriesPerRequest: 1,
    connectTimeout: REDIS_START_TIMEOUT_MS,
    commandTimeout: REDIS_COMMAND_TIMEOUT_MS,
    lazyConnect: true,
  })
  await connect(redis, description)
  redis.on('error', () => {
    // Marked down by the failing command; ioredis reconnects by itself.
  })

  let downSince: number | undefined
  let probe: NodeJS.Timeout | undefined
  const down = new Error(`${description} does not answer: the throttle lets requests through`)
  const markDown = (error: unknown) => {
    if (downSince !== undefined) return
    downSince = Date.now()
    onEvent({ type: 'throttle.degraded', error })
    probe = setInterval(() => {
      redis.ping().then(
        () => {
          if (downSince === undefined) return
          clearInterval(probe)
          onEvent({ type: 'throttle.restored', downMs: Date.now() - downSince })
          downSince = undefined
        },
        () => {},
      )
    }, REDIS_PROBE_MS)
    probe.unref()
  }
  // Each command of a counter: at once refused while Redis is down, else bounded in time.
  const guarded = (limiter: Limiter): Limiter => {
    const call = <T>(run: () => Promise<T>): Promise<T> => {
      if (downSince !== undefined) return Promise.reject(down)
      // A refusal that is a counter's state (a spent window) is an answer, not an outage.
      return run().catch((error: unknown) => {
        if (error instanceof Error) markDown(error)
        throw error
      })
    }
    return {
      get: (key) => call(() => limiter.get(key)),
      penalty: (key, points) => call(() => limiter.penalty(key, points)),
      consume: (key, points) => call(() => limiter.consume(key, points)),
    }
  }
  return {
    limiter: (settings) => guarded(new RateLimiterRedis({ storeClient: redis, ...settings })),
    description,
    health: () => (downSince === undefined ? 'ok' : 'degraded'),
    close: async () => {
      clearInterval(probe)
      await redis.quit().catch(() => redis.disconnect())
    },
  }
}

/** The key service's protection from the server's settings. */
export function protectionOf(
  config: Pick<ServerConfig, 'failedAuthPerMinute' | 'trustedProxy'>,
  limiter: LimiterFactory,
): ProtectionOptions {
  return {
    limiter,
    failedAuthLimit: config.failedAuthPerMinute,
    failedAuthWindowSeconds: 60,
    ...(config.trustedProxy ? { trustedProxy: config.trustedProxy } : {}),
  }
}
