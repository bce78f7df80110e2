// Usage counts and metrics of the built server, as real processes on PGlite: a clean stop
// (SIGTERM, SIGINT) loses no count, a kill -9 at most the last flush interval; the metrics answer
// on their own port, and their series move with the traffic.
import { describe, expect, it } from 'vitest'
import {
  type FirstProject,
  firstProject,
  freePort,
  type ServerProcess,
  serverScope,
  startServer,
} from './server-process.js'

// Verifies the project's API key (or a presented value) once: an access token is its cheapest use.
async function verify(server: ServerProcess, projectId: string, apiKey: string): Promise<number> {
  const response = await fetch(`${server.baseUrl}/api/v1/projects/${projectId}/access-tokens`, {
    method: 'POST',
    headers: { 'x-api-key': apiKey },
  })
  await response.arrayBuffer()
  return response.status
}

async function verifyMany(server: ServerProcess, first: FirstProject, n: number): Promise<void> {
  for (let i = 0; i < n; i++) expect(await verify(server, first.project.id, first.apiKey.key)).toBe(201)
}

// The stored counts of the project's keys, summed per outcome, read through the API.
async function storedCounts(server: ServerProcess, first: FirstProject): Promise<Record<string, number>> {
  const response = await fetch(
    `${server.baseUrl}/api/v1/projects/${first.project.id}/usage?granularity=day`,
    {
      headers: { 'x-developer-key': first.developerKey },
    },
  )
  expect(response.status).toBe(200)
  const body = (await response.json()) as { usage: { outcome: string; count: number }[] }
  const sums: Record<string, number> = {}
  for (const row of body.usage) sums[row.outcome] = (sums[row.outcome] ?? 0) + row.count
  return sums
}

/** One series' value in a Prometheus text page, or 0 when it is absent. */
function series(page: string, name: string): number {
  const line = page.split('\n').find((l) => l.startsWith(`${name} `))
  return line ? Number(line.slice(name.length + 1)) : 0
}

describe('usage counts across stops of the server process', () => {
  const scope = serverScope('keyward-usage-')

  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    it(`a clean stop (${signal}) writes every count: a restart reads them exactly`, async () => {
      // A flush interval longer than the test: only the stop can write the counts.
      const env = { KEYWARD_DATA_DIR: `clean-${signal}`, KEYWARD_USAGE_FLUSH_SECONDS: '60' }
      const server = await startServer(scope.cwd(), env)
      scope.onCleanup(() => server.kill('SIGKILL'))
      const first = await firstProject(server, 'usage')
      await verifyMany(server, first, 25)
      expect(await verify(server, 'another-project', first.apiKey.key)).toBe(403)
      expect(await server.kill(signal)).toBe(0)
      const again = await startServer(scope.cwd(), env)
      scope.onCleanup(() => again.kill('SIGKILL'))
      expect(await storedCounts(again, first)).toEqual({ accepted: 25, wrong_project: 1 })
      await again.stop()
    }, 120_000)
  }

  it('a kill -9 loses at most the counts of the last flush interval', async () => {
    const env = { KEYWARD_DATA_DIR: 'killed', KEYWARD_USAGE_FLUSH_SECONDS: '1' }
    const server = await startServer(scope.cwd(), env)
    scope.onCleanup(() => server.kill('SIGKILL'))
    const first = await firstProject(server, 'usage')
    await verifyMany(server, first, 30)
    // Three flush intervals: the 30 are written, whatever the load.
    await new Promise((resolve) => setTimeout(resolve, 3_000))
    await verifyMany(server, first, 10)
    expect(await server.kill('SIGKILL')).toBe('SIGKILL')
    const again = await startServer(scope.cwd(), env)
    scope.onCleanup(() => again.kill('SIGKILL'))
    const { accepted = 0 } = await storedCounts(again, first)
    expect(accepted).toBeGreaterThanOrEqual(30)
    expect(accepted).toBeLessThanOrEqual(40)
    await again.stop()
  }, 120_000)
})

describe('metrics of the server', () => {
  const scope = serverScope('keyward-metrics-')

  it('answer on their own port, not the API’s, and their series move with the traffic', async () => {
    const port = await freePort()
    const server = await startServer(scope.cwd(), {
      KEYWARD_METRICS_PORT: String(port),
      KEYWARD_USAGE_FLUSH_SECONDS: '1',
    })
    scope.onCleanup(() => server.kill('SIGKILL'))
    expect(server.stdout()).toContain(`Metrics: http://127.0.0.1:${port}/metrics`)
    const first = await firstProject(server, 'metrics')
    const scrape = async () => {
      const response = await fetch(`http://127.0.0.1:${port}/metrics`)
      expect(response.status).toBe(200)
      expect(response.headers.get('content-type')).toMatch(/^text\/plain/)
      return response.text()
    }
    const before = await scrape()
    await verifyMany(server, first, 12)
    for (let i = 0; i < 3; i++)
      expect(await verify(server, first.project.id, `ak_${'Q'.repeat(32)}`)).toBe(401)
    // Let a flush pass, so that the flush lag is back to a fraction of the interval.
    await new Promise((resolve) => setTimeout(resolve, 2_500))
    const after = await scrape()
    const moved = (name: string) => series(after, name) - series(before, name)
    expect(moved('keyward_verifications_total{outcome="accepted"}')).toBeGreaterThanOrEqual(12)
    expect(moved('keyward_verifications_total{outcome="unknown"}')).toBe(3)
    expect(moved('keyward_verification_duration_seconds_count')).toBeGreaterThanOrEqual(15)
    expect(moved('keyward_cache_lookups_total{result="hit"}')).toBeGreaterThanOrEqual(10)
    expect(series(after, 'keyward_cache_hit_ratio')).toBeGreaterThan(0)
    expect(series(after, 'keyward_change_feed_connected')).toBe(1)
    expect(series(after, 'keyward_usage_flush_lag_seconds')).toBeLessThan(60)
    for (const name of [
      'keyward_change_feed_lag_seconds',
      'keyward_usage_pending_rows',
      'keyward_failed_authentications_total',
    ]) {
      expect(after).toContain(`# TYPE ${name}`)
    }
    // Not on the API's port.
    expect((await fetch(`${server.baseUrl}/metrics`)).status).toBe(404)
    await server.stop()
  }, 120_000)
})
