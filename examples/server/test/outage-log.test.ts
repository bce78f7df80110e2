// A database outage under load, as a real process on PostgreSQL behind a TCP proxy that cuts it:
// the log says so in a few lines (a first line, counts per interval, a recovery line), not one
// line per failed request.
import { describe, expect, it } from 'vitest'
import { TcpProxy } from '../../../packages/postgres/src/test/tcp-proxy.js'
import { createPgDatabase, PG_URL } from '../src/test/databases.js'
import { firstProject, serverScope, startServer } from './server-process.js'

describe.skipIf(!PG_URL)('a database outage in the log (set KEYWARD_PG_URL to run)', () => {
  const scope = serverScope('keyward-outage-')

  it('is a first line, counts per interval and a recovery line, for 300 failed requests', async () => {
    const database = await createPgDatabase()
    scope.onCleanup(database.drop)
    const url = new URL(database.url)
    const proxy = await TcpProxy.start(url.hostname, Number(url.port || 5432))
    scope.onCleanup(() => proxy.stop())
    // Without the cache, every request reads the database.
    const server = await startServer(scope.cwd(), {
      KEYWARD_PG_URL: proxy.through(database.url),
      KEYWARD_CACHE: 'off',
    })
    scope.onCleanup(() => server.kill('SIGKILL'))
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
})
