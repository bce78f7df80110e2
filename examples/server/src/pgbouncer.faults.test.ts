// The server under traffic through a real PgBouncer (transaction mode) that is killed (SIGKILL)
// and started again: while it is down, answers are 503 with Retry-After (or requests held that
// then succeed); a wrong 2xx never; it answers again within 2 s of PgBouncer's return; every
// project whose creation was acknowledged (201) is there, with a key that works.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { PGBOUNCER_MISSING, pgBouncer } from './test/databases.js'
import { openTestApp, type TestApp } from './test/harness.js'

const skipped = PGBOUNCER_MISSING ? ` (skipped: ${PGBOUNCER_MISSING})` : ''

interface Outcome {
  readonly kind: 'create' | 'verify' | 'revoked'
  readonly startedAt: number
  readonly endedAt: number
  readonly status: number
  readonly type: string | undefined
  readonly retryAfter: string | null
}

describe.skipIf(PGBOUNCER_MISSING)(`the server when PgBouncer is killed and restarted${skipped}`, () => {
  let t: TestApp
  beforeAll(async () => {
    t = await openTestApp('pgbouncer')
  })
  afterAll(() => t?.close())

  it('answers 503 with Retry-After while it is down, never a wrong 2xx, recovers within 2 s, loses nothing acknowledged', async () => {
    const bouncer = await pgBouncer()
    const dev = { 'x-developer-key': t.developerKey }
    const { projectId, apiKey } = await t.project('Before')
    const revoked = await t.project('Revoked')
    const removal = await t.call(
      'DELETE',
      `/api/v1/projects/${revoked.projectId}/api-keys/${revoked.apiKeyId}`,
      {
        headers: dev,
      },
    )
    expect(removal.status).toBe(200)

    const outcomes: Outcome[] = []
    const created: { projectId: string; apiKey: string }[] = []
    let stop = false
    const request = async (kind: Outcome['kind']) => {
      const startedAt = performance.now()
      const answer =
        kind === 'create'
          ? await t.call('POST', '/api/v1/projects', { headers: dev, body: { name: 'During' } })
          : await t.call(
              'POST',
              `/api/v1/projects/${kind === 'verify' ? projectId : revoked.projectId}/access-tokens`,
              {
                headers: { 'x-api-key': kind === 'verify' ? apiKey : revoked.apiKey },
              },
            )
      if (kind === 'create' && answer.status === 201) {
        created.push({ projectId: answer.body.project.id, apiKey: answer.body.api_key.key })
      }
      outcomes.push({
        kind,
        startedAt,
        endedAt: performance.now(),
        status: answer.status,
        type: answer.body?.detail?.[0]?.type,
        retryAfter: answer.headers.get('retry-after'),
      })
    }
    const worker = async (kinds: Outcome['kind'][]) => {
      for (let i = 0; !stop; i++) {
        await request(kinds[i % kinds.length]!)
        await new Promise((resolve) => setTimeout(resolve, 5))
      }
    }
    const workers = [
      worker(['create', 'verify']),
      worker(['verify', 'revoked']),
      worker(['verify', 'create']),
      worker(['revoked', 'verify']),
    ]
    const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

    await sleep(500)
    const killedAt = performance.now()
    await bouncer.kill('SIGKILL')
    await sleep(1500)
    await bouncer.restart()
    const upAt = performance.now()
    // Traffic goes on until both a verification and a creation started after the restart succeeded.
    const recovered = (kind: Outcome['kind']) =>
      outcomes.find((o) => o.kind === kind && o.startedAt >= upAt && o.status === 201)
    for (let waited = 0; waited < 10_000 && !(recovered('verify') && recovered('create')); waited += 20) {
      await sleep(20)
    }
    await sleep(300)
    stop = true
    await Promise.all(workers)

    const during = outcomes.filter((o) => o.startedAt >= killedAt && o.endedAt <= upAt)
    const recovery = Math.max(
      ...(['verify', 'create'] as const).map((k) => (recovered(k)?.endedAt ?? Infinity) - upAt),
    )
    console.log(
      `PgBouncer killed for ${Math.round(upAt - killedAt)} ms: ${during.length} requests meanwhile ` +
        `(${during.filter((o) => o.status === 503).length} answered 503); answering again ${Math.round(recovery)} ms after its restart; ` +
        `${outcomes.length} requests, ${created.length} projects created`,
    )

    // Every answer is a right one: 201 for the valid key and creations, 401 for the revoked key,
    // or 503 store_unavailable with Retry-After.
    for (const o of outcomes) {
      const expected = o.kind === 'revoked' ? [401, 503] : [201, 503]
      expect(expected, `${o.kind} answered ${o.status}`).toContain(o.status)
      if (o.status === 503)
        expect([o.type, o.retryAfter]).toEqual(['store_unavailable', expect.stringMatching(/^\d+$/)])
      if (o.kind === 'revoked' && o.status === 401) expect(o.type).toBe('key_invalid')
    }
    // Requests were made while it was down, and each had an acceptable outcome (checked above).
    expect(during.length).toBeGreaterThan(0)
    expect(recovery).toBeLessThan(2000)

    // Nothing acknowledged is lost: every project created (201) is there, and its key works.
    expect(created.length).toBeGreaterThan(0)
    for (const project of created) {
      const token = await t.call('POST', `/api/v1/projects/${project.projectId}/access-tokens`, {
        headers: { 'x-api-key': project.apiKey },
      })
      expect(token.status).toBe(201)
    }
  })
})
