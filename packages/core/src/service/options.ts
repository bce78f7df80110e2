import type { AuditContext } from '../audit/types.js'
import type { CreditOptions } from '../credits/spender.js'
import { checkOptionNames, optionNames } from '../errors/extra-fields.js'
import type { HashingOptions } from '../hash/pepper.js'
import type { TrustedProxy } from '../http/client-address.js'
import type { ForeignKeyFormat } from '../key/foreign.js'
import type { KeyKind, LegacyDeveloperKeyPolicy } from '../key/format.js'
import {
  checkProtectionOptions,
  type ProtectionOptions,
  type RateLimitPolicy,
} from '../protection/options.js'
import type { KeyStore } from '../store/types.js'
import { DEFAULT_USAGE_RETENTION, type UsageRetention } from '../store/usage.js'
import { checkTelemetryOptions } from '../telemetry/options.js'
import type { KeywardTelemetry } from '../telemetry/types.js'
import type { VerificationCacheOptions } from './cache.js'
import type { KeywardEventHook } from './events.js'
import { checkOwnerKeyPolicies } from './policies.js'
import type { OwnerKeyPolicies } from './types.js'

/** Options of the service's usage counts (`usage` of {@link KeywardOptions}). */
export interface UsageOptions {
  /** How often the counts held in memory are written, in seconds. Default 5: what a crash can lose. */
  readonly flushIntervalSeconds?: number
  /** How often old counts are rolled into coarser buckets (in bounded steps), in seconds. Default 600. */
  readonly compactIntervalSeconds?: number
  /** How long minute, hour and day counts are kept, in days. Default 7, 90 and 730. */
  readonly retention?: Partial<UsageRetention>
}

