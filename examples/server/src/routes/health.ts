import { Hono } from 'hono'
import { respond } from '../http/respond.js'
import type { CountersHealth } from '../protection.js'
import type { RouteContext } from './context.js'

/**
 * `GET /healthz`: 200 `{"status":"ok"}` when the database answers, 503 `store_unavailable` when
 * it does not. While the throttle's shared counters do not answer, still 200 (every key is
 * checked as ever), with `"throttle":"degraded"`: failed verifications are not counted then.
 */
export function healthRoutes({ store, database }: RouteContext, throttle: () => CountersHealth): Hono {
  return new Hono().get('/healthz', async (c) => {
    await database('healthz', () => store.query('SELECT 1'))
    return respond(c, 200, throttle() === 'ok' ? { status: 'ok' } : { status: 'ok', throttle: 'degraded' })
  })
}
