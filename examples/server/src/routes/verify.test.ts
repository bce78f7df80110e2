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
      identity: null,
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

  // The error of a throttled caller: the usual format, never a verdict.
  const expectThrottled = (answer: Awaited<ReturnType<typeof asDeveloper>>, msg: RegExp) => {
    expect([answer.status, answer.headers.get('cache-control'), answer.headers.get('retry-after')]).toEqual([
      429,
      'no-store',
      expect.stringMatching(/^[1-9][0-9]*$/),
    ])
    expect(answer.body).toEqual({
      detail: [{ loc: [], msg: expect.stringMatching(msg), type: 'rate_limited' }],
    })
  }

  it('counts refused keys against the caller’s own address, whatever ip it names', async () => {
    const developerKey = await t.developer(`dev-spoofer-${backend}`)
    const { apiKey } = await t.project('Spoofed', developerKey)
    // A new ip with every call escapes nothing: the failures are the caller's.
    for (let i = 0; i < 3; i++) {
      const answer = await asDeveloper(
        { key: unknownKey, ip: `198.51.100.${i + 1}` },
        developerKey,
        '192.0.2.70',
      )
      expect([answer.status, answer.body.valid, answer.body.code]).toEqual([200, false, 'key_invalid'])
    }
    expectThrottled(
      await asDeveloper({ key: apiKey, ip: '198.51.100.99' }, developerKey, '192.0.2.70'),
      /^Too many failed authentications from this address: try again in \d+ seconds\.$/,
    )
  })

  it('never throttles the address a caller names in ip: it only meets the key’s allowlist', async () => {
    const attackerKey = await t.developer(`dev-attacker-${backend}`)
    for (let i = 0; i < 10; i++) {
      await asDeveloper({ key: unknownKey, ip: '127.0.0.23' }, attackerKey, '192.0.2.80')
    }
    expectThrottled(
      await asDeveloper({ key: unknownKey, ip: '127.0.0.23' }, attackerKey, '192.0.2.80'),
      /from this address/,
    )
    // Another developer, at the address the attacker named, is not throttled there.
    const victimKey = await t.developer(`dev-victim-${backend}`)
    const victim = await t.project('Victim', victimKey)
    const fromThere = await asDeveloper({ key: victim.apiKey, ip: '127.0.0.23' }, victimKey, '127.0.0.23')
    expect([fromThere.status, fromThere.body.valid]).toEqual([200, true])
    const listed = await t.call('GET', `/api/v1/projects/${victim.projectId}/api-keys`, {
      headers: { 'x-developer-key': victimKey },
      address: '127.0.0.23',
    })
    expect(listed.status).toBe(200)
    const guarded = await t.call('POST', `/api/v1/projects/${victim.projectId}/access-tokens`, {
      headers: { 'x-api-key': victim.apiKey },
      address: '127.0.0.23',
    })
    expect(guarded.status).toBe(201)
  })

  it('counts refused keys against the caller’s credential too, from any address', async () => {
    const developerKey = await t.developer(`dev-roaming-${backend}`)
    const { apiKey } = await t.project('Roaming', developerKey)
    for (let i = 0; i < 3; i++) {
      const answer = await asDeveloper({ key: unknownKey }, developerKey, `192.0.2.${90 + i}`)
      expect(answer.body.code).toBe('key_invalid')
    }
    expectThrottled(
      await asDeveloper({ key: apiKey }, developerKey, '192.0.2.99'),
      /^Too many failed verifications with this credential: try again in \d+ seconds\.$/,
    )
    // Its key is not refused elsewhere, and another caller verifies the same key.
    const other = await t.call('POST', VERIFY, {
      headers: { authorization: `Bearer ${SERVICE_TOKEN}` },
      body: { key: apiKey },
      address: '192.0.2.99',
    })
    expect([other.status, other.body.valid]).toEqual([200, true])

    // A service token the same way.
    for (let i = 0; i < 3; i++) {
      const answer = await t.call('POST', VERIFY, {
        headers: { authorization: `Bearer ${SERVICE_TOKEN}` },
        body: { key: unknownKey },
        address: `192.0.2.${100 + i}`,
      })
      expect(answer.body.code).toBe('key_invalid')
    }
    expectThrottled(
      await t.call('POST', VERIFY, {
        headers: { authorization: `Bearer ${SERVICE_TOKEN}` },
        body: { key: apiKey },
        address: '192.0.2.110',
      }),
      /with this credential/,
    )
  })
})
