import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { type Keyward, type KeywardEvent, USAGE_OUTCOMES } from '@keyward/core'
import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client'
import type { ServerStore } from './db/sql.js'

/**
 * The server's Prometheus metrics, built from the key service's `onEvent` hook and the stats the
 * service and the store expose. Served on a port of their own (`KEYWARD_METRICS_PORT`), never
 * on the API's: what they tell (failure rates, pool pressure) is for operators only.
 */
export interface Metrics {
  /** Counts what the metrics need of an event (throttled failures). Cheap: called for every event. */
  onEvent(event: KeywardEvent): void
  /** The service with its verifications timed (a latency histogram). */
  timed(keyward: Keyward): Keyward
  /** Listens on `host:port`; resolves to the metrics' URL. */
  listen(host: string, port: number): Promise<string>
  close(): Promise<void>
}

// From 50 µs (a cached verification) to 2.5 s (a store at its timeout).
const LATENCY_BUCKETS = [
  0.00005, 0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1, 2.5,
]

/**
 * The metrics of one server over `store`; `keyward` is read at each scrape (it is built after
 * the metrics, which time it).
 */
export function createMetrics(store: ServerStore, keyward: () => Keyward | undefined): Metrics {
  const registry = new Registry()
  collectDefaultMetrics({ register: registry })
  const started = Date.now()

  new Counter({
    name: 'keyward_verifications_total',
    help: 'Verifications of keys by outcome (accepted, or the refusal), as usage counts them, since the start.',
    labelNames: ['outcome'],
    registers: [registry],
    collect() {
      const totals = keyward()?.usageStats()?.totals
      if (!totals) return
      this.reset()
      for (const outcome of USAGE_OUTCOMES) this.inc({ outcome }, totals[outcome])
    },
  })
  const latency = new Histogram({
    name: 'keyward_verification_duration_seconds',
    help: 'How long a verification took, from the key read to the answer (cache, store and checks).',
    buckets: LATENCY_BUCKETS,
    registers: [registry],
  })
  new Counter({
    name: 'keyward_cache_lookups_total',
    help: 'Lookups of the verification cache: hit (answered from memory), miss (filled from the store), bypassed (the feed was down).',
    labelNames: ['result'],
    registers: [registry],
    collect() {
      const stats = keyward()?.cacheStats()
      if (!stats) return
      this.reset()
      this.inc({ result: 'hit' }, stats.hits)
      this.inc({ result: 'miss' }, stats.misses)
      this.inc({ result: 'bypassed' }, stats.bypassed)
    },
  })
  new Gauge({
    name: 'keyward_cache_hit_ratio',
    help: 'Hits over all lookups of the verification cache since the start (0 before the first).',
    registers: [registry],
    collect() {
      const stats = keyward()?.cacheStats()
      const all = stats ? stats.hits + stats.misses + stats.bypassed : 0
      this.set(all === 0 ? 0 : stats!.hits / all)
    },
  })
  new Gauge({
    name: 'keyward_change_feed_connected',
    help: 'Whether the change feed hears every write (1), or the cache is bypassed (0).',
    registers: [registry],
    collect() {
      this.set(store.changes?.connected ? 1 : 0)
    },
  })
  new Gauge({
    name: 'keyward_change_feed_lag_seconds',
    help: 'Under strict revocation, the age of the latest fence the change feed heard back (how far behind the primary it may be); 0 without fences.',
    registers: [registry],
    collect() {
      const fences = (store.changes as { fences?: { ageMs: number } } | undefined)?.fences
      this.set(fences && Number.isFinite(fences.ageMs) ? fences.ageMs / 1000 : 0)
    },
  })
  new Gauge({
    name: 'keyward_pool_connections',
    help: "Connections of the primary's pool: in use, idle, and requests waiting for one (PostgreSQL only).",
    labelNames: ['state'],
    registers: [registry],
    collect() {
      const pool = 'poolStats' in store ? store.poolStats : undefined
      if (!pool) return
      this.set({ state: 'in_use' }, pool.total - pool.idle)
      this.set({ state: 'idle' }, pool.idle)
      this.set({ state: 'waiting' }, pool.waiting)
    },
  })
  const throttled = new Counter({
    name: 'keyward_failed_authentications_total',
    help: 'Failed authentications counted against client addresses, by the error type answered (rate_limited: refused by the throttle).',
    labelNames: ['error_type'],
    registers: [registry],
  })
  new Gauge({
    name: 'keyward_usage_flush_lag_seconds',
    help: 'Seconds since usage counts were last written (since the start before the first write): what a crash would lose.',
    registers: [registry],
    collect() {
      const stats = keyward()?.usageStats()
      if (!stats) return
      const pending = stats.pending > 0
      this.set(pending ? (Date.now() - (stats.lastFlushAt ?? started)) / 1000 : 0)
    },
  })
  new Gauge({
    name: 'keyward_usage_pending_rows',
    help: 'Usage counts held in memory, not yet written (rows: minute, key and outcome).',
    registers: [registry],
    collect() {
      this.set(keyward()?.usageStats()?.pending ?? 0)
    },
  })
  new Counter({
    name: 'keyward_usage_failed_flushes_total',
    help: 'Writes of usage counts that failed (their counts are kept for the next).',
    registers: [registry],
    collect() {
      const failed = keyward()?.usageStats()?.failedFlushes
      if (failed === undefined) return
      this.reset()
      this.inc(failed)
    },
  })

  let server: Server | undefined

  return {
    onEvent(event) {
      if (event.type === 'auth.failures') throttled.inc({ error_type: event.errorType }, event.count)
    },
    timed(service) {
      const observe = (since: number) => () => latency.observe((performance.now() - since) / 1000)
      return {
        ...service,
        authenticate: ((credentials, requirement) => {
          const since = performance.now()
          const result = service.authenticate(credentials, requirement)
          const done = observe(since)
          result.then(done, done)
          return result
        }) as Keyward['authenticate'],
        keyNow(...args) {
          const since = performance.now()
          const known = service.keyNow(...args)
          if (known !== undefined) observe(since)()
          return known
        },
      }
    },
    listen(host, port) {
      server = createServer((req, res) => {
        if (req.method !== 'GET' || req.url?.split('?')[0] !== '/metrics') {
          res
            .writeHead(404, { 'content-type': 'text/plain' })
            .end('Not found: the metrics are at /metrics.\n')
          return
        }
        registry.metrics().then(
          (text) => res.writeHead(200, { 'content-type': registry.contentType }).end(text),
          () => res.writeHead(500).end(),
        )
      })
      return new Promise((resolve, reject) => {
        server!.once('error', reject)
        server!.listen(port, host, () => {
          const { address, port: bound } = server!.address() as AddressInfo
          resolve(`http://${address.includes(':') ? `[${address}]` : address}:${bound}/metrics`)
        })
      })
    },
    close() {
      return new Promise((resolve) => (server ? server.close(() => resolve()) : resolve()))
    },
  }
}
