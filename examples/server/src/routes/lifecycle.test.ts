import { afterAll, beforeAll, expect, it } from 'vitest'
import { describeBackends } from '../test/databases.js'
import { openTestApp, type TestApp } from '../test/harness.js'

// The key lifecycle through the reference server: expiry, roll, re-activation, last use.
describeBackends('key lifecycle (%s)', (backend) => {
  let t: TestApp
  beforeAll(async () => {
    t = await openTestApp(backend)
  })
  afterAll(() => t.close())

  const dev = () => ({ 'x-developer-key': t.developerKey })

  it('creates an expiring key, and refuses a bad expiry with 422, creating nothing', async () => {
    const { projectId } = await t.project('Expiry')
    const path = `/api/v1/projects/${projectId}/api-keys`
    const created = await t.call('POST', path, { headers: dev(), body: { expires_in_days: 7 } })
    expect(created.status).toBe(201)
    expect(Date.parse(created.body.expires_at) - Date.parse(created.body.created_at)).toBe(7 * 86_400_000)
    const bad = await t.call('POST', path, { headers: dev(), body: { expires_at: '2020-01-01T00:00:00Z' } })
    expect(bad).toMatchObject({
      status: 422,
      body: { detail: [{ type: 'datetime_future', loc: ['body', 'expires_at'] }] },
    })
    const listed = await t.call('GET', path, { headers: dev() })
    expect(listed.body.keys).toHaveLength(2)
  })

  it('rolls the default key: both keys work through the grace window, a second roll is refused', async () => {
    const { projectId, apiKey, apiKeyId } = await t.project('Roll')
    const rolled = await t.call('POST', `/api/v1/projects/${projectId}/api-keys/${apiKeyId}/roll`, {
      headers: dev(),
      body: { grace_seconds: 600 },
    })
    expect(rolled.status).toBe(201)
    expect(rolled.body).toMatchObject({
      name: 'default',
      project_id: projectId,
      previous_key: { id: apiKeyId },
    })
    await t.token(projectId, apiKey)
    await t.token(projectId, rolled.body.key)
    const again = await t.call('POST', `/api/v1/projects/${projectId}/api-keys/${apiKeyId}/roll`, {
      headers: dev(),
    })
    expect(again).toMatchObject({ status: 409, body: { detail: [{ type: 'key_rolled' }] } })
    const immediate = await t.call('POST', `/api/v1/projects/${projectId}/api-keys/${rolled.body.id}/roll`, {
      headers: dev(),
      body: { grace_seconds: 0 },
    })
    const refused = await t.call('POST', `/api/v1/projects/${projectId}/access-tokens`, {
      headers: { 'x-api-key': rolled.body.key },
    })
    expect([immediate.status, refused.status, refused.body.detail[0].type]).toEqual([201, 401, 'key_invalid'])
  })

  it('re-activates a revoked developer key over HTTP; another developer gets 404', async () => {
    const created = await t.call('POST', '/api/v1/auth/developer-keys', {
      headers: dev(),
      body: { name: 'spare' },
    })
    await t.call('DELETE', `/api/v1/auth/developer-keys/${created.body.id}`, { headers: dev() })
    const back = await t.call('POST', `/api/v1/auth/developer-keys/${created.body.id}/activate`, {
      headers: dev(),
    })
    expect(back).toMatchObject({
      status: 200,
      body: { id: created.body.id, active: true, rotation_due: false },
    })
    const other = await t.developer('dev_other')
    const foreign = await t.call('POST', `/api/v1/auth/developer-keys/${created.body.id}/activate`, {
      headers: { 'x-developer-key': other },
    })
    expect(foreign.status).toBe(404)
  })
})
