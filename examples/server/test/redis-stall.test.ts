// A Redis that stops answering (SIGSTOP: its connection stays open, nothing comes back) must not
// hang the requests that carry a key: the throttle's commands time out, the outage is logged once,
// /healthz says the throttle is degraded, and all is as before once Redis answers again.
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
} from './server-process.js'

describe.skipIf(redisMissing)(
  `the server while the throttle's Redis stalls${redisMissing ? ' (skipped: no redis-server)' : ''}`,
  () => {
    let cwd: string
    let redis: ChildProcess | undefined
    let server: ServerProcess | undefined
    beforeAll(async () => {
      cwd = await mkdtemp(join(tmpdir(), 'keyward-redis-stall-'))
      await buildServer()
    }, 120_000)
    afterAll(async () => {
      await stopRedis(redis)
      await server?.stop()
      await rm(cwd, { recursive: true, force: true })
    })

    it('answers keyed requests within 1 s of their usual time, logs the outage once, and says so in /healthz', async () => {
      const started = await startRedis()
      redis = started.process
      server = await startServer(cwd, { KEYWARD_DATA_DIR: join(cwd, 'data'), KEYWARD_REDIS_URL: started.url })
      const base = server.baseUrl
      const { project, apiKey } = await firstProject(server, 'stall')
      const timed = async (key: string) => {
        const t = performance.now()
        const answer = await fetch(`${base}/api/v1/projects/${project.id}/access-tokens`, {
          method: 'POST',
          headers: { 'x-api-key': key },
          signal: AbortSignal.timeout(10_000),
        })
        await answer.arrayBuffer()
        return { status: answer.status, ms: performance.now() - t }
      }
      const usual = []
      for (let i = 0; i < 10; i++) usual.push((await timed(apiKey.key)).ms)
      const usualMs = usual.sort((a, b) => a - b)[5]!

      redis.kill('SIGSTOP')
      const stalled = []
      for (let i = 0; i < 10; i++) stalled.push(await timed(apiKey.key))
      // A refused key is still refused: the key checks fail closed on their own.
      const unknown = await timed(`ak_${'Q'.repeat(32)}`)
      expect(stalled.map((a) => a.status)).toEqual(Array(10).fill(201))
      expect(unknown.status).toBe(401)
      for (const { ms } of stalled) expect(ms).toBeLessThan(usualMs + 1_000)
      const health = await fetch(`${base}/healthz`)
      expect([health.status, await health.json()]).toEqual([200, { status: 'ok', throttle: 'degraded' }])
      expect(server.stdout().match(/^throttle\.degraded/gm)).toHaveLength(1)
      expect(server.stdout()).not.toMatch(/^store\.error/m)

      redis.kill('SIGCONT')
      let back: unknown
      for (let i = 0; i < 50; i++) {
        back = await (await fetch(`${base}/healthz`)).json()
        if ((back as { throttle?: string }).throttle === undefined) break
        await new Promise((resolve) => setTimeout(resolve, 200))
      }
      expect(back).toEqual({ status: 'ok' })
      expect(server.stdout()).toMatch(
        /^throttle\.restored: the throttle's counters answer again after \d+\.\d s$/m,
      )
      expect((await timed(apiKey.key)).status).toBe(201)
      // A clean stop, even with a Redis that stalled: exit code 0.
      expect(await server.stop()).toBe(0)
    }, 120_000)
  },
)
