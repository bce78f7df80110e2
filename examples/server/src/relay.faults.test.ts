// The built reference server with strict revocation relayed through Redis
// (KEYWARD_FEED_FRESHNESS=redis), a Redis of its own that the test stalls (SIGSTOP) while
// PostgreSQL answers: /healthz says the feed is stale, a revocation is committed and answered 503
// `revocation_unconfirmed`, the log names the Redis relay and reports no database failure, and
// all is as before once Redis answers again.
import type { ChildProcess } from 'node:child_process'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  buildServer,
  firstProject,
  redisMissing,
  type ServerProcess,
  startRedis,
  startServer,
  stopRedis,
} from '../test/server-process.js'
import { createPgDatabase, PG_URL } from './test/databases.js'

const skipped = !PG_URL ? ' (set KEYWARD_PG_URL to run)' : redisMissing ? ' (skipped: no redis-server)' : ''

describe.skipIf(skipped !== '')(
  `the server while the Redis relay of its change feed stalls${skipped}`,
  () => {
    let cwd: string
    let redis: ChildProcess | undefined
    let server: ServerProcess | undefined
    let database: Awaited<ReturnType<typeof createPgDatabase>> | undefined
    beforeAll(async () => {
      cwd = await mkdtemp(join(tmpdir(), 'keyward-relay-stall-'))
      await buildServer()
    }, 120_000)
    afterAll(async () => {
      await stopRedis(redis)
      await server?.stop()
      await database?.drop()
      await rm(cwd, { recursive: true, force: true })
    })

    const health = async () => {
      const answer = await fetch(`${server!.baseUrl}/healthz`, { signal: AbortSignal.timeout(5000) })
      return { status: answer.status, body: (await answer.json()) as Record<string, string> }
    }
    async function until(what: string, check: () => Promise<boolean>) {
      for (let i = 0; i < 100; i++) {
        if (await check()) return
        await new Promise((resolve) => setTimeout(resolve, 100))
      }
      throw new Error(`not within 10 s: ${what}\n${server!.output()}`)
    }

    it('says "feed":"stale" in /healthz, answers a revocation 503 revocation_unconfirmed, and logs Redis, not the database', async () => {
      const started = await startRedis()
      redis = started.process
      database = await createPgDatabase()
      server = await startServer(cwd, {
        KEYWARD_PG_URL: database.url,
        KEYWARD_REDIS_URL: started.url,
        KEYWARD_FEED_FRESHNESS: 'redis',
      })
      const { developerKey, project } = await firstProject(server, 'relay')
      const keys = `${server.baseUrl}/api/v1/projects/${project.id}/api-keys`
      const issue = async () => {
        const answer = await fetch(keys, {
          method: 'POST',
          headers: { 'x-developer-key': developerKey, 'content-type': 'application/json' },
          body: JSON.stringify({ name: 'relay' }),
        })
        expect(answer.status).toBe(201)
        return (await answer.json()) as { id: string; key: string }
      }
      const verify = async (key: string) => {
        const answer = await fetch(`${server!.baseUrl}/api/v1/projects/${project.id}/access-tokens`, {
          method: 'POST',
          headers: { 'x-api-key': key },
        })
        return { status: answer.status, body: await answer.json() }
      }
      const key = await issue()
      await until('a fresh feed', async () => (await health()).body.feed === undefined)
      expect(await health()).toEqual({ status: 200, body: { status: 'ok' } })

      redis.kill('SIGSTOP')
      await until('"feed":"stale"', async () => (await health()).body.feed === 'stale')
      const stale = await health()
      expect(stale.status).toBe(200)
      expect(stale.body).toMatchObject({ status: 'ok', feed: 'stale' })

      const revoked = await fetch(`${keys}/${key.id}`, {
        method: 'DELETE',
        headers: { 'x-developer-key': developerKey },
      })
      expect(revoked.status).toBe(503)
      expect(revoked.headers.get('retry-after')).toMatch(/^\d+$/)
      expect(revoked.headers.get('cache-control')).toBe('no-store')
      expect(await revoked.json()).toEqual({
        detail: [
          {
            loc: [],
            msg: expect.stringMatching(/^The revocation was committed, but its confirmation timed out/),
            type: 'revocation_unconfirmed',
          },
        ],
      })
      // Committed: the key is refused from the database, where every verification goes meanwhile.
      const refused = await verify(key.key)
      expect(refused.status).toBe(401)
      expect(refused.body.detail[0].type).toBe('key_invalid')

      const log = server.stdout()
      expect(log).toMatch(/^cache\.bypassed: the change feed's Redis relay is not connected \(/m)
      expect(log).toMatch(
        /^revocation\.unconfirmed during setKeyActive: committed, but the change feed's Redis relay did not confirm it in time/m,
      )
      expect(log).not.toMatch(/^store\.(error|errors|recovered)/m)

      redis.kill('SIGCONT')
      await until('a fresh feed again', async () => (await health()).body.feed === undefined)
      expect(server.stdout()).toMatch(/^cache\.resumed: the change feed's Redis relay is connected/m)
      const again = await issue()
      expect((await verify(again.key)).status).toBe(201)
      expect(server.stdout()).not.toMatch(/^store\.(error|errors|recovered)/m)
      expect(await server.stop()).toBe(0)
    }, 120_000)
  },
)
