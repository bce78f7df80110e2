// Webhook endpoints are kept by the PostgreSQL stores only: on MySQL and SQLite their routes
// answer, in the errors' format, that this server has none.
import { afterAll, beforeAll, expect, it } from 'vitest'
import { describeBackends, isPostgres } from '../test/databases.js'
import { openTestApp, type TestApp } from '../test/harness.js'

const ENDPOINTS = '/api/v1/webhooks/endpoints'

describeBackends('webhook endpoints (%s)', (backend) => {
  let t: TestApp
  beforeAll(async () => {
    t = await openTestApp(backend)
  })
  afterAll(() => t.close())

  const dev = () => ({ 'x-developer-key': t.developerKey })

  // Each case is made only on the backends it is about: on the others it is not a skipped test.
  if (isPostgres(backend))
    it('lists the endpoints of the developer (on PostgreSQL and PGlite only: the other stores keep none)', async () => {
      const listed = await t.call('GET', ENDPOINTS, { headers: dev() })
      expect([listed.status, listed.body.endpoints]).toEqual([200, []])
    })

  if (!isPostgres(backend))
    it('answers 404 not_found on every webhook route, saying why (on MySQL and SQLite only)', async () => {
      const name = backend === 'mysql' ? 'MySQL' : 'SQLite'
      const unavailable = {
        detail: [
          {
            loc: [],
            msg: `Webhooks are not available on this server: its store (${name}) keeps no webhook endpoints. They need PostgreSQL or PGlite.`,
            type: 'not_found',
          },
        ],
      }
      for (const [method, path] of [
        ['GET', ENDPOINTS],
        ['POST', ENDPOINTS],
        ['DELETE', `${ENDPOINTS}/${crypto.randomUUID()}`],
      ] as const) {
        const answer = await t.call(method, path, {
          headers: dev(),
          body: method === 'POST' ? {} : undefined,
        })
        expect(
          [answer.status, answer.headers.get('cache-control'), answer.body],
          `${method} ${path}`,
        ).toEqual([404, 'no-store', unavailable])
      }
    })
})
