import { KeywardError } from '../errors/error.js'
import { ErrorType } from '../errors/types.js'
import { KEY_HEADER } from '../key/format.js'
import type { KeyRef } from '../service/requirements.js'
import type { CreditLease, KeyStore } from '../store/types.js'
import type { TelemetryTracer } from '../telemetry/types.js'
import type { LeasedCredits } from '../webhooks/credit-alerts.js'
import { batchedLeases } from './lease-batch.js'
import { leaseSpans } from './lease-spans.js'
import { type CreditHolder, nextRefillAt } from './model.js'
import type { CreditRefill } from './types.js'

/** The response header that carries the credits a key has left. */
export const CREDITS_HEADER = 'x-credits-remaining'

/**
 * How a process leases credits (option `credits` of `createKeyward`).
 *
 * @example
 * ```ts
 * const keyward = createKeyward({ store, credits: { leaseSeconds: 2, maxBlock: 5000 } })
 * ```
 */
export interface CreditOptions {
  /**
   * How many seconds of this process's recent spending on a key one lease takes, so that a busy
   * key costs the store about one write per this many seconds. Default 1.
   */
  readonly leaseSeconds?: number
  /** The most credits one lease takes: what a process killed with `kill -9` can strand. Default 1000. */
  readonly maxBlock?: number
  /**
   * For how long a key found without enough credits is refused from memory before the store is
   * asked again (a refill due sooner is waited for only until it is due). Default 1000 ms.
   */
  readonly recheckMs?: number
  /**
   * At a clean stop (`keyward.close()`), for how long giving back the credits this process leased
   * and did not spend is retried while the store cannot be reached (with backoff, 100 ms doubling
   * to 1 s). What is still not given back then is reported as `credits.stranded` (key prefix and
   * count) and stays spent. The usage counts not yet written are retried as long, then reported
   * as `usage.stranded`. Default 5000 ms.
   */
  readonly returnTimeoutMs?: number
}

/** @internal Credits that a stop could not give back: a key's own, or an identity's pool's. */
export type StrandedCredits =
  | { readonly keyId: string; readonly keyPrefix: string; readonly credits: number }
  | { readonly identityId: string; readonly credits: number }

/** @internal What a spend answers: the headers of an accepted request, or the refusal. */
export type SpendOutcome = Readonly<Record<string, string>> | KeywardError

/** Where an account's credits are leased from and given back to. */
interface CreditSource {
  readonly operation: string
  lease(id: string, want: number, need: number, now: Date): Promise<CreditLease | null>
  giveBack(id: string, amount: number): Promise<void>
}

/** The credits of one key, or of one identity's pool, in this process. */
interface Account {
  readonly holder: CreditHolder
  readonly id: string
  /** The key whose request opened the account (for a pool: one of its identity's keys). */
  readonly key: KeyRef
  /** The key's prefix; `undefined` for an identity's pool. */
  readonly keyPrefix: string | undefined
  readonly source: CreditSource
  /** Leased and not spent, in this process's memory. */
  block: number
  /** The stored balance as the last lease left it, or the record's when none was taken yet. */
  balance: number | null
  refill: CreditRefill | null
  /** When the last lease answered (clock ms); 0 before any. */
  checkedAt: number
  /** The lease in flight, if any: requests that need credits wait on it. */
  leasing: Promise<void> | undefined
  /** The cost of requests waiting for the lease in flight: the next lease asks for them. */
  demand: number
  /** Credits spent since the last lease began, and when it began: the recent rate. */
  spent: number
  since: number
  /** The last lease's grant: a new lease starts when the block falls under half of it. */
  lastGrant: number
  /** Whether a request waited for a lease since the last one began: the next block doubles. */
  starved: boolean
}

/**
 * @internal Leases credits for the guards of one service, and gives back the rest at `close`.
 * A request spends from the key's own credits (`own`, the balance its record had; `null` for a
 * key without a limit) and from its identity's pool (`pool`, likewise; `null` without one): from
 * both or from neither.
 */
