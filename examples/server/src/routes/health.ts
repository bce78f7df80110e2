import { Hono } from 'hono'
import { respond } from '../http/respond.js'
import type { RouteContext } from './context.js'

/** `GET /healthz`: 200 when the database answers, 503 `store_unavailable` when it does not. */
export function healthRoutes({ store, database }: RouteContext): Hono {
  return new Hono().get('/healthz', async (c) => {
    await database('healthz', () => store.query('SELECT 1'))
    return respond(c, 200, { status: 'ok' })
  })
}
