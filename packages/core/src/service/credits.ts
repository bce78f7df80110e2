import type { AuditContext } from '../audit/types.js'
import { checkCreditChange, checkNewCredits } from '../credits/checks.js'
import { refillPeriodStart } from '../credits/model.js'
import type { CreditSpender, SpendOutcome } from '../credits/spender.js'
import type { CreditChange, CreditRefill } from '../credits/types.js'
import { KeywardError } from '../errors/error.js'
import { checkOptionNames, optionNames } from '../errors/extra-fields.js'
import { ErrorType } from '../errors/types.js'
import { KEY_HEADER, type KeyKind } from '../key/format.js'
import { hasStoredLimits } from '../protection/stored-limits.js'
import type { KeyRecord } from '../store/types.js'
import type { CreditAlerts } from '../webhooks/credit-alerts.js'
import type { KeyRef } from './requirements.js'
import type { Writes } from './types.js'
import { OUTCOME, type UsageCounts } from './usage-counts.js'

/** @internal The credits' part of the key service's interface (`Keyward`). */
export interface KeywardCredits {
  /**
   * Changes an API key's credits, atomically in the store: `set` (the balance, `null` for
   * unlimited, and the refill rule when given), `add`, or `subtract` (422 when the balance holds
   * less; nothing changes). They act on the stored balance: credits that processes leased are
   * spent already from the key's viewpoint. Reports `key.credits_changed` with the balance before
   * and after, and, with an auditing store, appends the audit row `key.credits_changed` (by
   * `context`) in the same transaction. `null` if there is no such key. Throws a `TypeError` when
   * the store does not implement `changeCredits`.
   *
   * @example
   * ```ts
   * await keyward.changeCredits(keyId, { op: 'set', remaining: 1000, refill: { amount: 1000, interval: 'monthly', day: 1 } })
   * await keyward.changeCredits(keyId, { op: 'add', amount: 500 })
   * ```
   */
  changeCredits(id: string, change: CreditChange, context?: AuditContext): Promise<KeyRecord | null>
  /**
   * @internal The ref of an API key with credits, to spend them with {@link Keyward.spendCredits};
   * `undefined` for a key without credits.
   */
  creditRef(record: KeyRecord): KeyRef | undefined
  /**
   * @internal Spends `cost` credits of a verified API key: `undefined` for a key without a limit
   * (or a cost of 0), the headers of an accepted request, or the 429 `usage_exceeded`. With
   * `now`, only what memory decides: `null` when the store must be asked (then call it without).
   */
  spendCredits(key: KeyRef, cost: number, now: true): SpendOutcome | undefined | null
  /** @internal Spends `cost` credits, asking the store when memory cannot decide. */
  spendCredits(key: KeyRef, cost: number, now?: false): Promise<SpendOutcome> | undefined
  /**
   * @internal Whether `spendCredits(key, cost, true)` would answer from memory, without spending:
   * a guard answering at once asks before it takes the key's rate limits, which the asynchronous
   * way would take again.
   */
  creditsKnownNow(key: KeyRef, cost: number): boolean
}

/** The credit fields of a new key's record. */
export interface NewKeyCredits {
  readonly remaining: number | null
  readonly refill: CreditRefill | null
  readonly refilledAt: Date | null
}

/**
 * @internal The credits of a new key, checked (422 at `["body", "remaining"]` or `["body",
 * "refill", ...]`). API keys only. The first refill comes at the first period boundary after
 * the creation.
 */
export function newKeyCredits(
  kind: KeyKind,
  remaining: unknown,
  refill: unknown,
  createdAt: Date,
): NewKeyCredits {
  const credits = checkNewCredits(remaining, refill)
  if (kind === 'developer' && credits.remaining !== null) {
    throw new KeywardError(
      ErrorType.valueError,
      'Credits are a limit of API keys: a developer key carries none.',
      ['body', 'remaining'],
    )
  }
  return {
    ...credits,
    refilledAt: credits.refill ? refillPeriodStart(credits.refill, createdAt) : null,
  }
}

const CREDIT_CHANGE_OPTIONS = optionNames<CreditChange>({
  op: true,
  remaining: true,
  refill: true,
  amount: true,
})

/**
 * @internal A change of credits given to the service's method `method`, checked: unknown options
 * refused, then the same checks, and the same 422s, as the HTTP body (`amount` names the set
 * balance too).
 */
export function checkedCreditChange(method: string, given: CreditChange): CreditChange {
  checkOptionNames(method, given, CREDIT_CHANGE_OPTIONS)
  return checkCreditChange(
    given?.op === 'set'
      ? {
          op: 'set',
          amount: given.remaining,
          ...(given.refill === undefined ? {} : { refill: given.refill }),
        }
      : given,
  )
}

/**
 * The ref of a verified API key that spends credits (its own limit, its identity's pool, or
 * both) or has stored rate limits (its own or its identity's), with the record it was verified
 * from: the guards take its limits and then spend its credits once every other check passed, the
 * balances its record had being hints for the first leases. A private field, so the ref looks and
 * compares like any other; cheaper than a WeakMap on the hot path.
 */
export class CheckedKeyRef implements KeyRef {
  readonly id: string
  readonly keyPrefix: string
  readonly #record: KeyRecord
  constructor(record: KeyRecord) {
    this.id = record.id
    this.keyPrefix = record.keyPrefix
    this.#record = record
  }
  /** The verified record of a ref, or `undefined` for a plain ref (a key with neither). */
  static recordOf(key: KeyRef): KeyRecord | undefined {
    return #record in key ? (key as CheckedKeyRef).#record : undefined
  }
}

