import type { KeywardEvent } from '@keyward/core'

type StoreError = Extract<KeywardEvent, { type: 'store.error' }>

/** Options of {@link storeErrorLog}. */
export interface StoreErrorLogOptions {
  /** Writes one log line. */
  readonly write: (line: string) => void
  /** Resolves when the database answers: asked once per interval while it fails. */
  readonly probe: () => Promise<unknown>
  /** How often failures are summed up, and the database asked. Default 10 s. */
  readonly intervalMs?: number
}

/** The log of the store's failures, summed up: a first line, counts per interval, a recovery line. */
export interface StoreErrorLog {
  report(event: StoreError): void
  close(): void
}

const causeOf = (error: unknown) => (error instanceof Error ? error.message : String(error))

/**
 * Logs a database outage in a bounded number of lines, as the throttle reports failed
 * authentications: the first failure at once, with its cause; then, once per interval, how many
 * operations failed and by which operation; then one line when the database answers again (a
 * probe, once per interval), with the outage's length and count. An outage of any length and
 * rate makes a line per interval, not a line per request.
 */
export function storeErrorLog({ write, probe, intervalMs = 10_000 }: StoreErrorLogOptions): StoreErrorLog {
  let since: number | undefined
  let total = 0
  let counts = new Map<string, number>()
  let last: unknown
  let timer: NodeJS.Timeout | undefined
  let probing = false

  const flushCounts = () => {
    if (counts.size === 0) return
    const n = [...counts.values()].reduce((a, b) => a + b, 0)
    const by = [...counts].map(([operation, count]) => `${operation} ${count}`).join(', ')
    write(`store.errors ${n} failed in the last ${intervalMs / 1000}s (${by}); last: ${causeOf(last)}`)
    counts = new Map()
  }
  const tick = () => {
    flushCounts()
    if (probing || since === undefined) return
    probing = true
    probe().then(
      () => {
        probing = false
        if (since === undefined) return
        flushCounts()
        write(
          `store.recovered: the database answers again after ${((Date.now() - since) / 1000).toFixed(1)} s (${total} failed operations)`,
        )
        since = undefined
        total = 0
        clearInterval(timer)
        timer = undefined
      },
      () => {
        probing = false
      },
    )
  }

  return {
    report(event) {
      total++
      last = event.error
      if (since === undefined) {
        since = Date.now()
        write(
          `store.error during ${event.operation}: ${causeOf(event.error)} (further failures are summed up every ${intervalMs / 1000}s until the database answers)`,
        )
        timer = setInterval(tick, intervalMs)
        timer.unref()
        return
      }
      counts.set(event.operation, (counts.get(event.operation) ?? 0) + 1)
    },
    close() {
      clearInterval(timer)
    },
  }
}
