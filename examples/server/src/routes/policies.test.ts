import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { describeBackends } from '../test/databases.js'
import { openTestApp, type TestApp } from '../test/harness.js'

const GENERATIONS = '/api/v1/generation/generations-v2'

describeBackends('access policies of API keys (%s)', (backend) => {
  let t: TestApp
  let projectId: string
  let keys: string
  const owner = () => ({ 'x-developer-key': t.developerKey })
  beforeAll(async () => {
    t = await openTestApp(backend)
    ;({ projectId } = await t.project('Policies'))
    keys = `/api/v1/projects/${projectId}/api-keys`
  })
  afterAll(() => t.close())

  const createKey = async (body: object) => {
    const created = await t.call('POST', keys, { headers: owner(), body })
    expect(created.status, created.text).toBe(201)
    return created.body as { id: string; key: string }
  }
  const tokenOf = async (key: string, address?: string, project = projectId) => {
    const answer = await t.call('POST', `/api/v1/projects/${project}/access-tokens`, {
      headers: { 'x-api-key': key },
      ...(address ? { address } : {}),
    })
    return answer
  }
  const bearer = (token: string) => ({ authorization: `Bearer ${token}` })

  it("PATCH changes a key's low-credits threshold and null clears it; one its credits cannot have is 422; a set to unlimited clears it", async () => {
    const { id } = await createKey({
      name: 'metered',
      remaining: 100,
      refill: { amount: 100, interval: 'daily' },
    })
    const patch = (body: object) => t.call('PATCH', `${keys}/${id}`, { headers: owner(), body })
    const set = await patch({ credits_low_at: { percent: 25 } })
    expect([set.status, set.body.credits_low_at]).toEqual([200, { percent: 25 }])
    const refused = await patch({ credits_low_at: { percent: 0 } })
    expect([refused.status, refused.body.detail[0].loc]).toEqual([422, ['body', 'credits_low_at', 'percent']])
    const shown = await t.call('GET', `${keys}/${id}`, { headers: owner() })
    expect(shown.body.credits_low_at).toEqual({ percent: 25 })
    expect((await patch({ credits_low_at: null })).body.credits_low_at).toBeNull()
    await patch({ credits_low_at: { remaining: 10 } })
    const unlimited = await t.call('POST', `${keys}/${id}/credits`, {
      headers: owner(),
      body: { op: 'set', amount: null },
    })
    expect([unlimited.status, unlimited.body.credits_low_at]).toEqual([200, null])
    const plain = await patch({ credits_low_at: { remaining: 10 } })
    expect([plain.status, plain.body.detail[0].loc]).toEqual([422, ['body', 'credits_low_at']])
  })

  it('the generation routes require generations:write and generations:delete, and a change holds at once', async () => {
    const { id, key } = await createKey({ name: 'writer', permissions: ['generations:write'] })
    const token = (await tokenOf(key)).body.access_token
    const created = await t.call('POST', GENERATIONS, { headers: bearer(token), body: { prompt: 'x' } })
    expect(created.status).toBe(201)
    const deleted = await t.call('DELETE', `${GENERATIONS}/${created.body.id}`, { headers: bearer(token) })
    expect([deleted.status, deleted.body.detail]).toEqual([
      403,
      [
        {
          loc: ['header', 'x-api-key'],
          msg: 'The API key lacks the permission generations:delete.',
          type: 'permission_denied',
        },
      ],
    ])
    // Narrowed: the token obtained before cannot create any more.
    const narrowed = await t.call('PATCH', `${keys}/${id}`, { headers: owner(), body: { permissions: [] } })
    expect([narrowed.status, narrowed.body.permissions]).toEqual([200, []])
    const refused = await t.call('POST', GENERATIONS, { headers: bearer(token), body: { prompt: 'y' } })
    expect([refused.status, refused.body.detail[0].type]).toEqual([403, 'permission_denied'])
    // A key created without permissions (the project's default key) has both.
    const defaults = await t.project('Defaults')
    const issued = await tokenOf(defaults.apiKey, undefined, defaults.projectId)
    expect(issued.status, issued.text).toBe(201)
    const all = issued.body.access_token
    const made = await t.call('POST', GENERATIONS, { headers: bearer(all), body: {} })
    expect(made.status, made.text).toBe(201)
    const gone = await t.call('DELETE', `${GENERATIONS}/${made.body.id}`, { headers: bearer(all) })
    expect(gone.status, gone.text).toBe(200)
  })

  it('an IP allowlist refuses the access token and the generations from elsewhere, IPv4-mapped included', async () => {
    const { key } = await createKey({ ip_allowlist: ['203.0.113.0/24', '2001:db8::/32'] })
    const outside = await tokenOf(key, '192.0.2.1')
    expect([outside.status, outside.body.detail[0].type]).toEqual([403, 'ip_not_allowed'])
    const inside = await tokenOf(key, '::ffff:203.0.113.9')
    expect(inside.status).toBe(201)
    const token = inside.body.access_token
    const elsewhere = await t.call('POST', GENERATIONS, {
      headers: bearer(token),
      body: {},
      address: '192.0.2.1',
    })
    expect([elsewhere.status, elsewhere.body.detail[0].type]).toEqual([403, 'ip_not_allowed'])
    const v6 = await t.call('POST', GENERATIONS, { headers: bearer(token), body: {}, address: '2001:db8::7' })
    expect(v6.status).toBe(201)
    // A refusal for the address costs no failed-verification count.
    expect(t.events.filter((e) => e.type === 'auth.failures')).toEqual([])
  })

  it('lists the policies, refuses an invalid entry at its index, and keeps metadata out of the events', async () => {
    const bad = await t.call('POST', keys, {
      headers: owner(),
      body: { ip_allowlist: ['10.0.0.0/8', '::1', 'localhost'] },
    })
    expect([bad.status, bad.body.detail[0].loc, bad.body.detail[0].type]).toEqual([
      422,
      ['body', 'ip_allowlist', '2'],
      'ip_invalid',
    ])
    const unknown = await t.call('POST', keys, { headers: owner(), body: { permissions: ['reports:read'] } })
    expect([unknown.status, unknown.body.detail[0].type]).toEqual([422, 'permission_unknown'])
    const { id } = await createKey({
      metadata: { customer: 'c_secret_42' },
      permissions: ['generations:write'],
    })
    const listed = await t.call('GET', keys, { headers: owner() })
    expect(listed.body.keys.find((k: { id: string }) => k.id === id)).toMatchObject({
      ip_allowlist: null,
      permissions: ['generations:write'],
      metadata: { customer: 'c_secret_42' },
    })
    expect(JSON.stringify(t.events)).not.toContain('c_secret_42')
  })
})

