import { decodeJwt } from 'jose'
import { afterAll, beforeAll, expect, it } from 'vitest'
import { describeBackends } from '../test/databases.js'
import { openTestApp, type TestApp } from '../test/harness.js'

describeBackends('POST /api/v1/projects/{project_id}/access-tokens (%s)', (backend) => {
  let t: TestApp
  beforeAll(async () => {
    t = await openTestApp(backend)
  })
  afterAll(() => t.close())

  const path = (projectId: string) => `/api/v1/projects/${projectId}/access-tokens`

  it('returns a short-lived bearer token scoped to the API key’s project', async () => {
    const { projectId, apiKey, apiKeyId } = await t.project()
    const answer = await t.call('POST', path(projectId), { headers: { 'x-api-key': apiKey } })
    expect(answer.status).toBe(201)
    expect(answer.headers.get('cache-control')).toBe('no-store')
    expect(answer.body).toEqual({ access_token: expect.any(String), token_type: 'bearer', expires_in: 900 })
    const claims = decodeJwt(answer.body.access_token)
    expect(claims).toMatchObject({ project_id: projectId, key_id: apiKeyId, iss: 'keyward-server' })
    expect(claims.exp! - claims.iat!).toBe(900)
    expect(answer.text).not.toContain(apiKey)
  })

  it('takes no option: `{}` is fine, a field is 422 extra_forbidden', async () => {
    const { projectId, apiKey } = await t.project('No options')
    const empty = await t.call('POST', path(projectId), { headers: { 'x-api-key': apiKey }, body: {} })
    expect(empty.status).toBe(201)
    const refused = await t.call('POST', path(projectId), {
      headers: { 'x-api-key': apiKey },
      body: { expires_in: 60 },
    })
    expect(refused.status).toBe(422)
    expect(refused.headers.get('cache-control')).toBe('no-store')
    expect(refused.body).toEqual({
      detail: [
        {
          loc: ['body', 'expires_in'],
          msg: 'Unknown field `expires_in`: this takes no fields.',
          type: 'extra_forbidden',
        },
      ],
    })
  })

  it('refuses anything but an active API key of that project', async () => {
    const { projectId } = await t.project('Mine')
    const other = await t.project('Other')
    const cases: Array<[Record<string, string>, number, string]> = [
      [{}, 401, 'key_missing'],
      [{ 'x-api-key': 'ak_short' }, 401, 'key_malformed'],
      [{ 'x-api-key': `ak_${'x'.repeat(32)}` }, 401, 'key_invalid'],
      [{ 'x-api-key': t.developerKey }, 401, 'key_wrong_type'],
      [{ 'x-api-key': other.apiKey }, 403, 'project_mismatch'],
    ]
    for (const [headers, status, type] of cases) {
      const answer = await t.call('POST', path(projectId), { headers })
      expect([answer.status, answer.body.detail[0].type]).toEqual([status, type])
    }
  })
})
