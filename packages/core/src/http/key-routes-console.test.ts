// The routes the administrative console needs (issue 25): paged listings, projects, expiry.
import { describe, expect, it } from 'vitest'
import { hashKey } from '../hash/digest.js'
import { createKeyward as createService } from '../service/keyward.js'
import { NOW, world } from '../test/key-routes-world.js'
import { encodeCursor } from './cursor.js'

const DAY_MS = 86_400_000

describe('paged key listings', () => {
  it('walk 250 keys created in one instant, newest first: each key once, in one order', async () => {
    const { call, d1, keyward } = await world()
    for (let i = 0; i < 250; i++) await keyward.issueProjectKey('p1')
    const expected = (await keyward.listKeys({ type: 'project', id: 'p1' }))
      .map((record) => record.id)
      .sort()
      .reverse()
    const seen: string[] = []
    let cursor: string | null = null
    let pages = 0
    do {
      const query: string = cursor ? `?limit=40&cursor=${cursor}` : '?limit=40'
      const page = await call('GET', `/api/v1/projects/p1/api-keys${query}`, { key: d1 })
      expect(page.status).toBe(200)
      expect(Object.keys(page.json)).toEqual(['keys', 'next_cursor'])
      seen.push(...page.json.keys.map((key: { id: string }) => key.id))
      cursor = page.json.next_cursor
      pages++
    } while (cursor !== null)
    expect([pages, seen]).toEqual([7, expected])
    const all = await call('GET', '/api/v1/projects/p1/api-keys', { key: d1 })
    expect([all.json.keys.length, all.json.next_cursor]).toEqual([100, expect.any(String)])
  })

  it('list developer keys newest first, and end with next_cursor null', async () => {
    const { call, d1, keyward } = await world()
    const later = serviceAt(keyward, new Date(NOW.getTime() + 1000))
    const newer = await later.issueDeveloperKey('d1', { name: 'newer' })
    const first = await call('GET', '/api/v1/auth/developer-keys?limit=1', { key: d1 })
    expect(first.json.keys.map((k: { id: string }) => k.id)).toEqual([newer.record.id])
    const rest = await call('GET', `/api/v1/auth/developer-keys?cursor=${first.json.next_cursor}`, {
      key: d1,
    })
    expect([rest.json.keys.length, rest.json.next_cursor]).toEqual([1, null])
  })

  it('answer a bad limit or cursor with 422 in the error format, after the credential check', async () => {
    const { call, d1 } = await world()
    for (const [query, type, field] of [
      ['?limit=0', 'greater_than_equal', 'limit'],
      ['?limit=500', 'less_than_equal', 'limit'],
      ['?limit=abc', 'int_type', 'limit'],
      ['?cursor=not-a-cursor', 'value_error', 'cursor'],
    ]) {
      for (const path of ['/api/v1/auth/developer-keys', '/api/v1/projects/p1/api-keys']) {
        const r = await call('GET', `${path}${query}`, { key: d1 })
        expect(r).toMatchObject({ status: 422, headers: { 'cache-control': 'no-store' } })
        expect(r.json.detail).toEqual([{ loc: ['query', field], msg: expect.any(String), type }])
      }
    }
    const anonymous = await call('GET', '/api/v1/auth/developer-keys?limit=0')
    expect(anonymous.json.detail[0].type).toBe('key_missing')
  })
})

