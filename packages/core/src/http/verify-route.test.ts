import { RateLimiterMemory } from 'rate-limiter-flexible'
import { describe, expect, it } from 'vitest'
import { hashKey } from '../hash/digest.js'
import type { ForeignKeyFormat } from '../key/foreign.js'
import type { KeywardEvent } from '../service/events.js'
import { createKeyward } from '../service/keyward.js'
import { MemoryKeyStore } from '../store/memory.js'
import { createKeyRoutes } from './key-routes.js'
import type { KeywardRequest } from './types.js'

const TOKEN = 'svc.Verifier-Token_0123456789abcdefghijklmnopqrstuvwxyz'

/** A store whose lookups of one hash fail, as a database that times out on them. */
class FlakyStore extends MemoryKeyStore {
  failing: string | undefined
  override async findKeyByHash(hash: string) {
    if (hash === this.failing) throw new Error('canceling statement due to statement timeout')
    return super.findKeyByHash(hash)
  }
}

async function service(
  serviceTokens?: readonly string[],
  failedAuthLimit?: number,
  permissions?: readonly string[],
  foreignKeys?: readonly ForeignKeyFormat[],
) {
  const store = new FlakyStore()
  const events: KeywardEvent[] = []
  const owners: Record<string, string> = { p1: 'd1', p2: 'd2' }
  const keyward = createKeyward({
    store,
    projectOwner: (id) => owners[id] ?? null,
    onEvent: (event) => events.push(event),
    ...(permissions ? { permissions } : {}),
    ...(foreignKeys ? { foreignKeys } : {}),
    ...(failedAuthLimit === undefined
      ? {}
      : { protection: { limiter: (settings) => new RateLimiterMemory(settings), failedAuthLimit } }),
  })
  const route = createKeyRoutes(keyward, serviceTokens ? { verify: { serviceTokens } } : {}).find(
    (r) => r.path === '/api/v1/keys/verify',
  )!
  const d1 = (await keyward.issueDeveloperKey('d1')).key
  const p1 = (await keyward.issueProjectKey('p1')).key
  const p2 = (await keyward.issueProjectKey('p2')).key
  async function call(headers: Record<string, string>, body: unknown, address = '203.0.113.9') {
    const request: KeywardRequest = {
      method: 'POST',
      url: '/api/v1/keys/verify',
      params: {},
      header: (name) => ({ 'content-type': 'application/json', ...headers })[name],
      body: () => ({ parsed: body }),
      address,
    }
    const response = await route.handle(request)
    return { status: response.status, json: JSON.parse(response.body) }
  }
  return { store, events, call, keyward, d1, p1, p2 }
}