// Whether a verification of the key spends credits: its own limit, or its identity's pool.
const metered = (key: KeyRecord) => key.remaining != null || key.identityRemaining != null

/**
 * @internal The ref a verified API key hands its guard: a checked one, with its record, when the
 * key spends credits (its own or its identity's pool) or has stored rate limits.
 */
export const projectKeyRef = (key: KeyRecord): KeyRef =>
  metered(key) || hasStoredLimits(key) ? new CheckedKeyRef(key) : { id: key.id, keyPrefix: key.keyPrefix }

/** @internal What the service's credits need of it besides what every write does. */
export interface CreditDependencies extends Writes {
  readonly spender: CreditSpender
  /** The service's usage counts, where a request its credits refused moves; absent without them. */
  readonly counts: UsageCounts | undefined
  /** Whether the host listens to events: without a hook, a refusal builds none. */
  readonly listening: boolean
  /** The webhook alerts of low and exhausted credits (`webhookAlerts`), or `undefined`. */
  readonly creditAlerts?: CreditAlerts
}

/** @internal The service's credit methods: `changeCredits`, `creditRef` and `spendCredits`. */
export function creditMethods(deps: CreditDependencies): KeywardCredits {
  const { spender, counts, listening, emit } = deps

  // The record's balances as the spender takes them, or `undefined` when nothing is spent.
  function balances(key: KeyRef, cost: number) {
    const record = CheckedKeyRef.recordOf(key)
    if (cost === 0 || record === undefined || !metered(record)) return undefined
    return [
      key,
      record.remaining ?? null,
      record.identityId ?? null,
      record.identityRemaining ?? null,
      cost,
    ] as const
  }

  function spendCredits(key: KeyRef, cost: number, atOnce?: boolean) {
    const request = balances(key, cost)
    if (request === undefined) return undefined
    if (atOnce) return spent(key, spender.spendNow(...request)) ?? null
    return spender.spend(...request).then((outcome) => spent(key, outcome))
  }

  function spent<O extends SpendOutcome | undefined>(key: KeyRef, outcome: O): O {
    if (!(outcome instanceof KeywardError)) return outcome
    // Counted as accepted when it was verified: its credits refused it after all.
    const counted = CheckedKeyRef.recordOf(key)
    if (counts && counted) counts.move(counted, OUTCOME.accepted, OUTCOME.usage_exceeded)
    if (listening) {
      emit({
        type: 'auth.failed',
        reason: 'usage_exceeded',
        header: KEY_HEADER.project,
        errorType: outcome.type,
        keyId: key.id,
        keyPrefix: key.keyPrefix,
      })
    }
    return outcome
  }

  return {
    changeCredits: creditChanger(deps),
    creditRef: (record) => (metered(record) ? projectKeyRef(record) : undefined),
    spendCredits: spendCredits as KeywardCredits['spendCredits'],
    creditsKnownNow: (key, cost) => {
      const request = balances(key, cost)
      return request === undefined || spender.knowsNow(...request)
    },
  }
}

// The service's `changeCredits`: checks the change, applies it atomically in the store with its
// audit row, reports it.
function creditChanger(deps: CreditDependencies) {
  const { store, storeCall, now, emit, wrote, spender, auditRows, developersOf } = deps
  return async function changeCredits(
    id: string,
    given: CreditChange,
    context?: AuditContext,
  ): Promise<KeyRecord | null> {
    if (!store.changeCredits) {
      throw new TypeError("This key store cannot change a key's credits (no `changeCredits`).")
    }
    const change = checkedCreditChange('changeCredits', given)
    const current = await storeCall('findKeyById', () => store.findKeyById(id))
    if (!current) return null
    if (current.ownerType !== 'project')
      newKeyCredits('developer', change.op === 'set' ? change.remaining : 1, null, now())
    const audited = auditRows.credits(
      change,
      context,
      await developersOf([current]),
      current.creditsLowAt ?? null,
    )
    const changed = await storeCall('changeCredits', () =>
      store.changeCredits!(id, change, now(), audited),
    ).finally(() => {
      wrote(current.hash)
      spender.forget('key', id)
    })
    if (!changed) return null
    const { before, record } = changed
    // This process's spending follows its own change at once (other processes' blocks: see the guide).
    spender.changed('key', id, change.op, record.remaining ?? null, record.refill ?? null)
    // A change that leaves the balance low is told of as a lease that does (once per period).
    if (record.remaining != null) {
      deps.creditAlerts?.leased({
        holder: 'key',
        id,
        key: projectKeyRef(record),
        change: true,
        lease: {
          granted: 0,
          remaining: record.remaining,
          refill: record.refill ?? null,
          refilledAt: record.refilledAt ?? null,
          lowAt: record.creditsLowAt ?? null,
        },
      })
    }
    emit({
      type: 'key.credits_changed',
      keyId: record.id,
      keyPrefix: record.keyPrefix,
      ownerType: record.ownerType,
      ownerId: record.ownerId,
      op: change.op,
      amount: change.op === 'set' ? change.remaining : change.amount,
      before: { remaining: before.remaining, refill: before.refill },
      after: { remaining: record.remaining ?? null, refill: record.refill ?? null },
    })
    return record
  }
}