describe('GET /api/v1/projects', () => {
  it("lists the caller's projects newest first, a page at a time, with microsecond cursors", async () => {
    const { call, d1, d2, projects } = await world({ listProjects: true })
    for (let i = 2; i <= 5; i++) {
      projects.set(`p${i}`, {
        id: `p${i}`,
        name: `n${i}`,
        developerId: 'd1',
        createdAt: new Date(NOW.getTime() + i),
      })
    }
    projects.set('q1', { id: 'q1', name: 'theirs', developerId: 'd2', createdAt: NOW })
    const first = await call('GET', '/api/v1/projects?limit=3', { key: d1 })
    expect(first.status).toBe(200)
    expect(first.json.projects.map((p: { id: string }) => p.id)).toEqual(['p5', 'p4', 'p3'])
    expect(first.json.projects[0]).toEqual({
      id: 'p5',
      name: 'n5',
      developer_id: 'd1',
      created_at: new Date(NOW.getTime() + 5).toISOString(),
    })
    const second = await call('GET', `/api/v1/projects?limit=3&cursor=${first.json.next_cursor}`, { key: d1 })
    expect([second.json.projects.map((p: { id: string }) => p.id), second.json.next_cursor]).toEqual([
      ['p2', 'p1'],
      null,
    ])
    const theirs = await call('GET', '/api/v1/projects', { key: d2 })
    expect(theirs.json).toEqual({ projects: [expect.objectContaining({ id: 'q1' })], next_cursor: null })
    const micro = encodeCursor({ createdAt: '2025-01-02T03:04:05.000500Z', id: 'p1' })
    const after = await call('GET', `/api/v1/projects?cursor=${micro}`, { key: d1 })
    expect(after.status).toBe(200)
    const bad = await call('GET', '/api/v1/projects?limit=201', { key: d1 })
    expect([bad.status, bad.json.detail[0].loc]).toEqual([422, ['query', 'limit']])
  })

  it('is mounted only with listProjects, and a host answer of the wrong shape is a bare 500', async () => {
    const { routes } = await world()
    expect(routes.map((r) => `${r.method} ${r.path}`)).not.toContain('GET /api/v1/projects')
    const { call, d1, projects } = await world({ listProjects: true })
    projects.set('p0', { id: 'p0', name: 'bad', developerId: 'd1', createdAt: 'not a time' })
    const r = await call('GET', '/api/v1/projects', { key: d1 })
    expect([r.status, r.json.detail[0].type]).toEqual([500, 'internal_error'])
  })
})