export interface CreditSpender {
  /** Whether `spendNow` would answer from memory (accept or refuse), without spending. */
  knowsNow(
    key: KeyRef,
    own: number | null,
    identityId: string | null,
    pool: number | null,
    cost: number,
  ): boolean
  /** The outcome when it is known from memory, else `undefined` (then call `spend`). */
  spendNow(
    key: KeyRef,
    own: number | null,
    identityId: string | null,
    pool: number | null,
    cost: number,
  ): SpendOutcome | undefined
  spend(
    key: KeyRef,
    own: number | null,
    identityId: string | null,
    pool: number | null,
    cost: number,
  ): Promise<SpendOutcome>
  /** Forgets what this process knows of a balance (its block stays): after a change of credits. */
  forget(holder: CreditHolder, id: string): void
  /**
   * A change of credits this process made, with the balance and rule it left in the store. A `set`
   * is the balance from now on in this process: its block is dropped (what it held was spent
   * from the store's viewpoint, and the set replaces that balance). An `add` or a `subtract` keeps
   * the block, and the balance this process knows is the stored one.
   */
  changed(
    holder: CreditHolder,
    id: string,
    op: 'set' | 'add' | 'subtract',
    remaining: number | null,
    refill: CreditRefill | null,
  ): void
  /**
   * Waits for leases in flight and gives back every unspent block, retrying for `returnTimeoutMs`
   * while the store cannot be reached; resolves with what it could not give back.
   */
  close(): Promise<StrandedCredits[]>
}

const positive = (value: number | undefined, fallback: number, name: string, integer = false) => {
  if (value === undefined) return fallback
  if (
    typeof value !== 'number' ||
    !(value > 0) ||
    !Number.isFinite(value) ||
    (integer && !Number.isInteger(value))
  ) {
    throw new TypeError(
      `createKeyward: option \`credits.${name}\` must be a positive ${integer ? 'integer' : 'number'}.`,
    )
  }
  return value
}

/** @internal Checks the option `credits` once. */
export function checkCreditOptions(options: CreditOptions | undefined): Required<CreditOptions> {
  if (options !== undefined && (typeof options !== 'object' || options === null)) {
    throw new TypeError('createKeyward: option `credits` must be an object, e.g. { leaseSeconds: 1 }.')
  }
  return {
    leaseSeconds: positive(options?.leaseSeconds, 5, 'leaseSeconds'),
    maxBlock: positive(options?.maxBlock, 1000, 'maxBlock', true),
    recheckMs: positive(options?.recheckMs, 1000, 'recheckMs'),
    returnTimeoutMs: positive(options?.returnTimeoutMs, 5000, 'returnTimeoutMs', true),
  }
}

// Where the store keeps each holder's credits, or `undefined` when it keeps none of them.
function creditSources(
  store: KeyStore,
  tracer: TelemetryTracer | undefined,
  prefixOf: (id: string) => string | undefined,
): Record<CreditHolder, CreditSource | undefined> {
  const { identities } = store
  return {
    key:
      store.leaseCredits && store.returnCredits
        ? {
            operation: 'leaseCredits',
            // With `leaseCreditsMany`, the leases of one turn go to the store in one call.
            lease: leaseSpans(
              batchedLeases(store) ?? store.leaseCredits.bind(store),
              tracer,
              prefixOf,
              'key',
            ),
            giveBack: store.returnCredits.bind(store),
          }
        : undefined,
    identity: identities
      ? {
          operation: 'leaseIdentityCredits',
          lease: leaseSpans(
            identities.leaseIdentityCredits.bind(identities),
            tracer,
            () => undefined,
            'identity',
          ),
          giveBack: identities.returnIdentityCredits.bind(identities),
        }
      : undefined,
  }
}

/**
 * @internal Builds the spender. Credits are spent from a block leased with one conditional
 * write; the block is sized by the recent rate in this process, at most a quarter of the
 * balance (so that other processes still find credits) and at most `maxBlock`. A new lease
 * starts in the background when half of the block is left, so a busy key rarely waits. A key's
 * own credits and its identity's pool are two accounts: a request is accepted when the blocks of
 * both hold its cost, and then takes it from both at once; it is refused by the first that
 * cannot pay, the key's own first, and takes nothing from either. `onLease` sees each lease's
 * result (the webhook alerts of low and exhausted credits look at it there, not per request).
 */
