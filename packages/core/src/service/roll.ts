import type { AuditContext } from '../audit/types.js'
import { creditState } from '../credits/model.js'
import { KeywardError } from '../errors/error.js'
import { checkOptionNames, optionNames } from '../errors/extra-fields.js'
import { ErrorType } from '../errors/types.js'
import type { KeyRecord } from '../store/types.js'
import { checkGraceSeconds, lifecycleRefusal } from './lifecycle.js'
import { type IssuedKey, mintKey } from './mint.js'
import { rollLifetime } from './policies.js'
import type { Writes } from './types.js'

/**
 * Options of `keyward.rollKey`.
 *
 * @example
 * ```ts
 * await keyward.rollKey(keyId, { graceSeconds: 3600 }) // the old key works one more hour
 * ```
 */
export interface RollKeyOptions {
  /**
   * How long the old key keeps working, in seconds: 0 (it stops at once) to 604800 (seven
   * days). Default 86400.
   */
  readonly graceSeconds?: number
}

const ROLL_OPTIONS = optionNames<RollKeyOptions>({ graceSeconds: true })

/**
 * A rolled key: the new key (shown once) and the old key's record, with its new expiry.
 *
 * @example
 * ```ts
 * const { key, record, previous } = (await keyward.rollKey(keyId))!
 * previous.expiresAt // the end of the grace window
 * ```
 */
export interface RolledKey extends IssuedKey {
  readonly previous: KeyRecord
}

/** @internal The service's `rollKey`. */
export function rollWith({
  store,
  storeCall,
  now,
  emit,
  wrote,
  rules,
  auditRows,
  developersOf,
  hashing,
}: Writes) {
  return async function rollKey(
    id: string,
    rollOptions: RollKeyOptions = {},
    context?: AuditContext,
  ): Promise<RolledKey | null> {
    checkOptionNames('rollKey', rollOptions, ROLL_OPTIONS)
    const graceSeconds = checkGraceSeconds(rollOptions.graceSeconds)
    const current = await storeCall('findKeyById', () => store.findKeyById(id))
    if (!current) return null
    const at = now()
    const refusal = lifecycleRefusal(current, 'roll', at.getTime())
    if (refusal) throw refusal
    // The new key keeps the old one's lifetime (within the maximum) and policies; the old one's
    // expiry only comes closer.
    const lifetime = rollLifetime(rules, current)
    const owner = { type: current.ownerType, id: current.ownerId }
    const expiresAt = lifetime === null ? null : new Date(at.getTime() + lifetime)
    const minted = await mintKey(
      hashing,
      owner,
      current.name,
      expiresAt,
      at,
      {
        ipAllowlist: current.ipAllowlist ?? null,
        permissions: current.permissions ?? null,
        metadata: current.metadata ?? null,
        ratelimits: current.ratelimits ?? null,
      },
      // The new key carries the old one's limit: a roll must not turn a metered key into an
      // unlimited one. Its balance is the old key's as last stored (see the credits guide).
      creditState(current),
    )
    const { key } = minted
    // And its identity: the customer's new key shares its limits and pool as the old one did.
    const joined = current.identityId ? { ...minted.record, identityId: current.identityId } : minted.record
    // And its roles, by id: what the old key could do, the new one can.
    const record = current.roleIds?.length ? { ...joined, roleIds: current.roleIds } : joined
    const graceEnd = new Date(at.getTime() + graceSeconds * 1000)
    // Two rows: the old key rolled (its new expiry, its replacement), the new key issued.
    const isOld = (written: KeyRecord) => written.id === current.id
    const audited = auditRows.keys(
      (written) => (isOld(written) ? 'key.rolled' : 'key.issued'),
      context,
      await developersOf([current]),
      (written) => (isOld(written) ? current : null),
      (written) => (isOld(written) ? {} : { rolled_from: current.id }),
    )
    const rolled = await storeCall('rollKey', () => store.rollKey(id, record, graceEnd, at, audited)).finally(
      () => {
        wrote(current.hash)
        wrote(record.hash)
      },
    )
    if (!rolled) {
      // Another roll (or a deactivation) came first: say why, from the record as it is now.
      const latest = await storeCall('findKeyById', () => store.findKeyById(id))
      if (!latest) return null
      throw (
        lifecycleRefusal(latest, 'roll', now().getTime()) ??
        new KeywardError(ErrorType.keyRolled, 'This key was rolled: it cannot be rolled again.', [
          'path',
          'key_id',
        ])
      )
    }
    const { previous, replacement } = rolled
    emit({
      type: 'key.rolled',
      keyId: replacement.id,
      keyPrefix: replacement.keyPrefix,
      ownerType: replacement.ownerType,
      ownerId: replacement.ownerId,
      previousKeyId: previous.id,
      previousExpiresAt: previous.expiresAt ?? graceEnd,
    })
    return { key, record: replacement, previous }
  }
}