describe('PATCH a key: its expiry', () => {
  it('sets expires_at, expires_in_days or never, for the owner only, and the key expires on time', async () => {
    const { call, d1, d2, keyward } = await world()
    const { key, record } = await keyward.issueProjectKey('p1')
    const path = `/api/v1/projects/p1/api-keys/${record.id}`
    const at = await call('PATCH', path, { key: d1, body: '{"expires_at":"2025-02-01T00:00:00+01:00"}' })
    expect(at).toMatchObject({ status: 200, json: { id: record.id, expires_at: '2025-01-31T23:00:00.000Z' } })
    expect(at.json).not.toHaveProperty('key')
    const days = await call('PATCH', path, { key: d1, body: '{"expires_in_days":7}' })
    expect(days.json.expires_at).toBe(new Date(NOW.getTime() + 7 * DAY_MS).toISOString())
    const never = await call('PATCH', path, { key: d1, body: '{"expires_at":null}' })
    expect(never).toMatchObject({ status: 200, json: { expires_at: null } })
    const foreign = await call('PATCH', path, { key: d2, body: '{"expires_in_days":1}' })
    expect(foreign.status).toBe(403)
    const dev = await keyward.issueDeveloperKey('d2')
    const notMine = await call('PATCH', `/api/v1/auth/developer-keys/${dev.record.id}`, {
      key: d1,
      body: '{"expires_in_days":1}',
    })
    expect(notMine).toMatchObject({ status: 404, json: { detail: [{ loc: ['path', 'key_id'] }] } })
    const auth = await keyward.authenticate({ projectKey: key }, { scope: 'project', projectId: 'p1' })
    expect(auth.projectId).toBe('p1')
  })

  it('refuses a bad body with the creation messages, and changes nothing', async () => {
    const { call, d1, keyward } = await world()
    const { record } = await keyward.issueDeveloperKey('d1')
    const path = `/api/v1/auth/developer-keys/${record.id}`
    for (const [body, type, field] of [
      [undefined, 'missing', 'expires_at'],
      ['{}', 'missing', 'expires_at'],
      ['{"expires_in_days":0}', 'greater_than_equal', 'expires_in_days'],
      ['{"expires_in_days":3651}', 'less_than_equal', 'expires_in_days'],
      ['{"expires_in_days":"7"}', 'int_type', 'expires_in_days'],
      ['{"expires_at":"2024-01-01T00:00:00Z"}', 'datetime_future', 'expires_at'],
      ['{"expires_at":"tomorrow"}', 'datetime_parsing', 'expires_at'],
      ['{"expires_at":5}', 'string_type', 'expires_at'],
      ['{"expires_at":"2026-01-01T00:00:00Z","expires_in_days":3}', 'value_error', 'expires_in_days'],
      ['{"expires_at":null,"expires_in_days":3}', 'value_error', 'expires_in_days'],
    ] as const) {
      const r = await call('PATCH', path, { key: d1, ...(body === undefined ? {} : { body }) })
      expect([r.status, r.json.detail], String(body)).toEqual([
        422,
        [{ loc: ['body', field], msg: expect.any(String), type }],
      ])
    }
    expect((await keyward.findKey(record.id))?.expiresAt).toBeNull()
  })

  it("refuses a key in a roll's grace window (409 key_rolled) and an expired key (409 key_expired)", async () => {
    const { call, d1, keyward } = await world()
    const { record } = await keyward.issueProjectKey('p1')
    await keyward.rollKey(record.id, { graceSeconds: 60 })
    const rolled = await call('PATCH', `/api/v1/projects/p1/api-keys/${record.id}`, {
      key: d1,
      body: '{"expires_at":null}',
    })
    expect(rolled).toMatchObject({
      status: 409,
      json: { detail: [{ type: 'key_rolled', loc: ['path', 'key_id'] }] },
    })
    expect(rolled.json.detail[0].msg).toBe(
      'This key was rolled: its expiry is the end of its grace window and cannot be changed. Use the key that replaced it.',
    )
    expect((await keyward.findKey(record.id))?.expiresAt).toEqual(new Date(NOW.getTime() + 60_000))
    const expired = await keyward.issueProjectKey('p1', { expiresInDays: 1 })
    const later = serviceAt(keyward, new Date(NOW.getTime() + 2 * DAY_MS))
    await expect(later.setKeyExpiry(expired.record.id, { expiresAt: null })).rejects.toMatchObject({
      type: 'key_expired',
      status: 409,
    })
  })
})

describe('revoked_reason', () => {
  it('is null while active, revoked after a deactivation, leaked after a leak report, rolled after a roll', async () => {
    const { call, d1, keyward } = await world()
    const [revoked, leaked, rolled] = await Promise.all([1, 2, 3].map(() => keyward.issueProjectKey('p1')))
    await call('DELETE', `/api/v1/projects/p1/api-keys/${revoked!.record.id}`, { key: d1 })
    await keyward.revokeLeakedKeys([{ hash: await hashKey(leaked!.key) }])
    await keyward.rollKey(rolled!.record.id)
    const listed = await call('GET', '/api/v1/projects/p1/api-keys', { key: d1 })
    const reasons = Object.fromEntries(
      listed.json.keys.map((k: { id: string; revoked_reason: string | null }) => [k.id, k.revoked_reason]),
    )
    expect(reasons).toMatchObject({
      [revoked!.record.id]: 'revoked',
      [leaked!.record.id]: 'leaked',
      [rolled!.record.id]: 'rolled',
    })
    expect(Object.values(reasons).filter((reason) => reason === null)).toHaveLength(1)
    const back = await call('POST', `/api/v1/projects/p1/api-keys/${leaked!.record.id}/activate`, { key: d1 })
    expect(back.json.revoked_reason).toBeNull()
  })
})

/** A service over the same store as `keyward`, whose clock reads `at`. */
function serviceAt(keyward: Awaited<ReturnType<typeof world>>['keyward'], at: Date) {
  return createService({ store: keyward.store, now: () => at })
}