/** Options of {@link createKeyward}. Checked once, when the service is built. */
export interface KeywardOptions {
  /** Where key records live. */
  readonly store: KeyStore
  /** Most active developer keys per developer. Default 10, the specification's limit. */
  readonly developerKeyLimit?: number
  /** Policy for legacy `dk_` developer keys. Default `reject`. */
  readonly legacyDeveloperKeys?: LegacyDeveloperKeyPolicy
  /**
   * Returns the `developer_id` that owns a project, or `null` if there is no such project.
   * Needed for `elevated` requirements and `developer` requirements that name a project.
   */
  readonly projectOwner?: (projectId: string) => Promise<string | null> | string | null
  /** Receives what happens (issued keys, failures with precise reasons), with key prefixes only. */
  readonly onEvent?: KeywardEventHook
  /** The clock, for tests. Default `() => new Date()`. */
  readonly now?: () => Date
  /**
   * Keep verifications in memory, by key hash (records, active or not, and "not found"; never a
   * key), so that a key seen before costs no store round trip. Needs a store with a change feed
   * (`store.changes`): writes by other processes reach the cache through it, and while it is
   * not connected the cache is empty and bypassed. Writes through this service update it
   * before they return. `{}` for the defaults; off when omitted or `false`.
   *
   * It also keeps the owners that `projectOwner` found, by project id; any change to any key
   * (a project's deletion deactivates its keys) drops them all.
   */
  readonly cache?: VerificationCacheOptions | false
  /**
   * Abuse protection of the HTTP guards: failed verifications throttled per client address,
   * rate limits per key, failures reported aggregated (`auth.failures` events). Off when absent.
   */
  readonly protection?: ProtectionOptions
  /**
   * Record when each key was last used (`lastUsedAt`), off the hot path: at most once per key
   * per `lastUsedIntervalSeconds` per process, in batches, the first use after a start within
   * 10 seconds. A failed write is reported as `store.error` and never changes a verification.
   * Default `true`; call `flushLastUsed()` before closing the store.
   */
  readonly trackLastUsed?: boolean
  /** The least time between two writes of one key's `lastUsedAt`, in seconds. Default 60. */
  readonly lastUsedIntervalSeconds?: number
  /** Keys older than this many days are due for rotation (`rotation_due`). Default 90. */
  readonly rotationPeriodDays?: number
  /**
   * Report every successful authentication to `onEvent` as `auth.succeeded` (key id, prefix,
   * owner), for an audit trail. Default `false`: the success path then builds no event at all.
   */
  readonly auditSuccesses?: boolean
  /**
   * Who the audit log names for a write given no context of its own (the write methods take one
   * last): e.g. `{ actor: { type: 'operator', name: 'alice' } }` in an operator's tool. Default
   * `{ actor: { type: 'system' } }`.
   *
   * @example
   * ```ts
   * createKeyward({ store, auditContext: { actor: { type: 'operator', name: 'alice' } } })
   * ```
   */
  readonly auditContext?: AuditContext
  /**
   * The permission names this host declares, e.g. `['generations:write', 'generations:delete']`
   * (at most 1000). An API key carries a subset, or all of them when created without
   * `permissions`; routes require some with the guards' option `permissions`.
   */
  readonly permissions?: readonly string[]
  /** Policies per owner type: `{ project: { maxLifetimeDays: 90 } }` (1 to 3650), enforced at creation and roll. */
  readonly keyPolicies?: OwnerKeyPolicies
  /**
   * How this process leases the credits of usage-limited API keys: seconds of traffic per lease,
   * the largest block, how long a key without credits is refused from memory. See `CreditOptions`.
   */
  readonly credits?: CreditOptions
  /**
   * Count verifications per key, minute and outcome (accepted, and each refusal of a known key;
   * refusals of unknown or malformed keys per route and client address), in memory, written in
   * batches every `flushIntervalSeconds` through the store's `recordUsage`. `{}` for the
   * defaults, `false` for none; default on when the store has `recordUsage`. Call `close()` on a
   * clean stop: it writes what is counted.
   */
  readonly usage?: UsageOptions | false
  /**
   * Traces: a span for each verification (`keyward.verify`) and each lease of credits, through
   * the host's OpenTelemetry (`{ tracerProvider: trace.getTracerProvider() }`). Spans carry key
   * prefixes and ids, never a key, a hash or metadata. Off when absent: then nothing is traced
   * and nothing of it is paid. See the observability guide.
   */
  readonly telemetry?: KeywardTelemetry
  /**
   * How keys are hashed for storage. Without it, plain SHA-256 as the specification says. With
   * `pepper` (server-side secrets the database never sees, oldest first), new keys are stored as
   * HMAC-SHA-256 under the newest, each record naming its pepper's id, and keys stored under an
   * older one or none keep verifying. See the security guide.
   */
  readonly hashing?: HashingOptions
  /**
   * Formats of keys issued by another system and imported by their SHA-256 (see the migration
   * guide) that verification accepts besides Keyward's own: a prefix and a length range, or any
   * string of 16 to 512 characters. Such keys take the same lookup, cache, revocation, credits
   * and policies as native keys, are always due for rotation (`rotation_due`), and rolling one
   * issues a native `ak_` key. Without it, only `ak_` keys (and `dk_` keys by
   * `legacyDeveloperKeys`) are accepted.
   */
  readonly foreignKeys?: readonly ForeignKeyFormat[]
  /**
   * Alerts of the hot path as webhook events, into the store's outbox (`store.webhooks`):
   * `ratelimit.exceeded`, at most one per key, limit and minute, with the count of refusals.
   * Refusals are counted in memory where the rate limit's counter is, and written in one batch
   * after each minute (a crash loses the current minute's count); nothing is written per
   * request. And `credits.low` and `credits.exhausted`, seen on the result of each lease of
   * credits (about one per key and `credits.leaseSeconds` in a busy process), each at most once
   * per refill period (see the webhooks guide). Default `false`.
   */
  readonly webhookAlerts?: boolean
}

const LEGACY_POLICIES: readonly LegacyDeveloperKeyPolicy[] = ['reject', 'accept']