describe('a maximum lifetime of API keys (KEYWARD_MAX_API_KEY_LIFETIME_DAYS) (pglite)', () => {
  let t: TestApp
  beforeAll(async () => {
    t = await openTestApp('pglite', { keyPolicies: { project: { maxLifetimeDays: 30 } } })
  })
  afterAll(() => t.close())

  it('gives a key without an expiry the maximum, the default key included, and refuses a longer one', async () => {
    const before = Date.now()
    const { projectId } = await t.project('Bounded')
    const keys = `/api/v1/projects/${projectId}/api-keys`
    const headers = { 'x-developer-key': t.developerKey }
    const listed = await t.call('GET', keys, { headers })
    const expiresAt = Date.parse(listed.body.keys[0].expires_at)
    expect(expiresAt - before).toBeGreaterThanOrEqual(30 * 86_400_000 - 1000)
    expect(expiresAt - Date.now()).toBeLessThanOrEqual(30 * 86_400_000)
    const longer = await t.call('POST', keys, { headers, body: { expires_in_days: 31 } })
    expect([longer.status, longer.body.detail[0]]).toEqual([
      422,
      {
        loc: ['body', 'expires_in_days'],
        msg: 'API keys live at most 30 days here: give an earlier expiry.',
        type: 'lifetime_exceeded',
      },
    ])
    const never = await t.call('PATCH', `${keys}/${listed.body.keys[0].id}`, {
      headers,
      body: { expires_at: null },
    })
    expect([never.status, never.body.detail[0].type]).toEqual([422, 'lifetime_exceeded'])
    // Developer keys are not bound by the API keys' maximum.
    const developer = await t.call('POST', '/api/v1/auth/developer-keys', { headers })
    expect(developer.body.expires_at).toBeNull()
  })
})
