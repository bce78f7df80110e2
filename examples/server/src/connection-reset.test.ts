// The server on PostgreSQL as it runs (a pool of 10, the default timeout) while every one of
// its connections is terminated under load: answers are 201 or 503 (with Retry-After), it
// recovers by itself, and every key it acknowledged exists and verifies.
import pg from 'pg'
import { afterEach, describe, expect, it } from 'vitest'
import { PG_URL } from './test/databases.js'
import { openTestApp, type TestApp } from './test/harness.js'

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

describe.skipIf(!PG_URL)('connections reset on PostgreSQL (set KEYWARD_PG_URL to run)', () => {
  let t: TestApp | undefined
  let admin: pg.Client | undefined
  afterEach(async () => {
    await admin?.end().catch(() => {})
    await t?.close()
    t = admin = undefined
  })

  it("pg_terminate_backend of all the server's connections under load: 201 or 503, recovery, nothing acknowledged lost", async () => {
    t = await openTestApp('postgres', { serverDefaults: true })
    const app = t
    admin = new pg.Client({ connectionString: app.url })
    await admin.connect()
    const { projectId, apiKey } = await app.project('Resets')
    const create = () =>
      app.call('POST', `/api/v1/projects/${projectId}/api-keys`, {
        headers: { 'x-developer-key': app.developerKey },
        body: { name: 'load' },
      })
    const verify = (key: string) =>
      app.call('POST', `/api/v1/projects/${projectId}/access-tokens`, {
        headers: { 'x-api-key': key },
      })

    const acknowledged: Array<{ id: string; key: string }> = [{ id: '', key: apiKey }]
    const statuses: number[] = []
    let running = true
    const worker = async () => {
      while (running) {
        const [created, verified] = await Promise.all([create(), verify(apiKey)])
        for (const answer of [created, verified]) {
          statuses.push(answer.status)
          if (answer.status === 503) expect(answer.headers.get('retry-after')).toMatch(/^\d+$/)
        }
        if (created.status === 201) acknowledged.push({ id: created.body.id, key: created.body.key })
      }
    }
    const workers = Array.from({ length: 6 }, worker)
    const terminate = async () =>
      (
        await admin!.query<{ n: number }>(
          `SELECT count(pg_terminate_backend(pid))::int AS n FROM pg_stat_activity
           WHERE datname = current_database() AND pid <> pg_backend_pid() AND backend_type = 'client backend'`,
        )
      ).rows[0]!.n
    await sleep(300)
    let terminated = 0
    for (let round = 0; round < 5; round++) {
      terminated += await terminate()
      await sleep(250)
    }
    // Recovery: from the last reset to the first key created after it.
    const lastReset = performance.now()
    terminated += await terminate()
    let recoveredMs = Number.POSITIVE_INFINITY
    for (;;) {
      const answer = await create()
      if (answer.status === 201) {
        recoveredMs = performance.now() - lastReset
        acknowledged.push({ id: answer.body.id, key: answer.body.key })
        break
      }
      expect(answer.status).toBe(503)
      if (performance.now() - lastReset > 5000) break
      await sleep(20)
    }
    running = false
    await Promise.all(workers)

    expect(terminated).toBeGreaterThan(5) // the resets hit the server's connections
    expect(recoveredMs).toBeLessThan(2000)
    expect([...new Set(statuses)].filter((s) => s !== 201 && s !== 503)).toEqual([])
    expect(statuses.filter((s) => s === 201).length).toBeGreaterThan(10)
    // Every key answered 201 exists, active, and verifies.
    const ids = acknowledged.slice(1).map((a) => a.id)
    const stored = await admin.query(
      `SELECT count(*)::int AS n FROM keyward.api_keys WHERE id = ANY($1) AND active`,
      [ids],
    )
    expect(stored.rows[0].n).toBe(ids.length)
    for (const { key } of acknowledged) expect((await verify(key)).status).toBe(201)
  })
})
