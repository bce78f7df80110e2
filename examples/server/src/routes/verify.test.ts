import { hashKey } from '@keyward/core'
import { RateLimiterMemory } from 'rate-limiter-flexible'
import { afterAll, beforeAll, expect, it } from 'vitest'
import { describeBackends } from '../test/databases.js'
import { openTestApp, type TestApp } from '../test/harness.js'

const VERIFY = '/api/v1/keys/verify'
const SERVICE_TOKEN = 'verifier.0123456789-abcdefghijklmnopqrstuvwxyz_ABCDEF'
const unknownKey = `ak_${'Q'.repeat(32)}`

describeBackends('POST /api/v1/keys/verify (%s)', (backend) => {
  let t: TestApp
  beforeAll(async () => {
    t = await openTestApp(backend, {
      verifyTokens: [await hashKey(SERVICE_TOKEN)],
      protection: {
        limiter: (settings) => new RateLimiterMemory(settings),
        failedAuthLimit: 3,
        keyRateLimits: { project: { limit: 100, windowSeconds: 60 } },
      },
    })
  })
  afterAll(() => t.close())

  const asDeveloper = (body: unknown, developerKey = t.developerKey, address?: string) =>
    t.call('POST', VERIFY, {
      headers: { 'x-developer-key': developerKey },
      body,
      ...(address ? { address } : {}),
    })

  it("answers a key of the developer's project valid, with what it carries", async () => {
    const { projectId, apiKey, apiKeyId } = await t.project('Verified')
    const answer = await asDeveloper({ key: apiKey, project_id: projectId, ip: '203.0.113.5', cost: 1 })
    expect(answer.status).toBe(200)
    expect(answer.headers.get('cache-control')).toBe('no-store')
    expect(answer.body).toEqual({
      valid: true,
      code: null,
      key_id: apiKeyId,
      owner: { type: 'project', id: projectId },
      permissions: null,
      metadata: null,
      remaining: null,
      expires_at: null,
      ratelimit: { limit: 100, window_seconds: 60, remaining: 99, reset_seconds: expect.any(Number) },
    })
    expect(answer.text).not.toContain(apiKey)
  })

  it("answers another developer's key exactly as an unknown one, and a revoked key too", async () => {
    const other = await t.developer(`dev-other-${backend}`)
    const theirs = await t.project('Theirs', other)
    const mine = await t.project('Mine')
    const unknown = await asDeveloper({ key: unknownKey }, t.developerKey, '192.0.2.50')
    const foreign = await asDeveloper({ key: theirs.apiKey }, t.developerKey, '192.0.2.50')
    expect(unknown.body).toMatchObject({ valid: false, code: 'key_invalid', key_id: null })
    expect([foreign.status, foreign.text]).toEqual([unknown.status, unknown.text])
    // The owner revokes the key through the API: the next verification refuses it.
    await t.call('DELETE', `/api/v1/projects/${mine.projectId}/api-keys/${mine.apiKeyId}`, {
      headers: { 'x-developer-key': t.developerKey },
    })
    const revoked = await asDeveloper({ key: mine.apiKey }, t.developerKey, '192.0.2.51')
    expect(revoked.text).toBe(unknown.text)
  })

  it('takes the service token of KEYWARD_VERIFY_TOKENS for keys of any project, and nothing else', async () => {
    const other = await t.developer(`dev-service-${backend}`)
    const theirs = await t.project('Any', other)
    const service = await t.call('POST', VERIFY, {
      headers: { authorization: `Bearer ${SERVICE_TOKEN}` },
      body: { key: theirs.apiKey },
    })
    expect(service.body).toMatchObject({ valid: true, owner: { type: 'project', id: theirs.projectId } })
    const none = await t.call('POST', VERIFY, { body: { key: theirs.apiKey }, address: '192.0.2.60' })
    expect([none.status, none.body.detail[0].type]).toEqual([401, 'key_missing'])
    const byItself = await t.call('POST', VERIFY, {
      headers: { 'x-api-key': theirs.apiKey },
      body: { key: theirs.apiKey },
      address: '192.0.2.60',
    })
    expect([byItself.status, byItself.body.detail[0].type]).toEqual([401, 'key_missing'])
    const wrong = await t.call('POST', VERIFY, {
      headers: { authorization: `Bearer ${SERVICE_TOKEN}-not` },
      body: { key: theirs.apiKey },
      address: '192.0.2.60',
    })
    expect([wrong.status, wrong.body.detail[0].type]).toEqual([401, 'token_invalid'])
  })

  it("counts refused keys against the ip the caller names, and the caller's own address without one", async () => {
    const { apiKey } = await t.project('Throttled')
    for (let i = 0; i < 3; i++) {
      expect(
        (await asDeveloper({ key: unknownKey, ip: '198.51.100.9' }, undefined, '192.0.2.70')).body.code,
      ).toBe('key_invalid')
    }
    // That client is throttled; the caller is not.
    expect((await asDeveloper({ key: apiKey, ip: '198.51.100.9' }, undefined, '192.0.2.70')).body.code).toBe(
      'rate_limited',
    )
    expect(
      (await asDeveloper({ key: apiKey, ip: '198.51.100.10' }, undefined, '192.0.2.70')).body.valid,
    ).toBe(true)
    for (let i = 0; i < 3; i++) await asDeveloper({ key: unknownKey }, undefined, '192.0.2.71')
    const caller = await asDeveloper({ key: apiKey }, undefined, '192.0.2.71')
    expect([caller.status, caller.body.detail[0].type]).toEqual([429, 'rate_limited'])
  })
})
