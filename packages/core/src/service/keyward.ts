import { checkCreditOptions, createCreditSpender } from '../credits/spender.js'
import { keyHashing } from '../hash/pepper.js'
import { foreignKeyMatcher } from '../key/foreign.js'
import { checkDeclaredPermissions } from '../policy/policies.js'
import { coarseClock } from '../protection/memory-limiter.js'
import { PROTECTION_DEFAULTS } from '../protection/options.js'
import { storedLimits } from '../protection/stored-limits.js'
import type { KeyRecord, KeyStore } from '../store/types.js'
import { tracerOf } from '../telemetry/spans.js'
import { creditAlerts } from '../webhooks/credit-alerts.js'
import { rateLimitAlerts } from '../webhooks/ratelimit-alerts.js'
import { auditMethods, developerLookup, type KeywardAudit } from './audit.js'
import { AuditRows } from './audit-rows.js'
import { CheckedKeyRef, creditMethods, type KeywardCredits } from './credits.js'
import { emitter, type KeywardEvent } from './events.js'
import { identityMethods, type KeywardIdentities } from './identities.js'
import { identityCreditMethods, type KeywardIdentityCredits } from './identity-credits.js'
import { importMethods, type KeywardImport } from './import.js'
import { type KeywardKeys, keyMethods } from './keys.js'
import { DAY_MS } from './lifecycle.js'
import { createLookup } from './lookup.js'
import { checkOptions, type KeywardOptions, usageSettings } from './options.js'
import { type KeywardPolicies, policyMethods } from './policies.js'
import { type KeywardRateLimits, rateLimitMethods } from './rate-limits.js'
import { refusalReporter } from './refusals.js'
import { type KeywardRoles, roleMethods } from './roles.js'
import { storeCalls } from './store-call.js'
import type { PolicyRules, Writes } from './types.js'
import { createUsage, type KeywardUsage, usageMethods } from './usage.js'
import { createUsageCounts } from './usage-counts.js'
import { type KeywardVerification, verificationMethods } from './verification.js'
import { verificationSpans } from './verification-spans.js'

// The service by topic: each module declares its part of this interface beside the methods that
// implement it (keys.ts, verification.ts over lookup.ts, credits.ts, usage.ts, audit.ts,
// policies.ts, rate-limits.ts, identities.ts, identity-credits.ts, roles.ts), and createKeyward joins them. Topics share only what types.ts declares.
/** The key service that {@link createKeyward} builds. */
export interface Keyward
  extends KeywardKeys,
    KeywardAudit,
    KeywardCredits,
    KeywardIdentities,
    KeywardIdentityCredits,
    KeywardImport,
    KeywardPolicies,
    KeywardRateLimits,
    KeywardRoles,
    KeywardUsage,
    KeywardVerification {
  readonly store: KeyStore
  /**
   * Stops the service's timers, writes what it holds (`lastUsedAt` uses, usage counts) and gives
   * back the credits this process leased and did not spend. Call it on a clean stop, before
   * closing the store: then nothing counted is lost. A process killed without it loses the usage
   * counts of its last flush interval and strands at most one leased block of credits per key
   * (see the credits guide).
   *
   * @example
   * ```ts
   * process.once('SIGTERM', async () => {
   *   server.close()
   *   await keyward.close()
   *   await store.close()
   * })
   * ```
   */
  close(): Promise<void>
  /** @internal Hands an event to the host's `onEvent` hook (the guards report a misplaced guard). */
  report(event: KeywardEvent): void
}

/**
 * Builds the key service over a store: issuing, listing, (de)activating and verifying keys.
 *
 * @example
 * ```ts
 * const keyward = createKeyward({
 *   store: new MemoryKeyStore(),
 *   projectOwner: async (projectId) => (await db.projects.find(projectId))?.developerId ?? null,
 *   onEvent: (event) => logger.info(event), // prefixes only, never a full key
 * })
 * const { key } = await keyward.issueDeveloperKey('dev_1', { name: 'laptop' })
 * const auth = await keyward.authenticate({ developerKey: key }, { scope: 'developer' })
 * auth.developerId // 'dev_1'
 * ```
 */
