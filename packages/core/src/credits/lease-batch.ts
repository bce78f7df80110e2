import type { CreditLease, CreditLeaseRequest, KeyStore } from '../store/types.js'

type Lease = NonNullable<KeyStore['leaseCredits']>

interface Pending extends CreditLeaseRequest {
  readonly now: number
  resolve(lease: CreditLease | null): void
  reject(error: unknown): void
}

// The next turn of the event loop, after the I/O that is ready now: what requests arriving
// together ask for meets there. A runtime without `setImmediate` takes the next timer.
const { setImmediate } = globalThis as { setImmediate?: (fn: () => void) => unknown }
const nextTurn: (fn: () => void) => void = setImmediate ?? ((fn) => setTimeout(fn, 0))

/**
 * @internal The leases of a store with `leaseCreditsMany`, batched: the leases asked for in one
 * turn of the event loop go to the store in one call (one transaction, one commit), at the latest
 * `now` among them, and each caller gets its own lease (or error) as from `leaseCredits`. A
 * key asked for twice in one turn (never by the spender, which has one lease in flight per key)
 * starts a new batch: the ids of a batch are distinct. `undefined` for a store without it.
 */
export function batchedLeases(store: KeyStore): Lease | undefined {
  if (!store.leaseCreditsMany) return undefined
  let queued = new Map<string, Pending>()

  function send(): void {
    const batch = [...queued.values()]
    queued = new Map()
    if (batch.length === 0) return
    const now = batch.reduce((latest, pending) => Math.max(latest, pending.now), 0)
    const requests = batch.map(({ id, want, need }) => ({ id, want, need }))
    store.leaseCreditsMany!(requests, new Date(now)).then(
      (leases) => {
        for (const [i, pending] of batch.entries()) pending.resolve(leases[i] ?? null)
      },
      (error: unknown) => {
        for (const pending of batch) pending.reject(error)
      },
    )
  }

  return (id, want, need, now) =>
    new Promise((resolve, reject) => {
      if (queued.has(id)) send()
      if (queued.size === 0) nextTurn(send)
      queued.set(id, { id, want, need, now: now.getTime(), resolve, reject })
    })
}
