import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { describeBackends } from '../test/databases.js'
import { openTestApp, type TestApp, withFailingInserts } from '../test/harness.js'

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/
const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/
const KEY = /^ak_[A-Za-z0-9_-]{32}$/

describeBackends('projects and keys (%s)', (backend) => {
  let t: TestApp
  beforeAll(async () => {
    t = await openTestApp(backend)
  })
  afterAll(() => t.close())

  const dev = () => ({ 'x-developer-key': t.developerKey })
  const rows = (sql: string, params: unknown[] = []) => t.rows(sql, params)

  it('creates a project with its default API key, named default, shown once', async () => {
    const answer = await t.call('POST', '/api/v1/projects', { headers: dev(), body: { name: 'Shop' } })
    expect(answer.status).toBe(201)
    expect(answer.headers.get('cache-control')).toBe('no-store')
    const { project, api_key } = answer.body
    expect(project).toEqual({
      id: expect.stringMatching(UUID),
      name: 'Shop',
      developer_id: t.developerId,
      created_at: expect.stringMatching(ISO),
    })
    expect(api_key).toEqual({
      id: expect.stringMatching(UUID),
      key: expect.stringMatching(KEY),
      key_prefix: api_key.key.slice(0, 8),
      display: `${api_key.key.slice(0, 8)}...`,
      name: 'default',
      project_id: project.id,
      active: true,
      created_at: expect.stringMatching(ISO),
      expires_at: null,
      last_used_at: null,
      rotation_due: false,
      revoked_reason: null,
      ip_allowlist: null,
      permissions: null,
      metadata: null,
      ratelimits: [],
      remaining: null,
      refill: null,
      credits_low_at: null,
      identity_id: null,
      roles: null,
    })
    expect(await rows('SELECT name, developer_id FROM app.projects WHERE id = ?', [project.id])).toEqual([
      { name: 'Shop', developer_id: t.developerId },
    ])
    // The default key works: it obtains an access token for its project.
    const token = await t.call('POST', `/api/v1/projects/${project.id}/access-tokens`, {
      headers: { 'x-api-key': api_key.key },
    })
    expect(token.status).toBe(201)
  })

  it('refuses a project without a valid name or developer key', async () => {
    const missing = await t.call('POST', '/api/v1/projects', { headers: dev(), body: {} })
    expect([missing.status, missing.body.detail]).toEqual([
      422,
      [{ loc: ['body', 'name'], msg: 'Field required.', type: 'missing' }],
    ])
    const long = await t.call('POST', '/api/v1/projects', { headers: dev(), body: { name: 'x'.repeat(101) } })
    expect([long.status, long.body.detail[0].type]).toEqual([422, 'string_too_long'])
    const nul = await t.call('POST', '/api/v1/projects', { headers: dev(), body: { name: 'a\u0000b' } })
    expect([nul.status, nul.body.detail[0]]).toEqual([
      422,
      {
        loc: ['body', 'name'],
        msg: 'Names cannot contain control characters: U+0000 at character 2.',
        type: 'string_pattern_mismatch',
      },
    ])
    // Key names too: a U+0000 is refused before it reaches PostgreSQL, never a 503.
    const nulKey = await t.call('POST', '/api/v1/auth/developer-keys', {
      headers: dev(),
      body: { name: 'a\u0000b' },
    })
    expect([nulKey.status, nulKey.body.detail[0].type]).toEqual([422, 'string_pattern_mismatch'])
    const anonymous = await t.call('POST', '/api/v1/projects', { body: { name: 'Shop' } })
    expect([anonymous.status, anonymous.body.detail[0].type]).toEqual([401, 'key_missing'])
    const before = await rows('SELECT count(*) AS n FROM app.projects WHERE name = ?', ['x'.repeat(101)])
    expect(before).toEqual([{ n: 0 }])
  })

  it('adds a developer registered elsewhere (by the CLI) on their first project', async () => {
    const key = await t.developer('dev_from_cli')
    const { projectId } = await t.project('Theirs', key)
    expect(await rows('SELECT developer_id FROM app.projects WHERE id = ?', [projectId])).toEqual([
      { developer_id: 'dev_from_cli' },
    ])
  })

  it('manages developer keys up to the limit of 10 active, listings never hold a key', async () => {
    const key = await t.developer('dev_limit')
    const headers = { 'x-developer-key': key }
    const issued: string[] = [key]
    for (let i = 2; i <= 10; i++) {
      const answer = await t.call('POST', '/api/v1/auth/developer-keys', { headers, body: { name: `k${i}` } })
      expect(answer.status).toBe(201)
      expect(answer.body).toMatchObject({ developer_id: 'dev_limit', name: `k${i}`, active: true })
      issued.push(answer.body.key)
    }
    const past = await t.call('POST', '/api/v1/auth/developer-keys', { headers })
    expect([past.status, past.body.detail[0].type]).toEqual([409, 'limit_exceeded'])

    const list = await t.call('GET', '/api/v1/auth/developer-keys', { headers })
    expect(list.status).toBe(200)
    expect(list.body.keys).toHaveLength(10)
    for (const listed of list.body.keys) expect(listed).not.toHaveProperty('key')
    for (const full of issued) expect(list.text).not.toContain(full)

    const last = list.body.keys.find((listed: { name: string }) => listed.name === 'k10')
    const revoked = await t.call('DELETE', `/api/v1/auth/developer-keys/${last.id}`, { headers })
    expect([revoked.status, revoked.body]).toEqual([
      200,
      { ...last, active: false, revoked_reason: 'revoked' },
    ])
    const refused = await t.call('GET', '/api/v1/auth/developer-keys', {
      headers: { 'x-developer-key': issued[9]! },
    })
    expect([refused.status, refused.body.detail[0].type]).toEqual([401, 'key_invalid'])
  })

  it("manages a project's API keys with the owner's developer key only", async () => {
    const { projectId, apiKey } = await t.project('Keys')
    const created = await t.call('POST', `/api/v1/projects/${projectId}/api-keys`, {
      headers: dev(),
      body: { name: 'ci' },
    })
    expect(created.status).toBe(201)
    expect(created.body).toMatchObject({ project_id: projectId, name: 'ci', key: expect.stringMatching(KEY) })

    const list = await t.call('GET', `/api/v1/projects/${projectId}/api-keys`, { headers: dev() })
    expect(list.body.keys.map((k: { name: string }) => k.name).sort()).toEqual(['ci', 'default'])
    expect(list.text).not.toContain(apiKey)
    expect(list.text).not.toContain(created.body.key)

    const other = await t.developer('dev_other')
    const notOwner = await t.call('GET', `/api/v1/projects/${projectId}/api-keys`, {
      headers: { 'x-developer-key': other },
    })
    expect([notOwner.status, notOwner.body.detail[0].type]).toEqual([403, 'not_project_owner'])
    for (const unknown of [crypto.randomUUID(), 'not-a-uuid']) {
      const missing = await t.call('GET', `/api/v1/projects/${unknown}/api-keys`, { headers: dev() })
      expect([missing.status, missing.body.detail[0]]).toEqual([
        404,
        { loc: ['path', 'project_id'], msg: `Project "${unknown}" was not found.`, type: 'not_found' },
      ])
    }

    const revoked = await t.call('DELETE', `/api/v1/projects/${projectId}/api-keys/${created.body.id}`, {
      headers: dev(),
    })
    expect([revoked.status, revoked.body.active]).toEqual([200, false])
    const refused = await t.call('POST', `/api/v1/projects/${projectId}/access-tokens`, {
      headers: { 'x-api-key': created.body.key },
    })
    expect([refused.status, refused.body.detail[0].type]).toEqual([401, 'key_invalid'])
  })

  describe('DELETE /api/v1/projects/{project_id} (elevated)', () => {
    it("needs the owner's developer key and a key of that project", async () => {
      const { projectId, apiKey } = await t.project('Guarded')
      const path = `/api/v1/projects/${projectId}`
      const onlyDeveloper = await t.call('DELETE', path, { headers: dev() })
      expect([onlyDeveloper.status, onlyDeveloper.body.detail[0].loc]).toEqual([401, ['header', 'x-api-key']])
      const onlyProject = await t.call('DELETE', path, { headers: { 'x-api-key': apiKey } })
      expect([onlyProject.status, onlyProject.body.detail[0].loc]).toEqual([
        401,
        ['header', 'x-developer-key'],
      ])
      const other = await t.developer('dev_elevated_other')
      const notOwner = await t.call('DELETE', path, {
        headers: { 'x-developer-key': other, 'x-api-key': apiKey },
      })
      expect([notOwner.status, notOwner.body.detail[0].type]).toEqual([403, 'not_project_owner'])
      const second = await t.project('Second')
      const mismatch = await t.call('DELETE', path, { headers: { ...dev(), 'x-api-key': second.apiKey } })
      expect([mismatch.status, mismatch.body.detail[0].type]).toEqual([403, 'project_mismatch'])
      expect(await rows('SELECT id FROM app.projects WHERE id = ?', [projectId])).toHaveLength(1)
    })

    it('deletes the project, its generations, and ends its keys and tokens', async () => {
      const { projectId, apiKey, apiKeyId } = await t.project('Doomed')
      const second = await t.call('POST', `/api/v1/projects/${projectId}/api-keys`, { headers: dev() })
      const token = await t.token(projectId, apiKey)
      const bearer = { authorization: `Bearer ${token}` }
      const generation = await t.call('POST', '/api/v1/generation/generations-v2', {
        headers: bearer,
        body: {},
      })
      expect(generation.status).toBe(201)

      const deleted = await t.call('DELETE', `/api/v1/projects/${projectId}`, {
        headers: { ...dev(), 'x-api-key': apiKey },
      })
      expect([deleted.status, deleted.body]).toEqual([200, { id: projectId, deleted: true }])

      expect(await rows('SELECT id FROM app.projects WHERE id = ?', [projectId])).toEqual([])
      expect(await rows('SELECT id FROM app.generations WHERE project_id = ?', [projectId])).toEqual([])
      expect(
        await rows('SELECT id, active FROM keyward.api_keys WHERE project_id = ? ORDER BY created_at', [
          projectId,
        ]),
      ).toEqual([
        { id: apiKeyId, active: false },
        { id: second.body.id, active: false },
      ])
      for (const key of [apiKey, second.body.key]) {
        const refused = await t.call('POST', `/api/v1/projects/${projectId}/access-tokens`, {
          headers: { 'x-api-key': key },
        })
        expect([refused.status, refused.body.detail[0].type]).toEqual([401, 'key_invalid'])
      }
      const tokenRefused = await t.call('POST', '/api/v1/generation/generations-v2', {
        headers: bearer,
        body: {},
      })
      expect([tokenRefused.status, tokenRefused.body.detail]).toEqual([
        404,
        [{ loc: ['path', 'project_id'], msg: `Project "${projectId}" was not found.`, type: 'not_found' }],
      ])
      const listing = await t.call('GET', `/api/v1/projects/${projectId}/api-keys`, { headers: dev() })
      expect([listing.status, listing.body.detail[0].type]).toEqual([404, 'not_found'])
    })
  })
})