const WHO = 'createKeyward'
const KEYWARD_OPTIONS = optionNames<KeywardOptions>({
  store: true,
  developerKeyLimit: true,
  legacyDeveloperKeys: true,
  projectOwner: true,
  onEvent: true,
  now: true,
  cache: true,
  protection: true,
  trackLastUsed: true,
  lastUsedIntervalSeconds: true,
  rotationPeriodDays: true,
  auditSuccesses: true,
  auditContext: true,
  permissions: true,
  keyPolicies: true,
  credits: true,
  usage: true,
  telemetry: true,
  hashing: true,
  foreignKeys: true,
  webhookAlerts: true,
})
const TELEMETRY_OPTIONS = optionNames<KeywardTelemetry>({ tracerProvider: true, recordClientAddress: true })
const CACHE_OPTIONS = optionNames<VerificationCacheOptions>({ maxEntries: true, ttlMs: true })
const USAGE_OPTIONS = optionNames<UsageOptions>({
  flushIntervalSeconds: true,
  compactIntervalSeconds: true,
  retention: true,
})
const RETENTION_OPTIONS = optionNames<UsageRetention>({ minuteDays: true, hourDays: true, dayDays: true })
const CREDIT_OPTIONS = optionNames<CreditOptions>({
  leaseSeconds: true,
  maxBlock: true,
  recheckMs: true,
  returnTimeoutMs: true,
})
const PROTECTION_OPTIONS = optionNames<ProtectionOptions>({
  limiter: true,
  failedAuthLimit: true,
  failedAuthWindowSeconds: true,
  trustedProxy: true,
  keyRateLimits: true,
  rateLimitFor: true,
  reportIntervalSeconds: true,
  keyPrefix: true,
})
const TRUSTED_PROXY_OPTIONS = optionNames<TrustedProxy>({ header: true, hops: true })
const RATE_LIMIT_OPTIONS = optionNames<RateLimitPolicy>({ limit: true, windowSeconds: true })
const KIND_OPTIONS = optionNames<OwnerKeyPolicies>({ developer: true, project: true })
const LIFETIME_OPTIONS = optionNames<NonNullable<OwnerKeyPolicies[KeyKind]>>({ maxLifetimeDays: true })
const KINDS: readonly KeyKind[] = ['developer', 'project']

/**
 * Refuses a name the options do not know, at any depth (`usage.retention.hourDay`): a plain
 * JavaScript caller's typo, which would otherwise leave a setting at its default unseen.
 */
function checkOptionTree(options: KeywardOptions): void {
  const at = (...path: string[]) => ['options', ...path]
  checkOptionNames(WHO, options, KEYWARD_OPTIONS)
  const { cache, usage, credits, protection, keyPolicies } = options
  checkOptionNames(WHO, cache, CACHE_OPTIONS, at('cache'))
  checkOptionNames(WHO, usage, USAGE_OPTIONS, at('usage'))
  if (usage) checkOptionNames(WHO, usage.retention, RETENTION_OPTIONS, at('usage', 'retention'))
  checkOptionNames(WHO, credits, CREDIT_OPTIONS, at('credits'))
  checkOptionNames(WHO, protection, PROTECTION_OPTIONS, at('protection'))
  if (protection) {
    checkOptionNames(WHO, protection.trustedProxy, TRUSTED_PROXY_OPTIONS, at('protection', 'trustedProxy'))
    const limits = protection.keyRateLimits
    checkOptionNames(WHO, limits, KIND_OPTIONS, at('protection', 'keyRateLimits'))
    for (const kind of KINDS) {
      const path = at('protection', 'keyRateLimits', kind)
      checkOptionNames(WHO, limits?.[kind], RATE_LIMIT_OPTIONS, path)
    }
  }
  checkOptionNames(WHO, options.telemetry, TELEMETRY_OPTIONS, at('telemetry'))
  checkOptionNames(WHO, keyPolicies, KIND_OPTIONS, at('keyPolicies'))
  for (const kind of KINDS) {
    checkOptionNames(WHO, keyPolicies?.[kind], LIFETIME_OPTIONS, at('keyPolicies', kind))
  }
}

