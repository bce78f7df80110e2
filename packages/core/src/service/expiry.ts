import type { AuditContext } from '../audit/types.js'
import { KeywardError } from '../errors/error.js'
import { checkOptionNames, optionNames } from '../errors/extra-fields.js'
import { ErrorType } from '../errors/types.js'
import type { KeyRecord } from '../store/types.js'
import { bothExpiryFields, checkExpiry, lifecycleRefusal } from './lifecycle.js'
import { boundedExpiry } from './policies.js'
import type { Writes } from './types.js'

/**
 * A key's new expiry, for `keyward.setKeyExpiry`: `expiresAt` (a time in the future, or `null`
 * for never) or `expiresInDays` (1 to 3650 from now), exactly one.
 *
 * @example
 * ```ts
 * await keyward.setKeyExpiry(keyId, { expiresInDays: 30 })
 * await keyward.setKeyExpiry(keyId, { expiresAt: null }) // never expires
 * ```
 */
export interface KeyExpiryChange {
  readonly expiresAt?: Date | null
  readonly expiresInDays?: number
}

const EXPIRY_OPTIONS = optionNames<KeyExpiryChange>({ expiresAt: true, expiresInDays: true })

// The new expiry: one of the two fields, `expiresAt: null` meaning never.
function newExpiry(change: KeyExpiryChange, now: Date): Date | null {
  checkOptionNames('setKeyExpiry', change, EXPIRY_OPTIONS)
  const { expiresAt, expiresInDays } = change ?? {}
  if (expiresAt === undefined && expiresInDays === undefined) {
    throw new KeywardError(
      ErrorType.missing,
      'Give expires_at (a time, or null for never) or expires_in_days.',
      ['body', 'expires_at'],
    )
  }
  if (expiresAt !== undefined && expiresInDays !== undefined) throw bothExpiryFields()
  return checkExpiry(expiresInDays === undefined ? (expiresAt ? { expiresAt } : {}) : { expiresInDays }, now)
}

/**
 * @internal The service's `setKeyExpiry`: checks the change and the key (a rolled key keeps the
 * end of its grace window, 409 `key_rolled`; an expired one stays expired, 409 `key_expired`),
 * writes it through the store, which refuses a roll that came in between, and forgets the key
 * in the cache before it returns (the store's change feed tells the other processes).
 */
export function expirySetter(dependencies: Writes) {
  const { store, storeCall, now, emit, wrote, rules, auditRows, developersOf } = dependencies
  return async function setKeyExpiry(
    id: string,
    change: KeyExpiryChange,
    context?: AuditContext,
  ): Promise<KeyRecord | null> {
    if (!store.setKeyExpiry) {
      throw new TypeError("This key store cannot set a key's expiry (no `setKeyExpiry`).")
    }
    const at = now()
    const given = newExpiry(change, at)
    const current = await storeCall('findKeyById', () => store.findKeyById(id))
    if (!current) return null
    // Within the owner type's maximum lifetime, counted from the key's creation.
    const loc = ['body', change.expiresInDays === undefined ? 'expires_at' : 'expires_in_days']
    const expiresAt = boundedExpiry(rules, current.ownerType, current.createdAt, given, loc)
    if (given === null && expiresAt !== null) throw boundedExpiryRefusal(loc)
    const refusal = lifecycleRefusal(current, 'expire', at.getTime())
    if (refusal) throw refusal
    const audited = auditRows.keys('key.expiry_set', context, await developersOf([current]), () => current)
    const updated = await storeCall('setKeyExpiry', () =>
      store.setKeyExpiry!(id, expiresAt, audited),
    ).finally(() => wrote(current.hash))
    if (!updated) return null
    // A roll came first: the key keeps the end of its grace window.
    const late = lifecycleRefusal(updated, 'expire', at.getTime())
    if (late) throw late
    emit({
      type: 'key.expiry_set',
      keyId: updated.id,
      keyPrefix: updated.keyPrefix,
      ownerType: updated.ownerType,
      ownerId: updated.ownerId,
      expiresAt: updated.expiresAt ?? null,
    })
    return updated
  }
}

const boundedExpiryRefusal = (loc: readonly string[]) =>
  new KeywardError(
    ErrorType.lifetimeExceeded,
    'Keys of this owner type have a maximum lifetime here: give an expiry, not null.',
    loc,
  )
