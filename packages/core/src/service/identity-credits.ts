import type { AuditContext } from '../audit/types.js'
import type { CreditChange } from '../credits/types.js'
import type { IdentityRecord } from '../identities/model.js'
import type { IdentityAuditWrite } from '../identities/store.js'
import { creditChangeValues } from './audit-rows.js'
import { type CreditDependencies, checkedCreditChange } from './credits.js'
import { identityStore, projectDeveloper } from './identities.js'

/** @internal The credit pools of identities: part of {@link Keyward}. */
export interface KeywardIdentityCredits {
  /**
   * Changes the credit pool of an identity, atomically in the store, as
   * {@link Keyward.changeCredits} changes a key's: `set` (the balance, `null` for no pool, and
   * the refill rule when given), `add`, or `subtract` (422 when the pool holds less; nothing
   * changes). Every key of the identity spends from the pool besides its own credits. Reports
   * `identity.credits_changed` with the pool before and after, and, with an auditing store,
   * appends the audit row `identity.credits_changed` (by `context`) in the same transaction.
   * `null` if there is no such identity. A change between no pool and a pool reaches every cached
   * verification of the identity's keys through the change feed.
   *
   * @example
   * ```ts
   * await keyward.changeIdentityCredits(identityId, { op: 'set', remaining: 100 })
   * await keyward.changeIdentityCredits(identityId, { op: 'add', amount: 50 })
   * ```
   */
  changeIdentityCredits(
    id: string,
    change: CreditChange,
    context?: AuditContext,
  ): Promise<IdentityRecord | null>
}

/** @internal The service's `changeIdentityCredits`. */
export function identityCreditMethods(deps: CreditDependencies): KeywardIdentityCredits {
  const { storeCall, now, emit, spender, auditRows } = deps

  // The row of the change, in the log of the developer who owns the identity's project.
  async function rows(
    change: CreditChange,
    context: AuditContext | undefined,
    projectId: string,
  ): Promise<IdentityAuditWrite | undefined> {
    if (!auditRows.on) return undefined
    const developerId = await projectDeveloper(deps, projectId)
    const at = now()
    const alongside = (context?.with ?? []).map((event) => auditRows.event(event, context, at))
    return (identity, _keys, before) => [
      ...alongside,
      auditRows.event(
        {
          action: 'identity.credits_changed',
          targetType: 'identity',
          targetId: identity.id,
          developerId,
          projectId: identity.projectId,
          ...creditChangeValues({ external_id: identity.externalId }, change, before ?? identity, identity),
        },
        context,
        at,
      ),
    ]
  }

  return {
    async changeIdentityCredits(id, given, context) {
      const identities = identityStore(deps)
      const change = checkedCreditChange('changeIdentityCredits', given)
      const current = await storeCall('findIdentity', () => identities.findIdentity(id))
      if (!current) return null
      const audit = await rows(change, context, current.projectId)
      const changed = await storeCall('changeIdentityCredits', () =>
        identities.changeIdentityCredits(id, change, now(), audit),
      ).finally(() => spender.forget('identity', id))
      if (!changed) return null
      const { before, identity } = changed
      // This process's spending follows its own change at once, as after a change of a key's credits.
      spender.changed('identity', id, change.op, identity.remaining, identity.refill)
      emit({
        type: 'identity.credits_changed',
        identityId: identity.id,
        projectId: identity.projectId,
        op: change.op,
        amount: change.op === 'set' ? change.remaining : change.amount,
        before: { remaining: before.remaining, refill: before.refill },
        after: { remaining: identity.remaining, refill: identity.refill },
      })
      return identity
    },
  }
}
