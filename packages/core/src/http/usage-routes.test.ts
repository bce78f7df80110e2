import { describe, expect, it } from 'vitest'
import { world } from '../test/key-routes-world.js'

// The usage counts need the real clock: the routes refuse a range past the retention from now.
const realClock = { service: { now: () => new Date() } }

const HOUR = 3_600_000

describe('usage routes', () => {
  it("answer the caller's keys' counts per bucket, key and outcome, for a project and for the developer", async () => {
    const { call, d1, keyward } = await world(realClock)
    const created = await call('POST', '/api/v1/projects/p1/api-keys', { key: d1 })
    const projectKey = created.json.key as string
    await keyward.authenticate({ projectKey }, { scope: 'project', projectId: 'p1' })
    await keyward.authenticate({ projectKey }, { scope: 'project', projectId: 'p1' })
    await keyward.authenticate({ projectKey }, { scope: 'project', projectId: 'p2' }).catch(() => {})
    await keyward.flushUsage()
    const usage = await call('GET', '/api/v1/projects/p1/usage?granularity=minute', { key: d1 })
    expect(usage.status).toBe(200)
    expect(usage.headers['cache-control']).toBe('no-store')
    expect(usage.json.granularity).toBe('minute')
    const counts = Object.fromEntries(
      (usage.json.usage as { outcome: string; count: number; key_id: string }[]).map((row) => [
        `${row.key_id} ${row.outcome}`,
        row.count,
      ]),
    )
    expect(counts).toEqual({ [`${created.json.id} accepted`]: 2, [`${created.json.id} wrong_project`]: 1 })
    // The developer's own keys: the calls above used d1 five times (accepted).
    const own = await call('GET', '/api/v1/auth/usage?granularity=day', { key: d1 })
    expect(own.status).toBe(200)
    expect(own.json.usage.every((row: { outcome: string }) => row.outcome === 'accepted')).toBe(true)
    // One key, by its id.
    const one = await call('GET', `/api/v1/projects/p1/usage?key_id=${created.json.id}`, { key: d1 })
    expect(one.json.usage.map((row: { count: number }) => row.count)).toEqual([2, 1])
  })

  it('answers bad ranges 422 and a key of another owner 404, in the error format', async () => {
    const { call, d1, d2 } = await world(realClock)
    const now = Date.now()
    const iso = (ms: number) => new Date(ms).toISOString()
    const cases: [string, string[], string][] = [
      ['granularity=week', ['query', 'granularity'], 'value_error'],
      [`from=${iso(now)}&to=${iso(now - HOUR)}`, ['query', 'from'], 'value_error'],
      [`granularity=minute&from=${iso(now - 8 * 24 * HOUR)}`, ['query', 'from'], 'value_error'],
      [`granularity=minute&from=${iso(now - 2 * 24 * HOUR)}`, ['query', 'to'], 'value_error'],
      ['from=yesterday', ['query', 'from'], 'datetime_parsing'],
      ['to=2026-01-01T00:00:00', ['query', 'to'], 'datetime_parsing'],
      ['key_id=nope', ['query', 'key_id'], 'uuid_parsing'],
      ['granularity=hour&granularity=day', ['query', 'granularity'], 'value_error'],
    ]
    for (const [query, loc, type] of cases) {
      const r = await call('GET', `/api/v1/projects/p1/usage?${query}`, { key: d1 })
      expect({ query, status: r.status, detail: r.json.detail }).toEqual({
        query,
        status: 422,
        detail: [{ loc, msg: expect.any(String), type }],
      })
    }
    const d2Key = (await call('GET', '/api/v1/auth/developer-keys', { key: d2 })).json.keys[0].id
    const other = await call('GET', `/api/v1/auth/usage?key_id=${d2Key}`, { key: d1 })
    expect(other).toMatchObject({
      status: 404,
      json: { detail: [{ loc: ['query', 'key_id'], type: 'not_found' }] },
    })
    // Another developer's project is refused as for its keys' listing.
    const foreign = await call('GET', '/api/v1/projects/p1/usage', { key: d2 })
    expect(foreign).toMatchObject({ status: 403, json: { detail: [{ type: 'not_project_owner' }] } })
    const missing = await call('GET', '/api/v1/projects/nope/usage', { key: d1 })
    expect(missing).toMatchObject({ status: 404, json: { detail: [{ type: 'not_found' }] } })
  })
})
