// A database outage under load, as a real process on PostgreSQL behind a TCP proxy that cuts it:
// the log says so in a few lines (a first line, counts per interval, a recovery line), not one
// line per failed request; a clean stop during it logs what it could not write, by key prefix,
// and exits 0.
import { describe, expect, it } from 'vitest'
import { TcpProxy } from '../../../packages/postgres/src/test/tcp-proxy.js'
import { createPgDatabase, PG_URL } from '../src/test/databases.js'
import { firstProject, serverScope, startServer } from './server-process.js'

describe.skipIf(!PG_URL)('a database outage in the log (set KEYWARD_PG_URL to run)', () => {
  const scope = serverScope('keyward-outage-')

  /** A server on a database of its own, through a proxy that the test can cut. */
  async function behindProxy(env: Record<string, string>) {
    const database = await createPgDatabase()
    scope.onCleanup(database.drop)
    const url = new URL(database.url)
    const proxy = await TcpProxy.start(url.hostname, Number(url.port || 5432))
    scope.onCleanup(() => proxy.stop())
    const server = await startServer(scope.cwd(), { KEYWARD_PG_URL: proxy.through(database.url), ...env })
    scope.onCleanup(() => server.kill('SIGKILL'))
    return { proxy, server }
  }

  it('is a first line, counts per interval and a recovery line, for 300 failed requests', async () => {
    // Without the cache, every request reads the database.
    const { proxy, server } = await behindProxy({ KEYWARD_CACHE: 'off' })
    const { project, apiKey } = await firstProject(server, 'outage')
    const call = () =>
      fetch(`${server.baseUrl}/api/v1/projects/${project.id}/access-tokens`, {
        method: 'POST',
        headers: { 'x-api-key': apiKey.key },
      }).then((answer) => answer.status)
    expect(await call()).toBe(201)

    await proxy.stop()
    const statuses = []
    for (let i = 0; i < 300; i++) statuses.push(await call())
    expect(statuses.filter((status) => status === 503).length).toBeGreaterThanOrEqual(295)
    await proxy.restart()
    // The database is asked once per interval (10 s): the recovery is logged within about that.
    for (let i = 0; i < 100 && !/^store\.recovered/m.test(server.stdout()); i++) {
      await new Promise((resolve) => setTimeout(resolve, 250))
    }
    const lines = server.stdout().split('\n')
    expect(lines.filter((line) => line.startsWith('store.error ')).length).toBe(1)
    expect(lines.filter((line) => line.startsWith('store.errors ')).length).toBeLessThanOrEqual(3)
    expect(
      lines.filter((line) =>
        /^store\.recovered: the database answers again after \d+\.\d s \(\d+ failed operations\)$/.test(line),
      ),
    ).toHaveLength(1)
    expect(await call()).toBe(201)
  }, 120_000)

  it('a clean stop while the database is down: leased credits and usage counts logged by key prefix, exit 0', async () => {
    // Nothing is written before the stop: every count made here is still in memory then.
    const { proxy, server } = await behindProxy({ KEYWARD_USAGE_FLUSH_SECONDS: '60' })
    const { project, developerKey } = await firstProject(server, 'stop-outage')
    const created = await fetch(`${server.baseUrl}/api/v1/projects/${project.id}/api-keys`, {
      method: 'POST',
      headers: { 'x-developer-key': developerKey, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'metered', remaining: 1000 }),
    })
    expect(created.status).toBe(201)
    const metered = (await created.json()) as { key: string; key_prefix: string }
    for (let i = 0; i < 5; i++) {
      const answer = await fetch(`${server.baseUrl}/api/v1/projects/${project.id}/access-tokens`, {
        method: 'POST',
        headers: { 'x-api-key': metered.key },
      })
      expect(answer.status).toBe(201)
      expect(answer.headers.get('x-credits-remaining')).toBe(String(999 - i))
    }

    await proxy.stop()
    expect(await server.stop()).toBe(0)
    const lines = server.stdout().split('\n')
    const shown = `${metered.key_prefix}...`
    const credits = lines.filter((line) => line.startsWith('credits.stranded '))
    expect(credits).toHaveLength(1)
    expect(credits[0]).toMatch(
      new RegExp(`^credits\\.stranded ${escaped(shown)} \\(key id [\\w-]+\\): \\d+ credits leased`),
    )
    const usage = lines.filter((line) => line.startsWith('usage.stranded '))
    expect(usage).toHaveLength(1)
    expect(usage[0]).toContain(`${shown} 5`)
    expect(server.output()).not.toContain(metered.key)
  }, 120_000)
})

const escaped = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
