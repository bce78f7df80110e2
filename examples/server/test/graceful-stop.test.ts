// SIGTERM under load, on PostgreSQL, as a real process: the server accepts no new connection,
// answers every request in flight (slow uploads included), writes the pending last uses, closes
// its pools and the change feed, and exits 0 within its bound, quietly.
import { Agent, request } from 'node:http'
import pg from 'pg'
import { describe, expect, it } from 'vitest'
import { createPgDatabase, PG_URL } from '../src/test/databases.js'
import { firstProject, serverScope, startServer } from './server-process.js'

const WORKERS = 16
const SLOW_UPLOADS = 4

interface Outcome {
  readonly status: number | string
}

/** One request on `agent`; a network error is an outcome too. */
function call(
  agent: Agent,
  base: string,
  path: string,
  headers: Record<string, string>,
  body?: { readonly parts: readonly string[]; readonly pauseMs: number },
): Promise<Outcome> {
  const url = new URL(path, base)
  return new Promise((resolve) => {
    const req = request(url, { method: 'POST', agent, headers }, (res) => {
      res.resume()
      res.on('end', () => resolve({ status: res.statusCode ?? 0 }))
      res.on('error', (error: NodeJS.ErrnoException) => resolve({ status: error.code ?? error.message }))
    })
    req.on('error', (error: NodeJS.ErrnoException) => resolve({ status: error.code ?? error.message }))
    if (!body) {
      req.end()
      return
    }
    void (async () => {
      for (const part of body.parts) {
        req.write(part)
        await new Promise((r) => setTimeout(r, body.pauseMs))
      }
      req.end()
    })()
  })
}

describe.skipIf(!PG_URL)('SIGTERM under load on PostgreSQL (set KEYWARD_PG_URL to run)', () => {
  const scope = serverScope('keyward-stop-')

  it('answers every request in flight, writes the last uses, and exits 0 within 10 s', async () => {
    const database = await createPgDatabase()
    scope.onCleanup(database.drop)
    const server = await startServer(scope.cwd(), { KEYWARD_PG_URL: database.url })
    scope.onCleanup(() => server.kill('SIGKILL'))
    const base = server.baseUrl
    const { developerKey, project, apiKey } = await firstProject(server, 'stop')
    const agent = new Agent({ keepAlive: true, maxSockets: WORKERS + SLOW_UPLOADS })
    const outcomes: Outcome[] = []
    let stopped = false
    const worker = async () => {
      while (!stopped) {
        outcomes.push(
          await call(agent, base, `/api/v1/projects/${project.id}/access-tokens`, {
            'x-api-key': apiKey.key,
          }),
        )
      }
    }
    const loadStartedAt = Date.now()
    const workers = Array.from({ length: WORKERS }, worker)
    await new Promise((resolve) => setTimeout(resolve, 2_000))
    // Uploads that are still being sent when the signal comes: 1.6 s each, from now.
    const body = JSON.stringify({ name: 'made while stopping' })
    const parts = [body.slice(0, 4), body.slice(4, 8), body.slice(8, 12), body.slice(12)]
    const uploads = Array.from({ length: SLOW_UPLOADS }, () =>
      call(
        agent,
        base,
        '/api/v1/projects',
        {
          'x-developer-key': developerKey,
          'content-type': 'application/json',
          'content-length': String(Buffer.byteLength(body)),
        },
        { parts, pauseMs: 400 },
      ),
    )
    await new Promise((resolve) => setTimeout(resolve, 300))
    const signalled = performance.now()
    const signalledAt = Date.now()
    // The clients send nothing new from the signal on (their load balancer has taken the server out).
    stopped = true
    const exit = server.stop()
    await Promise.all(workers)
    const uploaded = await Promise.all(uploads)
    const code = await exit
    const exitMs = performance.now() - signalled
    agent.destroy()

    const failed = [...outcomes, ...uploaded].filter((o) => o.status !== 201)
    expect(outcomes.length).toBeGreaterThan(WORKERS)
    expect(failed).toEqual([])
    expect(code).toBe(0)
    expect(exitMs).toBeLessThan(10_000)
    // Quiet on the way out: closing the change feed on purpose is no fault. (A feed that fell
    // behind under load before the signal may say so; that is not the stop's doing.)
    expect(server.output().split('SIGTERM: closing')[1]).not.toContain('cache.bypassed')
    expect(server.output()).not.toMatch(/^keyward-server:/m)
    // The first use after a start is written within 10 s, batched: the load took 2.3 s, so only
    // the flush on the way out can have written it.
    const client = new pg.Client({ connectionString: database.url })
    await client.connect()
    const { rows } = await client.query<{ last_used_at: Date }>(
      'SELECT last_used_at FROM keyward.api_keys WHERE key_prefix = $1 AND project_id IS NOT NULL',
      [apiKey.key_prefix],
    )
    await client.end()
    expect(rows[0]?.last_used_at?.getTime()).toBeGreaterThanOrEqual(loadStartedAt - 1_000)
    expect(rows[0]?.last_used_at?.getTime()).toBeLessThanOrEqual(signalledAt)
  }, 120_000)
})
