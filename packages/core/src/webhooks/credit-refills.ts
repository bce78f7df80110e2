// `credits.refilled`, an event of time: one scheduler at a time across processes refills the keys
// and identity pools whose refill period turned, and writes one event per holder and period, in
// the refill's transaction (the outbox pattern).
import { type CreditHolder, nextRefillAt, refilled, refillPeriodStart } from '../credits/model.js'
import type { CreditState } from '../credits/types.js'
import { sha256HexWeb } from '../hash/digest.js'
import type { KeyRecord } from '../store/record.js'
import { developerResolver } from './expiry.js'
import type { WebhookEvent, WebhookStore } from './types.js'

/** How many holders one round of the scheduler refills at most; the next round takes the rest. */
export const REFILLS_PER_ROUND = 500

/**
 * A holder of credits whose refill period turned, as the store's `refillCredits` hands it to the
 * scheduler: a key (with its prefix and name) or an identity's pool (of a project), the refill
 * amount, the balance after the refill, and the period's start.
 */
export interface RefilledCredits extends Pick<KeyRecord, 'ownerType' | 'ownerId'> {
  readonly holder: CreditHolder
  /** The key's id, or the identity's. */
  readonly id: string
  /** The key's prefix and name; `null` for an identity's pool. */
  readonly keyPrefix: string | null
  readonly name: string | null
  /** The identity's external id; `null` for a key. */
  readonly externalId: string | null
  readonly amount: number
  readonly remaining: number
  readonly periodStart: Date
}

/**
 * What a round of the scheduler does to one holder with a refill rule, `dueAt` being when its
 * next refill was due as the last round saw it (`null`: never looked at since its credits were
 * set). The refill due at `now` is applied (when a lease has not applied it already), and the
 * period counts as turned, for an event, when it started at or after `dueAt`: a period that a
 * lease refilled first is told of too, a key's first period (its credits set mid-period) is not.
 * `nextDueAt` is what the store keeps as the new `dueAt`.
 *
 * @example
 * ```ts
 * const { after, turned, nextDueAt } = refillRound(state, row.refill_due_at, now)
 * ```
 */
export function refillRound(
  state: CreditState,
  dueAt: Date | null,
  now: Date,
): { readonly after: CreditState; readonly turned: boolean; readonly nextDueAt: Date | null } {
  if (state.refill === null || state.remaining === null)
    return { after: state, turned: false, nextDueAt: null }
  const after = refilled(state, now)
  const period = refillPeriodStart(state.refill, now)
  const turned = dueAt !== null && period.getTime() >= dueAt.getTime()
  return { after, turned, nextDueAt: nextRefillAt(state.refill, now) }
}

/** Options of {@link createCreditRefills}. */
export interface CreditRefillsOptions {
  /** The store's webhooks (`store.webhooks`); a store without `refillCredits` has no such events. */
  readonly store: WebhookStore
  /**
   * The developer who owns a project, for the events of its keys and identities (the service's
   * `projectOwner`). Without it, or when it answers `null`, their events are not written (the
   * refills are applied all the same).
   */
  readonly projectOwner?: (projectId: string) => Promise<string | null>
  /** The clock. Default `() => new Date()`. */
  readonly now?: () => Date
}

/** The scheduler of refills: one round at a time. */
export interface CreditRefills {
  /** One round: the events it wrote, or `null` when another scheduler holds the store's lock. */
  tick(): Promise<number | null>
}

/**
 * The scheduler of `credits.refilled`: each round, under the store's scheduler lock (one process at
 * a time), the store refills the keys and identity pools whose refill is due (at most
 * {@link REFILLS_PER_ROUND}) and writes one event per holder and period in the same transaction.
 * Its id is made of the holder, its id and the period, and the outbox takes an id once. Payloads:
 * `holder`, `key_id`, `key_prefix`, `name` (a key's) or `identity_id`, `external_id` (a pool's),
 * `developer_id`, `project_id`, `refill_amount`, `remaining`, `period_start`; never a key or a hash.
 *
 * @example
 * ```ts
 * const refills = createCreditRefills({ store: store.webhooks, projectOwner })
 * setInterval(() => void refills.tick(), 60_000)
 * ```
 */
export function createCreditRefills(options: CreditRefillsOptions): CreditRefills {
  const { store, projectOwner, now = () => new Date() } = options

  async function eventOf(refill: RefilledCredits, developerId: string, at: Date): Promise<WebhookEvent> {
    const period = refill.periodStart.toISOString()
    const hash = await sha256HexWeb(`credits.refilled:${refill.holder}:${refill.id}:${period}`)
    const projectId = refill.ownerType === 'project' ? refill.ownerId : null
    return {
      id: `msg_${hash.slice(0, 32)}`,
      type: 'credits.refilled',
      developerId,
      projectId,
      createdAt: at,
      data: {
        holder: refill.holder,
        ...(refill.holder === 'key'
          ? { key_id: refill.id, key_prefix: refill.keyPrefix, name: refill.name }
          : { identity_id: refill.id, external_id: refill.externalId }),
        developer_id: developerId,
        project_id: projectId,
        refill_amount: refill.amount,
        remaining: refill.remaining,
        period_start: period,
        actor: 'system',
      },
    }
  }

  return {
    async tick() {
      if (!store.refillCredits) return 0
      const at = now()
      return store.refillCredits(at, REFILLS_PER_ROUND, async (refills) => {
        const developerOf = developerResolver(projectOwner)
        const events: WebhookEvent[] = []
        for (const refill of refills) {
          const developerId = await developerOf(refill)
          if (developerId !== null) events.push(await eventOf(refill, developerId, at))
        }
        return events
      })
    },
  }
}

/**
 * @internal One round of refills over holders kept in memory (the memory stores' keys and
 * pools): `dueAts` keeps each holder's next due time by id, `write` stores a holder's credits
 * after its refill, `refilledOf` describes one whose period turned.
 */
export function refillInMemory<T extends { readonly id: string }>(
  holders: Iterable<T>,
  dueAts: Map<string, Date>,
  now: Date,
  limit: number,
  stateOf: (holder: T) => CreditState,
  write: (holder: T, after: CreditState) => void,
  refilledOf: (holder: T, amount: number, remaining: number, periodStart: Date) => RefilledCredits,
): RefilledCredits[] {
  const turned: RefilledCredits[] = []
  let taken = 0
  for (const holder of holders) {
    if (taken >= limit) break
    const state = stateOf(holder)
    const dueAt = dueAts.get(holder.id) ?? null
    if (state.refill === null || state.remaining === null || (dueAt !== null && dueAt > now)) continue
    taken += 1
    const round = refillRound(state, dueAt, now)
    if (round.after !== state) write(holder, round.after)
    dueAts.set(holder.id, round.nextDueAt!)
    if (round.turned) {
      turned.push(refilledOf(holder, state.refill.amount, round.after.remaining!, round.after.refilledAt!))
    }
  }
  return turned
}
