import type { KeywardEvent } from '../service/events.js'

/** The most (address, error type) pairs reported one by one per interval; the rest are summed. */
export const MAX_REPORTED_PAIRS = 200
/** The most key prefixes a report names. */
const MAX_PREFIXES = 3

interface Tally {
  count: number
  readonly keyPrefixes: Set<string>
}

/** @internal Counts failed authentications per client address and error type, reported once per interval. */
export interface FailureReport {
  add(address: string | undefined, errorType: string, keyPrefix: string | undefined): void
}

/**
 * @internal Failures are counted, and each interval in which some happened ends with one
 * `auth.failures` event per (address, error type): a flood makes at most
 * {@link MAX_REPORTED_PAIRS} + a few events per interval, never one per request.
 */
export function failureReport(intervalSeconds: number, emit: (event: KeywardEvent) => void): FailureReport {
  let tallies = new Map<string, Tally & { address: string; errorType: string }>()
  let scheduled = false

  function flush() {
    const ended = tallies
    tallies = new Map()
    scheduled = false
    for (const tally of ended.values()) {
      emit({
        type: 'auth.failures',
        address: tally.address,
        errorType: tally.errorType,
        count: tally.count,
        keyPrefixes: [...tally.keyPrefixes],
        intervalSeconds,
      })
    }
  }

  return {
    add(address, errorType, keyPrefix) {
      let who = address ?? 'unknown'
      if (tallies.size >= MAX_REPORTED_PAIRS && !tallies.has(`${who} ${errorType}`)) who = 'other'
      const id = `${who} ${errorType}`
      let tally = tallies.get(id)
      if (!tally) {
        tally = { address: who, errorType, count: 0, keyPrefixes: new Set() }
        tallies.set(id, tally)
      }
      tally.count++
      if (keyPrefix !== undefined && tally.keyPrefixes.size < MAX_PREFIXES) tally.keyPrefixes.add(keyPrefix)
      if (!scheduled) {
        scheduled = true
        const timer = setTimeout(flush, intervalSeconds * 1000) as { unref?: () => void }
        timer?.unref?.()
      }
    },
  }
}
