import type { AuditContext } from '../audit/types.js'
import type { KeyRecord } from '../store/types.js'
import { deactivatedEvent } from './events.js'
import type { Writes } from './types.js'

/** A key reported as leaked: its SHA-256 hash, and where it was found. */
export interface LeakedKey {
  /** SHA-256 of the leaked key, 64 lower-case hex characters (what {@link hashKey} returns). */
  readonly hash: string
  /** Where the key was found, as the reporter said (a public URL; may be empty). */
  readonly url?: string
  /** What kind of place that is, as the reporter said (`content`, `commit`, `npm`, ...). */
  readonly source?: string
}

/** What became of one {@link LeakedKey}. */
export interface LeakedKeyResult {
  /** The hash, as given. */
  readonly hash: string
  /** The key's record, now inactive; `null` when no key of this store has this hash. */
  readonly record: KeyRecord | null
  /**
   * Whether this call deactivated the key. `false` for a key that was inactive already (a
   * second report of the same leak), and for every report but the first of one key in a batch.
   */
  readonly revoked: boolean
}

const HASH = /^[0-9a-f]{64}$/

const SECRET_SCANNING: AuditContext = { actor: { type: 'secret_scanning' } }

/**
 * @internal The service's `revokeLeakedKeys`: one batched lookup, one atomic batched
 * deactivation of the active ones, then `key.deactivated` for each key this call deactivated
 * and `key.leaked` for each report of a known key (with the reporter's `url` and `source`).
 */
export function leakedKeyRevoker({
  store,
  storeCall,
  emit,
  wrote,
  auditRows,
  developersOf,
  hashing,
}: Writes) {
  return async function revokeLeakedKeys(
    leaks: readonly LeakedKey[],
    context: AuditContext = SECRET_SCANNING,
  ): Promise<LeakedKeyResult[]> {
    if (
      !Array.isArray(leaks) ||
      leaks.some((leak) => typeof leak?.hash !== 'string' || !HASH.test(leak.hash))
    ) {
      throw new TypeError(
        'revokeLeakedKeys: expected an array of { hash }, each a lower-case SHA-256 hex digest.',
      )
    }
    const hashes = [...new Set(leaks.map((leak) => leak.hash))]
    // With peppers, a key may be stored under any of its hashes: each names the reported one.
    const reportedAs = new Map<string, { hash: string; pepperId: string | null }>()
    for (const hash of hashes) {
      const candidates = await hashing.candidates(hash)
      candidates.forEach((candidate, i) => {
        reportedAs.set(candidate, { hash, pepperId: hashing.pepperIds[i] ?? null })
      })
    }
    const stored = [...reportedAs.keys()]
    const plainOf = (record: KeyRecord) => reportedAs.get(record.hash)?.hash ?? record.hash
    const found =
      hashes.length === 0
        ? []
        : (await storeCall('findKeysByHashes', () => store.findKeysByHashes(stored))).filter(
            (record) => reportedAs.get(record.hash)?.pepperId === (record.pepperId ?? null),
          )
    const active = found.filter((record) => record.active)
    // Each row says where the leak was found (the first report of the key in this batch).
    const foundById = new Map(active.map((record) => [record.id, record]))
    const where = new Map<string, LeakedKey>()
    for (const leak of leaks) if (!where.has(leak.hash)) where.set(leak.hash, leak)
    const audited = auditRows.keys(
      'key.revoked_leaked',
      context,
      await developersOf(active),
      (record) => foundById.get(record.id) ?? null,
      (record) => ({
        leak_url: where.get(plainOf(record))?.url ?? '',
        leak_source: where.get(plainOf(record))?.source ?? '',
      }),
    )
    const changed =
      active.length === 0
        ? []
        : await storeCall('deactivateKeys', () =>
            store.deactivateKeys(
              active.map((record) => record.id),
              'leaked',
              audited,
            ),
          ).finally(() => {
            for (const record of active) wrote(record.hash)
          })
    const deactivated = new Map(changed.map((record) => [record.id, record]))
    for (const record of changed) {
      emit(deactivatedEvent(record))
    }
    // A key found active but not deactivated here was deactivated by a concurrent call.
    const byHash = new Map(
      found.map((record) => [plainOf(record), deactivated.get(record.id) ?? { ...record, active: false }]),
    )
    const reported = new Set<string>()
    return leaks.map(({ hash, url = '', source = '' }) => {
      const record = byHash.get(hash) ?? null
      if (record === null) return { hash, record, revoked: false }
      const revoked = deactivated.has(record.id) && !reported.has(record.id)
      reported.add(record.id)
      emit({
        type: 'key.leaked',
        keyId: record.id,
        keyPrefix: record.keyPrefix,
        ownerType: record.ownerType,
        ownerId: record.ownerId,
        url,
        source,
        revoked,
      })
      return { hash, record, revoked }
    })
  }
}