describe('POST /api/v1/keys/verify', () => {
  it('takes a permission query as a guard does, and refuses a malformed one with 422 at its place', async () => {
    const { call, keyward, d1 } = await service(undefined, undefined, [
      'reports:read',
      'billing:read',
      'admin',
    ])
    const { key } = await keyward.issueProjectKey('p1', { permissions: ['reports:read', 'billing:*'] })
    const verify = async (permissions: unknown) => call({ 'x-developer-key': d1 }, { key, permissions })
    const query = 'reports:read and (billing:read or admin)'
    expect((await verify(query)).json).toMatchObject({
      valid: true,
      permissions: ['reports:read', 'billing:*'],
    })
    expect((await verify({ and: ['reports:read', { or: ['admin'] }] })).json).toMatchObject({
      valid: false,
      code: 'permission_denied',
    })
    expect((await verify(['reports:read', 'billing:read'])).json).toMatchObject({ valid: true })
    const malformed = await verify({ or: ['admin', 'reports:read and (admin'] })
    expect(malformed.status).toBe(422)
    expect(malformed.json.detail).toEqual([
      {
        loc: ['body', 'permissions', 'or', '1'],
        msg: 'The permission query is refused at .or[1], at character 24: expected "and", "or" or ")" to close the "(" at character 18, found the end.',
        type: 'value_error',
      },
    ])
    const undeclared = await verify('reports:read or nope')
    expect(undeclared.json.detail[0]).toMatchObject({
      loc: ['body', 'permissions'],
      type: 'permission_unknown',
    })
    expect(undeclared.json.detail[0].msg).toContain('at character 17: the permission "nope" is not declared')
    expect((await verify(`${'admin or '.repeat(120)}admin`)).json.detail[0]).toMatchObject({
      type: 'string_too_long',
    })
    const wildcard = await verify(['billing:*'])
    expect(wildcard.status).toBe(422)
    expect(wildcard.json.detail[0].loc.slice(0, 2)).toEqual(['body', 'permissions'])
  })

  it("spends a key's credits by `cost` as a guard does, last, and answers what is left", async () => {
    const { call, keyward, d1 } = await service()
    const { key, record } = await keyward.issueProjectKey('p1', { remaining: 5 })
    const verify = async (body: object) => (await call({ 'x-developer-key': d1 }, { key, ...body })).json
    expect(await verify({ cost: 3 })).toMatchObject({ valid: true, remaining: 2 })
    expect(await verify({})).toMatchObject({ valid: true, remaining: 1 })
    expect(await verify({ cost: 0 })).toMatchObject({ valid: true, remaining: null })
    // Refused for another reason first: it spends nothing.
    expect(await verify({ project_id: 'p2' })).toMatchObject({ valid: false, code: 'project_mismatch' })
    expect(await verify({ cost: 2 })).toMatchObject({ valid: false, code: 'usage_exceeded', remaining: null })
    expect(await verify({ cost: 1 })).toMatchObject({ valid: true, remaining: 0 })
    await keyward.close()
    expect((await keyward.findKey(record.id))?.remaining).toBe(0)
  })

  it('verifies an imported key of a format the service declares, with its credits and expiry, through the protection', async () => {
    const formats = [{ prefix: 'ba_', minLength: 20, maxLength: 80 }]
    const { call, keyward, d1 } = await service(undefined, 5, undefined, formats)
    const key = `ba_${'q'.repeat(40)}`
    const expires = '2099-01-01T00:00:00.000Z'
    const hash = await hashKey(key)
    await keyward.importKeys([{ hash, project_id: 'p1', prefix: 'ba_qq', remaining: 2, expires_at: expires }])
    const verify = async (presented: string) =>
      (await call({ 'x-developer-key': d1 }, { key: presented })).json
    expect(await verify(key)).toMatchObject({
      valid: true,
      remaining: 1,
      expires_at: expires,
      owner: { id: 'p1' },
    })
    expect(await verify(key)).toMatchObject({ valid: true, remaining: 0 })
    expect(await verify(key)).toMatchObject({ valid: false, code: 'usage_exceeded' })
    expect(await verify(`ba_${'z'.repeat(40)}`)).toMatchObject({ valid: false, code: 'key_invalid' })
    expect(await verify(`xx_${'q'.repeat(40)}`)).toMatchObject({ valid: false, code: 'key_malformed' })
    await keyward.close()
  })

  it("spends from the key's identity pool too, answering the lower balance, and refuses when the pool is spent", async () => {
    const { call, keyward, d1 } = await service()
    const acme = await keyward.createIdentity('p1', { externalId: 'customer_pool', remaining: 4 })
    const { key, record } = await keyward.issueProjectKey('p1', { identityId: acme.id, remaining: 10 })
    const verify = async (body: object) => (await call({ 'x-developer-key': d1 }, { key, ...body })).json
    expect(await verify({ cost: 3 })).toMatchObject({ valid: true, remaining: 1 })
    expect(await verify({ cost: 2 })).toMatchObject({ valid: false, code: 'usage_exceeded', remaining: null })
    await keyward.close()
    expect([
      (await keyward.findKey(record.id))?.remaining,
      (await keyward.findIdentity(acme.id))?.remaining,
    ]).toEqual([7, 1])
  })

  it('takes 1 of each stored rate limit of the key and its identity, before the credits: rate_limited spends none', async () => {
    const { call, keyward, d1 } = await service()
    const acme = await keyward.createIdentity('p1', {
      externalId: 'customer_acme',
      ratelimits: [{ name: 'requests', limit: 2, duration: 60_000 }],
    })
    const { key, record } = await keyward.issueProjectKey('p1', { identityId: acme.id, remaining: 10 })
    const other = (await keyward.issueProjectKey('p1', { identityId: acme.id })).key
    const verify = async (presented: string) =>
      (await call({ 'x-developer-key': d1 }, { key: presented })).json
    expect(await verify(key)).toMatchObject({ valid: true, remaining: 9 })
    expect(await verify(other)).toMatchObject({ valid: true, remaining: null })
    expect(await verify(key)).toMatchObject({ valid: false, code: 'rate_limited' })
    await keyward.close()
    expect((await keyward.findKey(record.id))?.remaining).toBe(9)
  })

  it('answers the identity of a key that has one, and null for a key without', async () => {
    const { call, keyward, d1, p1 } = await service()
    const acme = await keyward.createIdentity('p1', {
      externalId: 'customer_acme',
      metadata: { plan: 'pro' },
    })
    const { key } = await keyward.issueProjectKey('p1', { identityId: acme.id })
    expect((await call({ 'x-developer-key': d1 }, { key })).json).toMatchObject({
      valid: true,
      identity: { id: acme.id, external_id: 'customer_acme', metadata: { plan: 'pro' } },
    })
    expect((await call({ 'x-developer-key': d1 }, { key: p1 })).json).toMatchObject({
      valid: true,
      identity: null,
    })
  })

  it('takes a service token the operator configured as its SHA-256, for keys of any project', async () => {
    const { call, p1, p2 } = await service([await hashKey('another-token'), await hashKey(TOKEN)])
    for (const key of [p1, p2]) {
      const r = await call({ authorization: `Bearer ${TOKEN}` }, { key })
      expect([r.status, r.json.valid, r.json.owner.id]).toEqual([200, true, key === p1 ? 'p1' : 'p2'])
    }
    const wrong = await call({ authorization: `Bearer ${TOKEN}x` }, { key: p1 })
    expect([wrong.status, wrong.json.detail[0].type]).toEqual([401, 'token_invalid'])
  })

  it('prefers the developer key when both are sent: its own projects only', async () => {
    const { call, d1, p2 } = await service([await hashKey(TOKEN)])
    const r = await call({ 'x-developer-key': d1, authorization: `Bearer ${TOKEN}` }, { key: p2 })
    expect([r.status, r.json.valid, r.json.code]).toEqual([200, false, 'key_invalid'])
  })

  it('takes no bearer token without service tokens: 401 key_missing', async () => {
    const { call, p1 } = await service()
    const r = await call({ authorization: `Bearer ${TOKEN}` }, { key: p1 })
    expect([r.status, r.json.detail[0].type, r.json.detail[0].loc]).toEqual([
      401,
      'key_missing',
      ['header', 'x-developer-key'],
    ])
  })

  it('refuses service tokens that are not SHA-256 digests, naming the option', async () => {
    const keyward = createKeyward({ store: new MemoryKeyStore(), projectOwner: () => null })
    for (const serviceTokens of [[TOKEN], [(await hashKey(TOKEN)).toUpperCase()], 'abc']) {
      expect(() =>
        createKeyRoutes(keyward, { verify: { serviceTokens: serviceTokens as string[] } }),
      ).toThrow('option `verify.serviceTokens` must be an array of SHA-256 digests')
    }
  })

  it("reports another developer's key to the hook as not_project_owner, and answers it as unknown", async () => {
    const { call, events, d1, p2 } = await service()
    const r = await call({ 'x-developer-key': d1 }, { key: p2 })
    expect(r.json).toMatchObject({ valid: false, code: 'key_invalid', key_id: null })
    expect(events.at(-1)).toMatchObject({
      type: 'auth.failed',
      reason: 'not_project_owner',
      errorType: 'key_invalid',
    })
  })

  it('answers a store outage during the verification 503, never a verdict', async () => {
    const { call, store, d1, p1 } = await service()
    store.failing = await hashKey(p1)
    const r = await call({ 'x-developer-key': d1 }, { key: p1 })
    expect([r.status, r.json.detail[0].type]).toEqual([503, 'store_unavailable'])
  })

  it('is not mounted with verify: false', () => {
    const keyward = createKeyward({ store: new MemoryKeyStore(), projectOwner: () => null })
    const paths = createKeyRoutes(keyward, { verify: false }).map((r) => r.path)
    expect(paths).not.toContain('/api/v1/keys/verify')
  })

  it('counts refused keys against the caller, its address and its credential, never the ip it names', async () => {
    const { call, d1, p1, keyward, store } = await service([await hashKey(TOKEN)], 2)
    const unknown = `ak_${'Q'.repeat(32)}`
    const throttled = (by: string) => ({
      status: 429,
      json: { detail: [{ loc: [], msg: expect.stringContaining(by), type: 'rate_limited' }] },
    })
    // A new ip each time: the caller's address is throttled all the same.
    for (const ip of ['198.51.100.1', '198.51.100.2']) {
      expect((await call({ 'x-developer-key': d1 }, { key: unknown, ip })).json.code).toBe('key_invalid')
    }
    expect(await call({ 'x-developer-key': d1 }, { key: p1, ip: '198.51.100.3' })).toEqual(
      throttled('from this address'),
    )
    // Its credential is, from any address.
    expect(await call({ 'x-developer-key': d1 }, { key: p1 }, '192.0.2.2')).toEqual(
      throttled('with this credential'),
    )
    // The ip it named is not: another caller verifies a key for a client there, and from there.
    const bearer = { authorization: `Bearer ${TOKEN}` }
    expect((await call(bearer, { key: p1, ip: '198.51.100.1' }, '198.51.100.1')).json.valid).toBe(true)
    // A service token has a counter of its own.
    for (const address of ['192.0.2.3', '192.0.2.4']) {
      expect((await call(bearer, { key: unknown }, address)).json.code).toBe('key_invalid')
    }
    expect(await call(bearer, { key: p1 }, '192.0.2.5')).toEqual(throttled('with this credential'))
    // Usage counts the unknown keys by the caller's address too.
    await keyward.close()
    expect(
      store.usage.rows().map(({ route, address, outcome, count }) => [route, address, outcome, count]),
    ).toEqual(
      expect.arrayContaining([
        ['POST /api/v1/keys/verify', '203.0.113.9', 'unknown', 2],
        ['POST /api/v1/keys/verify', '192.0.2.3', 'unknown', 1],
      ]),
    )
    expect(JSON.stringify(store.usage.rows())).not.toContain('198.51.100.')
  })
})
