export type { KeyRate } from './key-rate-limit.js'
export type { Limiter, LimiterFactory, LimiterSettings, LimiterState } from './limiter.js'
export {
  PROTECTION_DEFAULTS,
  type ProtectionOptions,
  type RatedKey,
  type RateLimitPolicy,
} from './options.js'
export type { Protection } from './protection.js'
export type { RateLimitCosts } from './stored-limits.js'
