import { Hono } from 'hono'
import { respond } from '../http/respond.js'
import type { CountersHealth } from '../protection.js'
import type { RouteContext } from './context.js'

/**
 * How long `/healthz` waits for the database before it answers 503: well within the 2 s that a
 * load balancer's probe commonly waits, so that a stalled database is seen as a failure rather
 * than as a probe that timed out.
 */
export const HEALTH_DEADLINE_MS = 900

/**
 * `GET /healthz`: 200 `{"status":"ok"}` when the database answers within
 * {@link HEALTH_DEADLINE_MS}, 503 `store_unavailable` when it does not. Probes that arrive while
 * one is waiting share it, so a stalled database holds one connection for them, not one each.
 * While the change feed is not connected or late (a stalled listen connection, a Redis relay
 * that does not answer), still 200, with `"feed":"stale"`: keys are checked on the database, and
 * revocations are not confirmed (503 `revocation_unconfirmed`) until it is back. While the
 * throttle's shared counters do not answer, still 200 (every key is checked as ever), with
 * `"throttle":"degraded"`: failed verifications are not counted then.
 */
export function healthRoutes({ store, database }: RouteContext, throttle: () => CountersHealth): Hono {
  let probe: Promise<unknown> | undefined
  const databaseAnswers = () => {
    probe ??= database('healthz', () => answersWithin(store.query('SELECT 1'), HEALTH_DEADLINE_MS)).finally(
      () => {
        probe = undefined
      },
    )
    return probe
  }
  return new Hono().get('/healthz', async (c) => {
    await databaseAnswers()
    return respond(c, 200, {
      status: 'ok',
      ...(store.changes && !store.changes.connected ? { feed: 'stale' } : {}),
      ...(throttle() === 'ok' ? {} : { throttle: 'degraded' }),
    })
  })
}

/** `pending`, or a rejection once `ms` have passed without its answer. */
function answersWithin<T>(pending: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`the database did not answer within ${ms} ms`)), ms)
  })
  return Promise.race([pending, late]).finally(() => clearTimeout(timer))
}