export function createCreditSpender(
  store: KeyStore,
  options: Required<CreditOptions>,
  clock: () => number,
  storeError: (operation: string, error: unknown) => KeywardError,
  tracer?: TelemetryTracer,
  onLease?: (leased: LeasedCredits) => void,
): CreditSpender {
  // A key's accounts by key id, and the pools' by identity id: one pool account per identity in
  // this process, whichever of its keys spends.
  const accounts: Record<CreditHolder, Map<string, Account>> = { key: new Map(), identity: new Map() }
  let closed = false
  const { leaseSeconds, maxBlock, recheckMs, returnTimeoutMs } = options
  const sources = creditSources(store, tracer, (id) => accounts.key.get(id)?.keyPrefix)

  function accountOf(holder: CreditHolder, id: string, key: KeyRef, balance: number) {
    let account = accounts[holder].get(id)
    if (!account) {
      const source = sources[holder]
      if (!source) {
        throw new TypeError(
          holder === 'key'
            ? 'This key store cannot keep credits (no `leaseCredits` and `returnCredits`).'
            : 'This key store keeps no identities, whose pools a key spends from (no `identities`).',
        )
      }
      const at = clock()
      account = {
        holder,
        id,
        key,
        keyPrefix: holder === 'key' ? key.keyPrefix : undefined,
        source,
        block: 0,
        balance,
        refill: null,
        checkedAt: 0,
        leasing: undefined,
        demand: 0,
        spent: 0,
        since: at,
        lastGrant: 0,
        starved: false,
      }
      accounts[holder].set(id, account)
    }
    return account
  }

  const left = (account: Account) => (account.balance ?? 0) + account.block

  // A literal key, not CREDITS_HEADER computed: built on every accepted request. With both
  // accounts, what the key can still spend: the lower of the two.
  const accepted = (own: Account | undefined, pool: Account | undefined): SpendOutcome => ({
    'x-credits-remaining': String(
      own === undefined ? left(pool!) : pool === undefined ? left(own) : Math.min(left(own), left(pool)),
    ),
  })

  function refusal(account: Account, cost: number, now: number): KeywardError {
    const remain = left(account)
    const headers: Record<string, string> = { [CREDITS_HEADER]: String(remain) }
    let when = ''
    if (account.refill) {
      const next = nextRefillAt(account.refill, new Date(now))
      headers['retry-after'] = String(Math.max(1, Math.ceil((next.getTime() - now) / 1000)))
      when = ` They refill at ${next.toISOString()}.`
    }
    const whose = account.keyPrefix === undefined ? "this API key's identity" : 'this API key'
    return new KeywardError(
      ErrorType.usageExceeded,
      `The credits of ${whose} are spent: this request costs ${cost}, ${remain} remain.${when}`,
      ['header', KEY_HEADER.project],
      { headers },
    )
  }

  // Whether the balance last seen may be trusted at `now`: recent, and no refill due since.
  const fresh = (account: Account, now: number) =>
    account.checkedAt > 0 &&
    now - account.checkedAt < recheckMs &&
    (account.refill === null || nextRefillAt(account.refill, new Date(account.checkedAt)).getTime() > now)

  // Whether memory knows that the account cannot pay `cost`: no lease out, and a fresh balance too low.
  const short = (account: Account, cost: number, now: number) =>
    !account.leasing && fresh(account, now) && left(account) < cost

  function takeLease(account: Account, need: number): Promise<void> {
    const now = clock()
    const rate = (account.spent * 1000) / Math.max(1, now - account.since)
    // The recent rate, and twice the last block when requests had to wait for this one: an
    // account whose leases cannot keep up with it (a slow commit) gets blocks that do, up to
    // `maxBlock`.
    let want = Math.max(
      need + account.demand,
      Math.ceil(rate * leaseSeconds),
      account.starved ? account.lastGrant * 2 : 0,
    )
    if (account.balance !== null) want = Math.min(want, Math.ceil(account.balance / 4))
    // What this process holds and what it leases never pass `maxBlock` together (or the one
    // request's need, when larger): what a crash strands is at most one block.
    want = closed ? need : Math.max(need, Math.min(want, maxBlock - account.block))
    account.demand = 0
    account.starved = false
    account.spent = 0
    account.since = now
    const leasing = account.source.lease(account.id, want, need, new Date(now)).then(
      (granted) => {
        account.leasing = undefined
        account.checkedAt = clock()
        if (granted === null) {
          account.balance = 0
          return
        }
        account.block += granted.granted
        account.balance = granted.remaining
        account.refill = granted.refill
        account.lastGrant = granted.granted
        onLease?.({ holder: account.holder, id: account.id, key: account.key, lease: granted })
      },
      (error: unknown) => {
        account.leasing = undefined
        throw storeError(account.source.operation, error)
      },
    )
    account.leasing = leasing
    return leasing
  }

  function take(account: Account, cost: number): void {
    account.block -= cost
    account.spent += cost
    if (!account.leasing && !closed && account.block * 2 < account.lastGrant && account.balance !== 0) {
      // Ahead of need, in the background: a failure here is the next request's to meet.
      takeLease(account, 1).catch(() => {})
    }
  }

  const mineOf = (key: KeyRef, own: number | null) =>
    own === null ? undefined : accountOf('key', key.id, key, own)
  const sharedOf = (key: KeyRef, identityId: string | null, pool: number | null) =>
    pool === null || identityId === null ? undefined : accountOf('identity', identityId, key, pool)
  // Both or neither: the cost is taken only when every account's block holds it.
  const pays = (mine: Account | undefined, shared: Account | undefined, cost: number) =>
    (mine === undefined || mine.block >= cost) && (shared === undefined || shared.block >= cost)
  // The account that memory knows cannot pay, the key's own first.
  const unpaid = (mine: Account | undefined, shared: Account | undefined, cost: number, now: number) =>
    mine && short(mine, cost, now) ? mine : shared && short(shared, cost, now) ? shared : undefined

  function spendNow(
    key: KeyRef,
    own: number | null,
    identityId: string | null,
    pool: number | null,
    cost: number,
  ): SpendOutcome | undefined {
    const mine = mineOf(key, own)
    const shared = sharedOf(key, identityId, pool)
    if (pays(mine, shared, cost)) {
      if (mine) take(mine, cost)
      if (shared) take(shared, cost)
      return accepted(mine, shared)
    }
    const now = clock()
    const refused = unpaid(mine, shared, cost, now)
    return refused && refusal(refused, cost, now)
  }

  async function spend(
    key: KeyRef,
    own: number | null,
    identityId: string | null,
    pool: number | null,
    cost: number,
  ): Promise<SpendOutcome> {
    for (;;) {
      const known = spendNow(key, own, identityId, pool, cost)
      if (known) return known
      // The first account whose block cannot pay, the key's own first: the pool is leased only
      // once the key's block holds the cost.
      const mine = own === null ? undefined : accounts.key.get(key.id)
      const account = mine && mine.block < cost ? mine : (accounts.identity.get(identityId!) as Account)
      account.starved = account.lastGrant > 0
      if (account.leasing) {
        account.demand += cost
        await account.leasing
        continue
      }
      await takeLease(account, cost - account.block)
      // The lease found too few credits: refused now, whatever `recheckMs` says.
      if (account.block < cost && left(account) < cost) return refusal(account, cost, clock())
    }
  }

  return {
    knowsNow(key, own, identityId, pool, cost) {
      const mine = mineOf(key, own)
      const shared = sharedOf(key, identityId, pool)
      return pays(mine, shared, cost) || unpaid(mine, shared, cost, clock()) !== undefined
    },
    spendNow,
    spend,
    forget(holder, id) {
      const account = accounts[holder].get(id)
      if (account) account.checkedAt = 0
    },
    changed(holder, id, op, remaining, refill) {
      const account = accounts[holder].get(id)
      if (!account) return
      if (remaining === null) {
        // Unlimited now: nothing of it is counted here any more.
        accounts[holder].delete(id)
        return
      }
      if (op === 'set') {
        account.block = 0
        account.lastGrant = 0
      }
      account.balance = remaining
      account.refill = refill
      account.checkedAt = clock()
    },
    async close() {
      closed = true
      const all = [...accounts.key.values(), ...accounts.identity.values()]
      await Promise.allSettled(all.map((account) => account.leasing))
      let held = all.filter((account) => account.block > 0)
      const stranded: StrandedCredits[] = []
      const deadline = Date.now() + returnTimeoutMs
      for (let wait = 100; held.length > 0; wait = Math.min(1000, wait * 2)) {
        const results = await Promise.allSettled(
          held.map((account) => account.source.giveBack(account.id, account.block)),
        )
        const again = Date.now() + wait <= deadline
        held = held.filter((account, i) => {
          const result = results[i]!
          // A give-back that may have been made is never made again: credits would be counted twice.
          if (result.status === 'rejected' && hadNoEffect(result.reason) && again) return true
          if (result.status === 'rejected') {
            const { id, keyPrefix, block: credits } = account
            stranded.push(
              keyPrefix === undefined ? { identityId: id, credits } : { keyId: id, keyPrefix, credits },
            )
          }
          account.block = 0
          return false
        })
        if (held.length > 0) await new Promise<void>((resolve) => setTimeout(resolve, wait))
      }
      return stranded
    },
  }
}

/**
 * Whether a failed store call certainly changed nothing: it was refused before it reached the
 * database (`outcome: 'none'`, or a connection that could not be made). Only those are retried.
 */
function hadNoEffect(error: unknown): boolean {
  if (typeof error !== 'object' || error === null) return false
  const { outcome, code } = error as { outcome?: unknown; code?: unknown }
  if (outcome !== undefined) return outcome === 'none'
  return typeof code === 'string' && NOT_CONNECTED.has(code)
}

const NOT_CONNECTED = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
  '57P03',
])
