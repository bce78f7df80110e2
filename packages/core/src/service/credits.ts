import type { AuditContext } from '../audit/types.js'
import { checkCreditChange, checkNewCredits } from '../credits/checks.js'
import { refillPeriodStart } from '../credits/model.js'
import type { CreditSpender } from '../credits/spender.js'
import type { CreditChange, CreditRefill } from '../credits/types.js'
import { KeywardError } from '../errors/error.js'
import { checkOptionNames, optionNames } from '../errors/extra-fields.js'
import { ErrorType } from '../errors/types.js'
import type { KeyKind } from '../key/format.js'
import type { KeyRecord } from '../store/types.js'
import type { Writes } from './types.js'

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

/** @internal What the service's credits need of it besides what every write does. */
export interface CreditDependencies extends Writes {
  readonly spender: CreditSpender
}

/**
 * @internal The service's `changeCredits`: checks the change, applies it atomically in the store
 * with its audit row, reports it.
 */
export function creditChanger(deps: CreditDependencies) {
  const { store, storeCall, now, emit, wrote, spender, auditRows, developersOf } = deps
  return async function changeCredits(
    id: string,
    given: CreditChange,
    context?: AuditContext,
  ): Promise<KeyRecord | null> {
    if (!store.changeCredits) {
      throw new TypeError("This key store cannot change a key's credits (no `changeCredits`).")
    }
    checkOptionNames('changeCredits', given, CREDIT_CHANGE_OPTIONS)
    // The same checks, and the same 422s, as the HTTP body: `amount` names the set balance too.
    const change = checkCreditChange(
      given?.op === 'set'
        ? {
            op: 'set',
            amount: given.remaining,
            ...(given.refill === undefined ? {} : { refill: given.refill }),
          }
        : given,
    )
    const current = await storeCall('findKeyById', () => store.findKeyById(id))
    if (!current) return null
    if (current.ownerType !== 'project')
      newKeyCredits('developer', change.op === 'set' ? change.remaining : 1, null, now())
    const audited = auditRows.credits(change, context, await developersOf([current]))
    const changed = await storeCall('changeCredits', () =>
      store.changeCredits!(id, change, now(), audited),
    ).finally(() => {
      wrote(current.hash)
      spender.forget(id)
    })
    if (!changed) return null
    const { before, record } = changed
    // This process's spending follows its own change at once (other processes' blocks: see the guide).
    spender.changed(id, change.op, record.remaining ?? null, record.refill ?? null)
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
