// `credits.low` and `credits.exhausted` from the hot path: detected on the result of a lease of
// credits, which a process takes about once per `leaseSeconds` per key, never per request. The
// events are written after the lease, in the background; a process that dies first loses them
// until the next lease of the period finds the balance still low (the next process writes it).
import { lowThreshold } from '../credits/low-at.js'
import type { CreditHolder } from '../credits/model.js'
import { sha256HexWeb } from '../hash/digest.js'
import type { KeyRef } from '../service/requirements.js'
import type { DevelopersOf } from '../service/types.js'
import type { CreditLease, KeyRecord } from '../store/types.js'
import type { WebhookEvent, WebhookStore } from './types.js'

const DAY_MS = 86_400_000

/** The most ids a process remembers as written, so that it does not ask the outbox again. */
const REMEMBERED = 10_000

/** @internal What a lease of credits tells the alerts: whose, by which key, and its result. */
export interface LeasedCredits {
  readonly holder: CreditHolder
  /** The key's id, or the identity's. */
  readonly id: string
  /** The key whose request took the lease (for a pool: one of its identity's keys). */
  readonly key: KeyRef
  readonly lease: CreditLease
  /** A change of credits rather than a lease: nothing was refused. */
  readonly change?: boolean
}

/** @internal Looks at each lease's result; writes an event when a threshold is reached. */
export interface CreditAlerts {
  /** A comparison or two, and a write only when a threshold is newly reached in its period. */
  leased(leased: LeasedCredits): void
  /** Waits for the writes under way (at a clean stop). */
  flush(): Promise<void>
}

type Kind = 'credits.low' | 'credits.exhausted'

/**
 * The period an event of a lease belongs to, by which it is written once: the refill period the
 * balance is in (its start), or without a refill rule the UTC day of the lease.
 */
export function creditAlertPeriod(lease: CreditLease, now: number): Date {
  return lease.refill && lease.refilledAt ? lease.refilledAt : new Date(Math.floor(now / DAY_MS) * DAY_MS)
}

/**
 * The kinds of event a lease's result calls for: low at or below the threshold, exhausted at 0 or
 * refused (a change of credits, `change`, refuses nothing).
 */
export function creditAlertKinds(lease: CreditLease, change = false): Kind[] {
  const { remaining, refill, lowAt } = lease
  if (remaining === null || lowAt === undefined) return []
  const kinds: Kind[] = []
  const threshold = lowThreshold(lowAt, refill)
  if (threshold !== null && remaining <= threshold) kinds.push('credits.low')
  if (remaining === 0 || (!change && lease.granted === 0)) kinds.push('credits.exhausted')
  return kinds
}

/**
 * @internal Builds the alerts. An event's id is made of the holder (key or identity), its id, the
 * kind and the period, and the outbox takes an id once: across processes and restarts, the
 * first lease of a period that finds the balance low writes `credits.low`, once.
 */
export function creditAlerts(
  store: WebhookStore,
  developersOf: DevelopersOf,
  recordOf: (key: KeyRef) => KeyRecord | undefined,
  clock: () => number,
  onError: (error: unknown) => void,
): CreditAlerts {
  const written = new Set<string>()
  const writing = new Set<Promise<void>>()

  async function eventOf(
    kind: Kind,
    leased: LeasedCredits,
    record: KeyRecord,
    developerId: string,
    at: number,
  ) {
    const { holder, id, lease } = leased
    const period = creditAlertPeriod(lease, at)
    const hash = await sha256HexWeb(`${kind}:${holder}:${id}:${period.toISOString()}`)
    const projectId = record.ownerType === 'project' ? record.ownerId : null
    const threshold = lowThreshold(lease.lowAt, lease.refill)
    return {
      id: `msg_${hash.slice(0, 32)}`,
      type: kind,
      developerId,
      projectId,
      createdAt: new Date(at),
      data: {
        holder,
        key_id: record.id,
        key_prefix: record.keyPrefix,
        name: record.name,
        ...(holder === 'identity' || record.identityId ? { identity_id: record.identityId ?? null } : {}),
        developer_id: developerId,
        project_id: projectId,
        remaining: lease.remaining,
        ...(kind === 'credits.low' ? { credits_low_at: lease.lowAt, threshold } : {}),
        refill_amount: lease.refill?.amount ?? null,
        period_start: period.toISOString(),
        actor: 'system',
      },
    } satisfies WebhookEvent
  }

  async function write(kinds: readonly Kind[], leased: LeasedCredits, record: KeyRecord, at: number) {
    try {
      const developerId = (await developersOf([record]))(record)
      if (developerId === null) return
      await store.addEvents(
        await Promise.all(kinds.map((kind) => eventOf(kind, leased, record, developerId, at))),
      )
    } catch (error) {
      for (const kind of kinds) written.delete(memoOf(kind, leased, at))
      onError(error)
    }
  }

  const memoOf = (kind: Kind, { holder, id, lease }: LeasedCredits, at: number) =>
    `${kind}\u0000${holder}\u0000${id}\u0000${creditAlertPeriod(lease, at).getTime()}`

  return {
    leased(leased) {
      const due = creditAlertKinds(leased.lease, leased.change)
      if (due.length === 0) return
      const at = clock()
      const kinds = due.filter((kind) => !written.has(memoOf(kind, leased, at)))
      const record = recordOf(leased.key)
      if (kinds.length === 0 || record === undefined) return
      if (written.size >= REMEMBERED) written.clear()
      for (const kind of kinds) written.add(memoOf(kind, leased, at))
      const done = write(kinds, leased, record, at).finally(() => writing.delete(done))
      writing.add(done)
    },
    async flush() {
      await Promise.all(writing)
    },
  }
}
