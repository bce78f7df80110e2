import type { LimiterFactory, ProtectionOptions } from '@keyward/core'
import { Redis } from 'ioredis'
import { RateLimiterMemory, RateLimiterRedis } from 'rate-limiter-flexible'
import type { ServerConfig } from './config.js'

/** Where the throttle keeps its counts: this process's memory, or Redis shared by all processes. */
export interface Counters {
  readonly limiter: LimiterFactory
  /** For the start-up message (never a password). */
  readonly description: string
  close(): Promise<void>
}

const REDIS_CONNECT_TIMEOUT_MS = 5_000

function describeRedis(url: string): string {
  try {
    const { hostname, port } = new URL(url)
    return `Redis at ${hostname}:${port || 6379}`
  } catch {
    return 'Redis (KEYWARD_REDIS_URL)'
  }
}

/**
 * Opens the counters: Redis when `KEYWARD_REDIS_URL` is set (commands fail at once while it is
 * unreachable, and the throttle then lets requests through to the key checks, which fail closed
 * on their own), else memory.
 */
export async function openCounters(config: Pick<ServerConfig, 'redisUrl'>): Promise<Counters> {
  if (!config.redisUrl) {
    return {
      limiter: (settings) => new RateLimiterMemory(settings),
      description: 'in memory',
      close: async () => {},
    }
  }
  const redis = new Redis(config.redisUrl, {
    enableOfflineQueue: false,
    maxRetriesPerRequest: 1,
    connectTimeout: REDIS_CONNECT_TIMEOUT_MS,
    lazyConnect: true,
  })
  redis.on('error', () => {
    // Reported by the throttle as a store.error event; ioredis reconnects by itself.
  })
  await redis.connect()
  return {
    limiter: (settings) => new RateLimiterRedis({ storeClient: redis, ...settings }),
    description: describeRedis(config.redisUrl),
    close: async () => {
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
