import type { KeyRecord } from '../store/types.js'

const settled = Promise.resolve()

/**
 * @internal Single flight: concurrent lookups of one key hash are one store call, whether the
 * verification cache answers or is bypassed (a late change feed), so that a busy key costs the
 * store one lookup at a time instead of one per request in flight.
 *
 * A request never takes an answer that was read before it arrived. It joins the lookup of its
 * hash sent in the same tick (nothing can have been written and acknowledged in between, and a
 * write or notification heard in that tick closes it: {@link forget}), or else the lookup that
 * gathers requests behind the one out, sent once that one has returned. A revocation committed
 * before a request arrived, here or in another process, heard by the change feed or not, is
 * therefore in the answer the request gets. At most two lookups of a hash are outstanding: one
 * out, one gathering. A lookup that fails fails the one gathering behind it too: the failure
 * refuses (503), so it never lets a request through, and a store that just failed is not asked
 * again at once.
 */
export class LookupFlights {
  /**
   * The lookups that were sent and have not returned, by hash: the first in a slot of its own,
   * so that a store that answers one lookup at a time costs no map operations (they cost as much
   * as the rest of a verification on the memory store).
   */
  #solo: Flight | undefined
  readonly #out = new Map<string, Flight>()
  /** The lookup of each hash that gathers requests behind one that is out. */
  readonly #gathering = new Map<string, Promise<KeyRecord | null>>()
  readonly #send: (hash: string) => Promise<KeyRecord | null>
  /** The tick: a lookup sent in an earlier one is joined by no request. */
  #tick = 0
  #ticking = false
  readonly #nextTick = () => {
    this.#tick++
    this.#ticking = false
  }

  /** `send` asks the store (and the cache, which may have been filled meanwhile). */
  constructor(send: (hash: string) => Promise<KeyRecord | null>) {
    this.#send = send
  }

  /** The record of `hash`, or `null`, from a lookup sent no earlier than the tick of this call. */
  lookup(hash: string): Promise<KeyRecord | null> {
    const out = this.#outOf(hash)
    if (out === undefined) return this.#start(hash)
    if (out.tick === this.#tick) return out.sent
    const gathering = this.#gathering.get(hash)
    if (gathering !== undefined) return gathering
    const flight = out.sent.then(
      () => {
        this.#gathering.delete(hash)
        return this.#start(hash)
      },
      (error: unknown) => {
        this.#gathering.delete(hash)
        throw error
      },
    )
    this.#gathering.set(hash, flight)
    return flight
  }

  /** A key was written, or a change heard: no request from now on joins a lookup sent before. */
  forget(hash: string): void {
    const out = this.#outOf(hash)
    if (out !== undefined) out.tick = -1
  }

  /** Like {@link forget}, for every key (the change feed connected or dropped). */
  forgetAll(): void {
    this.#tick++
  }

  #outOf(hash: string): Flight | undefined {
    if (this.#solo?.hash === hash) return this.#solo
    return this.#out.size === 0 ? undefined : this.#out.get(hash)
  }

  #start(hash: string): Promise<KeyRecord | null> {
    const sent = this.#send(hash)
    const flight: Flight = { hash, sent, tick: this.#tick }
    if (this.#solo === undefined) this.#solo = flight
    else this.#out.set(hash, flight)
    if (!this.#ticking) {
      this.#ticking = true
      settled.then(this.#nextTick)
    }
    const done = () => {
      if (this.#solo === flight) this.#solo = undefined
      else if (this.#out.get(hash) === flight) this.#out.delete(hash)
    }
    sent.then(done, done)
    return sent
  }
}

interface Flight {
  readonly hash: string
  readonly sent: Promise<KeyRecord | null>
  /** The tick it was sent in, while requests may join it; -1 once a change of its key was heard. */
  tick: number
}