export function createKeyward(options: KeywardOptions): Keyward {
  checkOptions(options)
  const hashing = keyHashing(options.hashing)
  const store = options.store
  const developerKeyLimit = options.developerKeyLimit ?? 10
  const legacy = options.legacyDeveloperKeys ?? 'reject'
  const emit = emitter(options.onEvent)
  const now = options.now ?? (() => new Date())
  const clock = options.now ? () => now().getTime() : Date.now
  const ownerLookup = options.projectOwner
  const rules: PolicyRules = {
    declared: checkDeclaredPermissions(options.permissions),
    owners: options.keyPolicies ?? {},
  }
  const rotationPeriodDays = options.rotationPeriodDays ?? 90
  const rotationPeriodMs = rotationPeriodDays * DAY_MS
  const listening = options.onEvent !== undefined
  const track = options.trackLastUsed ?? true
  const usage = createUsage({
    store,
    emit,
    listening,
    track,
    intervalMs: (options.lastUsedIntervalSeconds ?? 60) * 1000,
    rotationPeriodMs,
    clock,
  })
  const noteUse = track || listening
  const usageOptions = usageSettings(options)
  const counts =
    usageOptions && store.recordUsage
      ? createUsageCounts({
          store: store as Parameters<typeof createUsageCounts>[0]['store'],
          emit,
          clock,
          exactClock: options.now !== undefined,
          ...usageOptions,
        })
      : undefined
  const trustedProxy = options.protection?.trustedProxy
  const { storeCall, storeUnavailable } = storeCalls(emit)
  const tracer = tracerOf(options.telemetry, '@keyward/core')
  const spans =
    tracer &&
    verificationSpans(tracer, options.telemetry!, {
      get cache() {
        return lookup.cache
      },
      stateProblem: (record, kind) => lookup.stateProblem(record, kind),
    })
  const failed = refusalReporter({ emit, listening, counts, trustedProxy })
  const lookup = createLookup({
    store,
    emit,
    clock,
    legacy,
    cache: options.cache,
    storeCall,
    storeUnavailable,
    failed,
    ownerLookup,
    observe: spans?.observe,
    hashing,
    foreign: foreignKeyMatcher(options.foreignKeys),
  })
  const { wrote } = lookup
  // The audit log, when the store keeps one: every write below appends its rows with it.
  const auditRows = new AuditRows(typeof store.appendAudit === 'function', now, options.auditContext)
  const developersOf = developerLookup(auditRows, ownerLookup ? lookup.projectOwner : undefined)

  const writes: Writes = { store, storeCall, now, emit, wrote, rules, auditRows, developersOf, hashing }

  // Stored rate limits, counted by the protection's limiters when it has some, else in memory;
  // with webhook alerts, their refusals are counted beside them and written after each minute.
  const limitClock = options.now ? clock : coarseClock()
  const alerts =
    options.webhookAlerts === true && store.webhooks
      ? rateLimitAlerts(store.webhooks, developersOf, limitClock, (error) =>
          emit({ type: 'store.error', operation: 'webhooks.addEvents', error }),
        )
      : undefined
  const limits = storedLimits(
    options.protection?.limiter,
    options.protection?.keyPrefix ?? PROTECTION_DEFAULTS.keyPrefix,
    (operation, error) => emit({ type: 'store.error', operation, error }),
    limitClock,
    alerts && ((key, whose, limit) => alerts.note(key as KeyRecord, whose, limit)),
  )

  // Low and exhausted credits, seen on the result of each lease (never per request), when the
  // host asked for webhook alerts: without them, the spender has no hook at all.
  const creditWarnings =
    options.webhookAlerts === true && store.webhooks
      ? creditAlerts(store.webhooks, developersOf, CheckedKeyRef.recordOf, clock, (error) =>
          emit({ type: 'store.error', operation: 'webhooks.addEvents', error }),
        )
      : undefined
  const creditOptions = checkCreditOptions(options.credits)
  const spender = createCreditSpender(
    store,
    creditOptions,
    clock,
    storeUnavailable,
    tracer,
    creditWarnings?.leased,
  )

  return {
    store,
    close: async () => {
      // One bound for both: the store is retried while it fails, for `credits.returnTimeoutMs`.
      const [stranded, , lost] = await Promise.all([
        spender.close(),
        usage.flush(),
        counts?.close(creditOptions.returnTimeoutMs),
        alerts?.flush(true),
      ])
      await creditWarnings?.flush()
      for (const lost of stranded) {
        emit(
          'identityId' in lost
            ? { type: 'identity.credits_stranded', ...lost }
            : { type: 'credits.stranded', ...lost },
        )
      }
      if (lost) emit({ type: 'usage.stranded', ...lost })
    },
    ...keyMethods({
      ...writes,
      developerKeyLimit,
      rotationPeriodDays,
      clock,
      auditContext: options.auditContext,
      forgetAll: lookup.forgetAll,
      forgetOwners: lookup.forgetOwners,
    }),
    ...auditMethods({ store, rows: auditRows, storeCall }),
    ...policyMethods(writes, trustedProxy),
    ...creditMethods({ ...writes, spender, counts, listening, creditAlerts: creditWarnings }),
    ...rateLimitMethods(limits, counts),
    ...identityMethods(writes),
    ...importMethods({ ...writes, auditContext: options.auditContext }),
    ...roleMethods(writes),
    ...identityCreditMethods({ ...writes, spender, counts, listening }),
    ...usageMethods({ store, storeCall, usage, counts, retention: usageOptions?.retention ?? null }),
    ...verificationMethods({
      lookup,
      failed,
      emit,
      legacy,
      hasProjectOwner: ownerLookup !== undefined,
      protection: options.protection,
      counts,
      usage,
      noteUse,
      reportSuccesses: listening && options.auditSuccesses === true,
      spans,
    }),
    report: emit,
  }
}
