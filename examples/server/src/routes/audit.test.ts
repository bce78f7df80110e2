import { createKeyward } from '@keyward/core'
import { afterAll, beforeAll, expect, it } from 'vitest'
import { describeBackends } from '../test/databases.js'
import { openTestApp, type TestApp, withFailingInserts } from '../test/harness.js'

// biome-ignore lint/suspicious/noExplicitAny: JSON answers read by path in tests
type Json = any

describeBackends('the audit log (%s)', (backend) => {
  let t: TestApp
  beforeAll(async () => {
    t = await openTestApp(backend)
  })
  afterAll(() => t.close())

  const dev = (extra: Record<string, string> = {}) => ({ 'x-developer-key': t.developerKey, ...extra })
  /** Runs `fn` while every insert of an audit row of `action` fails (an injected trigger). */
  const withFailingAudit = (action: string, fn: () => Promise<void>) =>
    withFailingInserts(t, 'audit_log', `NEW.action = '${action}'`, fn)
  const audit = async (query = '') => {
    const answer = await t.call('GET', `/api/v1/audit${query}`, { headers: dev() })
    expect(answer.status).toBe(200)
    return answer.body.entries as Json[]
  }

  it("records a project's life, each row with the developer, key prefix, address and request id", async () => {
    const { projectId, apiKey, apiKeyId } = await t.project('Audited')
    const deleted = await t.call('DELETE', `/api/v1/projects/${projectId}`, {
      headers: dev({ 'x-api-key': apiKey, 'x-request-id': 'delete-1' }),
      address: '198.51.100.20',
    })
    expect(deleted.status).toBe(200)
    // The project is gone: its filter is refused (404), its rows stay in the developer's log.
    const gone = await t.call('GET', `/api/v1/audit?project_id=${projectId}`, { headers: dev() })
    expect(gone.status).toBe(404)
    const entries = (await audit()).filter((e) => e.project_id === projectId)
    expect(entries.map((e) => e.action)).toEqual([
      'project.deleted',
      'key.revoked',
      'key.issued',
      'project.created',
    ])
    const actor = { type: 'developer', developer_id: t.developerId, key_prefix: t.developerKey.slice(0, 8) }
    expect(entries[0]).toMatchObject({
      actor,
      client_address: '198.51.100.20',
      request_id: 'delete-1',
      target: { type: 'project', id: projectId },
      before: { name: 'Audited' },
    })
    expect(entries[1]).toMatchObject({
      request_id: 'delete-1',
      target: { type: 'key', id: apiKeyId },
      after: { active: false },
    })
    expect(entries[3]).toMatchObject({ actor, client_address: '192.0.2.1', after: { name: 'Audited' } })
    expect(entries[2].request_id).toBe(entries[3].request_id)
    // The first start registered the developer, by the system.
    const first = (await audit()).slice(-2)
    expect(first.map((e) => [e.action, e.actor.type])).toEqual([
      ['key.issued', 'system'],
      ['developer.registered', 'system'],
    ])
    expect(JSON.stringify(await audit())).not.toContain(apiKey)
  })

  it("gives 404 for another developer's project, and another developer none of these rows", async () => {
    const { projectId } = await t.project('Mine')
    const other = await t.developer(`dev_other_${backend}`)
    const refused = await t.call('GET', `/api/v1/audit?project_id=${projectId}`, {
      headers: { 'x-developer-key': other },
    })
    expect([refused.status, refused.body.detail[0].loc]).toEqual([404, ['query', 'project_id']])
    const theirs = await t.call('GET', '/api/v1/audit', { headers: { 'x-developer-key': other } })
    expect(theirs.body.entries.every((e: Json) => e.developer_id === `dev_other_${backend}`)).toBe(true)
    const bad = await t.call('GET', '/api/v1/audit?limit=500', { headers: dev() })
    expect([bad.status, bad.body.detail[0].type]).toEqual([422, 'less_than_equal'])
  })

  it("records a change of a key's credits by the developer, and rolls it back when its row fails", async () => {
    const { projectId } = await t.project('Metered')
    const keys = `/api/v1/projects/${projectId}/api-keys`
    const created = await t.call('POST', keys, { headers: dev(), body: { remaining: 10 } })
    expect(created.status).toBe(201)
    const credits = `${keys}/${created.body.id}/credits`
    const added = await t.call('POST', credits, {
      headers: dev({ 'x-request-id': 'credits-1' }),
      body: { op: 'add', amount: 5 },
      address: '198.51.100.21',
    })
    expect([added.status, added.body.remaining]).toEqual([200, 15])
    const [row] = (await audit(`?project_id=${projectId}`)).filter((e) => e.action === 'key.credits_changed')
    const prefix = created.body.key_prefix
    expect(row).toMatchObject({
      actor: { type: 'developer', developer_id: t.developerId, key_prefix: t.developerKey.slice(0, 8) },
      client_address: '198.51.100.21',
      request_id: 'credits-1',
      target: { type: 'key', id: created.body.id },
      before: { key_prefix: prefix, remaining: 10 },
      after: { key_prefix: prefix, remaining: 15, op: 'add', amount: 5 },
    })

    await withFailingAudit('key.credits_changed', async () => {
      const refused = await t.call('POST', credits, { headers: dev(), body: { op: 'set', amount: 1000 } })
      expect([refused.status, refused.body.detail[0].type]).toEqual([503, 'store_unavailable'])
    })
    const listed = await t.call('GET', keys, { headers: dev() })
    expect(listed.body.keys.find((k: Json) => k.id === created.body.id)).toMatchObject({ remaining: 15 })
    const rows = (await audit(`?project_id=${projectId}`)).filter((e) => e.action === 'key.credits_changed')
    expect(rows).toHaveLength(1)
    expect(await createKeyward({ store: t.store }).verifyAudit()).toMatchObject({ ok: true })
  })

  it('a project deletion whose audit row fails is rolled back: the project and its keys stay', async () => {
    const { projectId, apiKey } = await t.project('Kept')
    await withFailingAudit('project.deleted', async () => {
      const refused = await t.call('DELETE', `/api/v1/projects/${projectId}`, {
        headers: dev({ 'x-api-key': apiKey }),
      })
      expect([refused.status, refused.body.detail[0].type]).toEqual([503, 'store_unavailable'])
    })
    expect(await t.rows('SELECT name FROM app.projects WHERE id = ?', [projectId])).toEqual([
      { name: 'Kept' },
    ])
    expect(await t.token(projectId, apiKey)).toEqual(expect.any(String))
    expect((await audit()).some((e) => e.action === 'project.deleted' && e.project_id === projectId)).toBe(
      false,
    )
    expect(await createKeyward({ store: t.store }).verifyAudit()).toMatchObject({ ok: true })
  })
})