/** @internal Checks the options once, naming the one that is wrong. */
export function checkOptions(options: KeywardOptions): void {
  if (typeof options !== 'object' || options === null)
    throw new TypeError('createKeyward: options are required.')
  checkOptionTree(options)
  const { store } = options
  for (const method of [
    'insertKey',
    'findKeyByHash',
    'findKeyById',
    'listKeysByOwner',
    'setKeyActive',
    'rollKey',
    'recordKeyUse',
  ] as const) {
    if (typeof store?.[method] !== 'function') {
      throw new TypeError(
        `createKeyward: option \`store\` must implement KeyStore (no \`${method}\` method).`,
      )
    }
  }
  const limit = options.developerKeyLimit
  if (limit !== undefined && !(Number.isInteger(limit) && limit > 0)) {
    throw new TypeError(
      `createKeyward: option \`developerKeyLimit\` must be a positive integer, got ${String(limit)}.`,
    )
  }
  for (const name of ['lastUsedIntervalSeconds', 'rotationPeriodDays'] as const) {
    const value = options[name]
    if (value !== undefined && !(typeof value === 'number' && Number.isFinite(value) && value > 0)) {
      throw new TypeError(
        `createKeyward: option \`${name}\` must be a positive number, got ${String(value)}.`,
      )
    }
  }
  for (const name of ['trackLastUsed', 'auditSuccesses'] as const) {
    if (options[name] !== undefined && typeof options[name] !== 'boolean') {
      throw new TypeError(`createKeyward: option \`${name}\` must be a boolean.`)
    }
  }
  const legacy = options.legacyDeveloperKeys
  if (legacy !== undefined && !LEGACY_POLICIES.includes(legacy)) {
    throw new TypeError(
      `createKeyward: option \`legacyDeveloperKeys\` must be 'reject' or 'accept', got ${String(legacy)}.`,
    )
  }
  const actor = options.auditContext?.actor?.type
  if (
    options.auditContext !== undefined &&
    !['developer', 'operator', 'secret_scanning', 'system'].includes(actor as string)
  ) {
    throw new TypeError(
      "createKeyward: option `auditContext` must be { actor: { type: 'developer' | 'operator' | 'secret_scanning' | 'system', ... } }.",
    )
  }
  checkCacheOptions(options)
  checkUsageOptions(options)
  checkTelemetryOptions(WHO, options.telemetry)
  checkProtectionOptions(options.protection)
  checkOwnerKeyPolicies(options.keyPolicies)
  for (const fn of ['projectOwner', 'onEvent', 'now'] as const) {
    if (options[fn] !== undefined && typeof options[fn] !== 'function') {
      throw new TypeError(`createKeyward: option \`${fn}\` must be a function.`)
    }
  }
}

function checkCacheOptions({ cache, store }: KeywardOptions): void {
  if (cache === undefined || cache === false) return
  if (typeof cache !== 'object' || cache === null) {
    throw new TypeError('createKeyward: option `cache` must be an object of cache options, or false.')
  }
  for (const name of ['maxEntries', 'ttlMs'] as const) {
    const value = cache[name]
    if (value !== undefined && !(Number.isInteger(value) && value > 0)) {
      throw new TypeError(
        `createKeyward: option \`cache.${name}\` must be a positive integer, got ${String(value)}.`,
      )
    }
  }
  const feed = store.changes
  if (typeof feed?.subscribe !== 'function' || typeof feed.connected !== 'boolean') {
    throw new TypeError(
      'createKeyward: option `cache` needs a store with a change feed (`store.changes`), so that ' +
        'writes by other processes reach the cache; this store has none.',
    )
  }
}

function checkUsageOptions({ usage, store }: KeywardOptions): void {
  if (usage === undefined || usage === false) return
  if (typeof usage !== 'object' || usage === null) {
    throw new TypeError('createKeyward: option `usage` must be an object of usage options, or false.')
  }
  if (typeof store.recordUsage !== 'function') {
    throw new TypeError(
      'createKeyward: option `usage` needs a store with `recordUsage`; this store has none.',
    )
  }
  for (const name of ['flushIntervalSeconds', 'compactIntervalSeconds'] as const) {
    const value = usage[name]
    if (value !== undefined && !(typeof value === 'number' && Number.isFinite(value) && value > 0)) {
      throw new TypeError(
        `createKeyward: option \`usage.${name}\` must be a positive number, got ${String(value)}.`,
      )
    }
  }
  const retention = usage.retention ?? {}
  for (const name of ['minuteDays', 'hourDays', 'dayDays'] as const) {
    const value = retention[name]
    if (value !== undefined && !(Number.isInteger(value) && value > 0 && value <= 36_500)) {
      throw new TypeError(
        `createKeyward: option \`usage.retention.${name}\` must be an integer from 1 to 36500, got ${String(value)}.`,
      )
    }
  }
}

/** @internal The usage counts' settings, defaults filled in; `null` when usage is not counted. */
export function usageSettings(
  options: KeywardOptions,
): { flushIntervalMs: number; compactIntervalMs: number; retention: UsageRetention } | null {
  const { usage, store } = options
  if (usage === false || (usage === undefined && typeof store.recordUsage !== 'function')) return null
  const retention = { ...DEFAULT_USAGE_RETENTION, ...usage?.retention }
  if (!(retention.minuteDays <= retention.hourDays && retention.hourDays <= retention.dayDays)) {
    throw new TypeError(
      'createKeyward: option `usage.retention` must keep minutes no longer than hours, and hours no longer than days.',
    )
  }
  return {
    flushIntervalMs: (usage?.flushIntervalSeconds ?? 5) * 1000,
    compactIntervalMs: (usage?.compactIntervalSeconds ?? 600) * 1000,
    retention,
  }
}
