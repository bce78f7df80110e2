import { describe, expect, it } from 'vitest'
import { NOW, world } from '../test/key-routes-world.js'
import { encodeCursor } from './cursor.js'

// biome-ignore lint/suspicious/noExplicitAny: JSON answers read by path in tests
type Json = any

describe('GET /api/v1/audit', () => {
  it("gives the caller's own rows, newest first, with the actor, address and request id of each change", async () => {
    const { call, d1, d2 } = await world()
    const created = await call('POST', '/api/v1/auth/developer-keys', {
      key: d1,
      body: '{"name":"ci"}',
      headers: { 'x-request-id': 'req-42' },
    })
    await call('DELETE', `/api/v1/auth/developer-keys/${created.json.id}`, { key: d1 })
    await call('POST', '/api/v1/projects', { key: d1, body: '{"name":"web"}' })
    const log = await call('GET', '/api/v1/audit', { key: d1 })
    expect(log.status).toBe(200)
    expect(log.headers['cache-control']).toBe('no-store')
    const entries: Json[] = log.json.entries
    expect(entries.map((e) => e.action)).toEqual([
      'key.issued', // the project's default key
      'project.created',
      'key.revoked',
      'key.issued',
      'key.issued', // d1's own first key, issued by the host's code
    ])
    const d1Prefix = d1.slice(0, 8)
    expect(entries[3]).toEqual({
      seq: expect.any(Number),
      at: NOW.toISOString(),
      action: 'key.issued',
      actor: { type: 'developer', developer_id: 'd1', key_prefix: d1Prefix },
      client_address: '203.0.113.5',
      request_id: 'req-42',
      developer_id: 'd1',
      project_id: null,
      target: { type: 'key', id: created.json.id },
      before: null,
      after: expect.objectContaining({ key_prefix: created.json.key_prefix, name: 'ci', active: true }),
      previous_hash: expect.stringMatching(/^[0-9a-f]{64}$/),
      hash: expect.stringMatching(/^[0-9a-f]{64}$/),
    })
    // A request without an X-Request-Id gets one of its own.
    expect(entries[2].request_id).toMatch(/^[0-9a-f-]{36}$/)
    expect(entries[1]).toMatchObject({ target: { type: 'project' }, after: { name: 'web' } })
    expect(entries.at(-1).actor).toEqual({ type: 'system' })
    expect(JSON.stringify(entries)).not.toContain(created.json.key)
    const other = await call('GET', '/api/v1/audit', { key: d2 })
    expect(other.json.entries.map((e: Json) => e.developer_id)).toEqual(['d2'])
  })

  it('narrows the rows to one key, one action and a range of time, and refuses a bad filter with 422', async () => {
    const { call, d1 } = await world()
    const ci = (await call('POST', '/api/v1/auth/developer-keys', { key: d1, body: '{"name":"ci"}' })).json
    await call('POST', '/api/v1/auth/developer-keys', { key: d1, body: '{"name":"other"}' })
    await call('DELETE', `/api/v1/auth/developer-keys/${ci.id}`, { key: d1 })
    const rows = async (query: string) =>
      ((await call('GET', `/api/v1/audit?${query}`, { key: d1 })).json.entries as Json[]).map(
        (entry) => `${entry.action} ${entry.target.id === ci.id ? 'ci' : 'other'}`,
      )
    expect(await rows(`key_id=${ci.id}`)).toEqual(['key.revoked ci', 'key.issued ci'])
    expect(await rows(`key_id=${ci.id.toUpperCase()}&action=key.issued`)).toEqual(['key.issued ci'])
    expect(await rows('action=key.revoked')).toEqual(['key.revoked ci'])
    const at = encodeURIComponent(NOW.toISOString())
    expect(await rows(`key_id=${ci.id}&from=${at}`)).toHaveLength(2)
    expect(await rows(`key_id=${ci.id}&to=${at}`)).toEqual([])
    // No identity has these rows: a key's id is no identity's.
    expect(await rows(`identity_id=${ci.id}`)).toEqual([])
    for (const [query, loc, type] of [
      ['key_id=ci', 'key_id', 'uuid_parsing'],
      ['identity_id=acme', 'identity_id', 'uuid_parsing'],
      [`identity_id=${ci.id}&identity_id=${ci.id}`, 'identity_id', 'value_error'],
      ['action=key.lost', 'action', 'value_error'],
      ['from=yesterday', 'from', 'datetime_parsing'],
      [`from=${at}&to=${at}`, 'from', 'value_error'],
      ['action=key.revoked&action=key.issued', 'action', 'value_error'],
    ]) {
      const refused = await call('GET', `/api/v1/audit?${query}`, { key: d1 })
      expect([query, refused.status, refused.json.detail[0].loc, refused.json.detail[0].type]).toEqual([
        query,
        422,
        ['query', loc],
        type,
      ])
    }
  })

  it('takes no request id that may hold a key: the audit log never holds one', async () => {
    const { call, d1 } = await world()
    await call('POST', '/api/v1/auth/developer-keys', { key: d1, headers: { 'x-request-id': d1 } })
    await call('POST', '/api/v1/auth/developer-keys', { key: d1, headers: { 'x-request-id': 'a b' } })
    const { entries } = (await call('GET', '/api/v1/audit?limit=2', { key: d1 })).json
    for (const entry of entries) expect(entry.request_id).toMatch(/^[0-9a-f-]{36}$/)
  })

  it("pages with limit and cursor, each row once; with project_id, one of the caller's projects only", async () => {
    const { call, d1, d2 } = await world()
    for (let i = 0; i < 3; i++) await call('POST', '/api/v1/projects/p1/api-keys', { key: d1 })
    const seen: number[] = []
    let url = '/api/v1/audit?limit=2'
    for (;;) {
      const page = await call('GET', url, { key: d1 })
      expect(page.json.entries.length).toBeLessThanOrEqual(2)
      seen.push(...page.json.entries.map((e: Json) => e.seq))
      if (page.json.next_cursor === null) break
      url = `/api/v1/audit?limit=2&cursor=${page.json.next_cursor}`
    }
    expect(seen).toHaveLength(4)
    expect(seen).toEqual([...seen].sort((a, b) => b - a))
    const ofProject = await call('GET', '/api/v1/audit?project_id=p1', { key: d1 })
    expect(ofProject.json.entries).toHaveLength(3)
    expect(ofProject.json.entries.every((e: Json) => e.project_id === 'p1')).toBe(true)
    for (const [key, project] of [
      [d2, 'p1'],
      [d1, 'nope'],
    ]) {
      const refused = await call('GET', `/api/v1/audit?project_id=${project}`, { key })
      expect(refused).toMatchObject({
        status: 404,
        json: { detail: [{ loc: ['query', 'project_id'], type: 'not_found' }] },
      })
    }
  })

  it('answers 422 in the error format for a bad limit or cursor, and 401 without a key', async () => {
    const { call, d1 } = await world()
    const notSeq = encodeCursor({ createdAt: NOW, id: 'abc' })
    for (const [query, loc, type] of [
      ['limit=0', 'limit', 'greater_than_equal'],
      ['limit=201', 'limit', 'less_than_equal'],
      ['limit=x', 'limit', 'int_type'],
      ['cursor=%%%', 'cursor', 'value_error'],
      ['cursor=bm9wZQ', 'cursor', 'value_error'],
      [`cursor=${notSeq}`, 'cursor', 'value_error'],
      ['project_id=', 'project_id', 'string_too_short'],
      ['project_id=p1&project_id=p2', 'project_id', 'value_error'],
    ]) {
      const r = await call('GET', `/api/v1/audit?${query}`, { key: d1 })
      expect([r.status, r.json.detail[0].loc, r.json.detail[0].type]).toEqual([422, ['query', loc], type])
    }
    expect((await call('GET', '/api/v1/audit')).status).toBe(401)
  })
})