describeBackends('project creation is atomic (%s)', (backend) => {
  let t: TestApp
  beforeAll(async () => {
    t = await openTestApp(backend)
  })
  afterAll(() => t.close())

  it('leaves neither project nor key behind when the default key cannot be stored', async () => {
    // The key store refuses every project key: the insert fails inside the transaction.
    await withFailingInserts(t, 'api_keys', 'NEW.project_id IS NOT NULL', async () => {
      const answer = await t.call('POST', '/api/v1/projects', {
        headers: { 'x-developer-key': t.developerKey },
        body: { name: 'Half' },
      })
      expect([answer.status, answer.body]).toEqual([
        503,
        {
          detail: [
            { loc: [], msg: 'The key store is unavailable. Try again later.', type: 'store_unavailable' },
          ],
        },
      ])
    })
    expect(await t.rows('SELECT id FROM app.projects')).toEqual([])
    expect(await t.rows('SELECT id FROM keyward.api_keys WHERE project_id IS NOT NULL')).toEqual([])

    const { projectId } = await t.project('Whole')
    expect(await t.rows('SELECT name FROM app.projects')).toEqual([{ name: 'Whole' }])
    expect(await t.rows('SELECT name FROM keyward.api_keys WHERE project_id = ?', [projectId])).toEqual([
      { name: 'default' },
    ])
  })
})
