import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { describeBackends } from '../test/databases.js'
import { openTestApp, type TestApp } from '../test/harness.js'

// biome-ignore lint/suspicious/noExplicitAny: JSON answers read by path in tests
type Json = any

describeBackends('roles (%s)', (backend) => {
  let t: TestApp
  let projectId: string
  let base: string
  let keys: string
  const dev = () => ({ 'x-developer-key': t.developerKey })
  beforeAll(async () => {
    t = await openTestApp(backend)
    ;({ projectId } = await t.project('Roles'))
    base = `/api/v1/projects/${projectId}/roles`
    keys = `/api/v1/projects/${projectId}/api-keys`
  })
  afterAll(() => t.close())

  const send = (method: string, path: string, body?: object) =>
    t.call(method, path, { headers: dev(), ...(body ? { body } : {}) })
  const created = async (path: string, body: object) => {
    const answer = await send('POST', path, body)
    expect(answer.status, answer.text).toBe(201)
    return answer.body as Json
  }
  // What the verification endpoint answers of the key, asked for `permissions`.
  const verify = async (key: string, permissions: string) =>
    (await send('POST', '/api/v1/keys/verify', { key, permissions })).body as Json

  describe('over HTTP, answered as the OpenAPI document says', () => {
    it('creates, lists, changes and deletes roles; keys hold them by name and follow their changes', async () => {
      const writer = await created(base, { name: 'writer', permissions: ['generations:write'] })
      expect(writer).toMatchObject({
        project_id: projectId,
        name: 'writer',
        permissions: ['generations:write'],
      })
      const all = await created(base, { name: 'all', permissions: ['generations:*'] })
      const listed = await send('GET', base)
      expect(listed.body.roles.map((role: Json) => role.name).sort()).toEqual(['all', 'writer'])

      const key = await created(keys, { name: 'ci', roles: ['writer'] })
      expect(key.roles).toEqual(['writer'])
      expect(await verify(key.key, 'generations:write')).toMatchObject({ valid: true })
      expect(await verify(key.key, 'generations:delete')).toMatchObject({
        valid: false,
        code: 'permission_denied',
      })
      // A change of the role reaches the key: the server's cache hears it through the feed.
      const changed = await send('PATCH', `${base}/${writer.id}`, {
        permissions: ['generations:write', 'generations:delete'],
      })
      expect(changed).toMatchObject({
        status: 200,
        body: { permissions: ['generations:write', 'generations:delete'] },
      })
      expect(await verify(key.key, 'generations:write and generations:delete')).toMatchObject({ valid: true })
      const moved = await send('PATCH', `${keys}/${key.id}`, { roles: ['all'] })
      expect(moved).toMatchObject({ status: 200, body: { roles: ['all'] } })
      expect((await send('GET', `${keys}/${key.id}`)).body.roles).toEqual(['all'])

      const unknown = await send('PATCH', `${keys}/${key.id}`, { roles: ['auditor'], expires_in_days: 3 })
      expect([unknown.status, unknown.body.detail]).toEqual([
        422,
        [
          {
            loc: ['body', 'roles', '0'],
            msg: 'The project has no role named "auditor".',
            type: 'role_unknown',
          },
        ],
      ])
      expect((await send('GET', `${keys}/${key.id}`)).body).toMatchObject({
        roles: ['all'],
        expires_at: null,
      })

      const kept = await send('DELETE', `${base}/${all.id}`)
      expect([kept.status, kept.body.detail[0].type, kept.body.detail[0].msg]).toEqual([
        409,
        'role_in_use',
        '1 key holds the role: take it from them first, or delete it with detach.',
      ])
      expect(await verify(key.key, 'generations:delete')).toMatchObject({ valid: true })
      const deleted = await send('DELETE', `${base}/${all.id}?detach=true`)
      expect(deleted.body).toEqual({
        id: all.id,
        deleted: true,
        detached_keys: [key.id],
        detached_identities: [],
      })
      expect((await send('GET', `${keys}/${key.id}`)).body.roles).toBeNull()
      // A key with no role and no permissions of its own has every permission again.
      expect(await verify(key.key, 'generations:delete')).toMatchObject({ valid: true })
      const rows = await send('GET', `/api/v1/audit?project_id=${projectId}&action=role.deleted`)
      expect(rows.body.entries).toEqual([expect.objectContaining({ target: { type: 'role', id: all.id } })])
    })

    it('refuses bad input 422 and a taken name 409, and hides another project\u2019s role', async () => {
      await created(base, { name: 'taken', permissions: [] })
      for (const [body, status, type, loc] of [
        [{ name: 'taken', permissions: [] }, 409, 'role_exists', ['body', 'name']],
        [
          { name: 'x', permissions: ['reports:read'] },
          422,
          'permission_unknown',
          ['body', 'permissions', '0'],
        ],
        [{ name: 'x', permissions: [], extra: 1 }, 422, 'extra_forbidden', ['body', 'extra']],
        [{ permissions: [] }, 422, 'missing', ['body', 'name']],
      ] as const) {
        const refused = await send('POST', base, body)
        expect([refused.status, refused.body.detail]).toEqual([
          status,
          [{ loc, msg: expect.any(String), type }],
        ])
      }
      const other = await t.project('Other roles')
      const theirs = await created(`/api/v1/projects/${other.projectId}/roles`, {
        name: 'x',
        permissions: [],
      })
      const hidden = await send('GET', `${base}/${theirs.id}`)
      expect([hidden.status, hidden.body.detail[0].loc]).toEqual([404, ['path', 'role_id']])
    })
  })
})
