import { describe, expect, it } from 'vitest'
import type { KeywardEvent } from '../service/events.js'
import { createKeyward } from '../service/keyward.js'
import { MemoryKeyStore } from '../store/memory.js'
import { apiKeyGuard, bearerGuard, developerGuard, elevatedGuard, projectGuard } from './guards.js'
import type { KeywardRequest, KeywardResponse } from './types.js'

function request(
  headers: Record<string, string | string[]> = {},
  init: { params?: Record<string, string>; url?: string } = {},
): KeywardRequest {
  return {
    method: 'GET',
    url: init.url ?? '/',
    params: init.params ?? {},
    header: (name) => headers[name],
  }
}

const parsed = (response: KeywardResponse) => JSON.parse(response.body)

async function world() {
  const events: KeywardEvent[] = []
  const projects = new Map([
    ['p1', 'd1'],
    ['p2', 'd2'],
  ])
  const keyward = createKeyward({
    store: new MemoryKeyStore(),
    projectOwner: (id) => projects.get(id) ?? null,
    onEvent: (event) => events.push(event),
  })
  const d1 = (await keyward.issueDeveloperKey('d1')).key
  const d2 = (await keyward.issueDeveloperKey('d2')).key
  const p1 = (await keyward.issueProjectKey('p1')).key
  const p2 = (await keyward.issueProjectKey('p2')).key
  return { keyward, events, d1, d2, p1, p2 }
}

async function refusal(result: Promise<{ ok: boolean; response?: KeywardResponse }>) {
  const r = await result
  expect(r.ok).toBe(false)
  return r.response!
}

describe('developerGuard', () => {
  it('attaches the developer context', async () => {
    const { keyward, d1 } = await world()
    const result = await developerGuard(keyward)(request({ 'x-developer-key': d1 }))
    expect(result).toMatchObject({ ok: true, auth: { scope: 'developer', developerId: 'd1' } })
  })

  it('requires the owner when given a project parameter', async () => {
    const { keyward, d1, d2 } = await world()
    const guard = developerGuard(keyward, { projectParam: 'project_id' })
    const ok = await guard(request({ 'x-developer-key': d1 }, { params: { project_id: 'p1' } }))
    expect(ok).toMatchObject({ ok: true, auth: { developerId: 'd1', projectId: 'p1' } })
    const other = await refusal(guard(request({ 'x-developer-key': d2 }, { params: { project_id: 'p1' } })))
    expect([other.status, parsed(other).detail[0].type]).toEqual([403, 'not_project_owner'])
    const none = await refusal(guard(request({ 'x-developer-key': d1 }, { params: { project_id: 'p9' } })))
    expect([none.status, parsed(none).detail[0].type]).toEqual([404, 'not_found'])
  })

  it('answers key_missing, and says so when the key came in the query string', async () => {
    const { keyward, d1 } = await world()
    const plain = await refusal(developerGuard(keyward)(request()))
    expect(plain.status).toBe(401)
    expect(parsed(plain)).toEqual({
      detail: [
        {
          loc: ['header', 'x-developer-key'],
          msg: 'Send the developer key in the X-Developer-Key header.',
          type: 'key_missing',
        },
      ],
    })
    for (const url of [`/x?developer_key=${d1}`, `/x?a=1&X-Developer-Key=${d1}`, `/x?k=${d1}`]) {
      const r = await refusal(developerGuard(keyward)(request({}, { url })))
      expect(parsed(r).detail[0]).toEqual({
        loc: ['header', 'x-developer-key'],
        msg: 'Keys are never read from the query string: send the developer key in the X-Developer-Key header.',
        type: 'key_missing',
      })
    }
  })

  it('explains a key_missing of another copy of the package (no instanceof)', async () => {
    const foreign = Object.assign(new Error('Send the developer key in the X-Developer-Key header.'), {
      name: 'KeywardError',
      type: 'key_missing',
      status: 401,
      loc: ['header', 'x-developer-key'],
      msg: 'Send the developer key in the X-Developer-Key header.',
      details: [{ loc: ['header', 'x-developer-key'], msg: 'x', type: 'key_missing' }],
    })
    const keyward = { authenticate: () => Promise.reject(foreign) } as never
    const r = await refusal(developerGuard(keyward)(request({}, { url: '/x?apikey=1' })))
    expect(parsed(r).detail[0].msg).toBe(
      'Keys are never read from the query string: send the developer key in the X-Developer-Key header.',
    )
  })

  it('rejects several values, as lines or as a comma-joined list, with one answer', async () => {
    const { keyward, d1, d2 } = await world()
    const guard = developerGuard(keyward)
    const bodies = await Promise.all(
      [[d1, d2], [d1, d1], `${d1}, ${d2}`, `${d1},${d2}`, [`${d1},x`]].map(async (value) =>
        parsed(await refusal(guard(request({ 'x-developer-key': value })))),
      ),
    )
    for (const body of bodies) {
      expect(body).toEqual({
        detail: [
          {
            loc: ['header', 'x-developer-key'],
            msg: 'Send exactly one developer key in one X-Developer-Key header.',
            type: 'key_malformed',
          },
        ],
      })
    }
  })

  it('treats an empty list of values as absent and a one-element list as the value', async () => {
    const { keyward, d1 } = await world()
    const guard = developerGuard(keyward)
    expect((await guard(request({ 'x-developer-key': [d1] }))).ok).toBe(true)
    const r = await refusal(guard(request({ 'x-developer-key': [] })))
    expect(parsed(r).detail[0].type).toBe('key_missing')
  })

  it('checks its options when built', async () => {
    const { keyward } = await world()
    expect(() => developerGuard({} as never)).toThrow(
      'developerGuard: the first argument must be a Keyward service',
    )
    expect(() => developerGuard(keyward, { projectParam: '' })).toThrow('option `projectParam`')
  })

  it('refuses, when built, to check owners without the service option `projectOwner`', () => {
    const keyward = createKeyward({ store: new MemoryKeyStore() })
    expect(() => elevatedGuard(keyward)).toThrow(
      'elevatedGuard needs to know who owns a project: give createKeyward the option `projectOwner`',
    )
    expect(() => developerGuard(keyward, { projectParam: 'project_id' })).toThrow(
      'developerGuard with `projectParam` needs to know who owns a project',
    )
    expect(developerGuard(keyward)).toBeTypeOf('function')
    expect(projectGuard(keyward)).toBeTypeOf('function')
  })

  it('rejects, loudly, on a route that lacks its parameter: the error names both, the hook hears once', async () => {
    const { keyward, d1, events } = await world()
    const guard = developerGuard(keyward, { projectParam: 'pid' })
    expect(guard.routeParam).toBe('pid')
    const misplaced = request({ 'x-developer-key': d1 }, { url: '/reports?since=1' })
    for (let i = 0; i < 3; i++) {
      await expect(guard(misplaced)).rejects.toThrow(
        /requireDeveloper needs the path parameter `pid`, and the route GET \/reports has none/,
      )
    }
    const reported = events.filter((event) => event.type === 'guard.misconfigured')
    expect(reported).toMatchObject([{ guard: 'requireDeveloper', route: 'GET /reports', param: 'pid' }])
    for (const other of [projectGuard(keyward), elevatedGuard(keyward)]) {
      await expect(other(request({}, { url: '/reports' }))).rejects.toThrow(/`project_id`/)
    }
  })
})

describe('apiKeyGuard', () => {
  it('takes an active API key of any project, and says whose, on a route without a parameter', async () => {
    const { keyward, p1, p2, d1 } = await world()
    const guard = apiKeyGuard(keyward)
    expect(guard.routeParam).toBeUndefined()
    expect(await guard(request({ 'x-api-key': p1 }))).toMatchObject({ ok: true, auth: { projectId: 'p1' } })
    expect(await guard(request({ 'x-api-key': p2 }))).toMatchObject({ ok: true, auth: { projectId: 'p2' } })
    const missing = await refusal(guard(request()))
    expect([missing.status, parsed(missing).detail[0].type]).toEqual([401, 'key_missing'])
    const developerKey = await refusal(guard(request({ 'x-api-key': d1 })))
    expect([developerKey.status, parsed(developerKey).detail[0].type]).toEqual([401, 'key_wrong_type'])
    const [record] = await keyward.listKeys({ type: 'project', id: 'p2' })
    await keyward.deactivateKey(record!.id)
    const revoked = await refusal(guard(request({ 'x-api-key': p2 })))
    expect([revoked.status, parsed(revoked).detail[0].type]).toEqual([401, 'key_invalid'])
  })

  it("takes only the configured project's keys with `project`, cached or not", async () => {
    for (const cache of [undefined, {}]) {
      const keyward = createKeyward({ store: new MemoryKeyStore(), cache })
      const p1 = (await keyward.issueProjectKey('p1')).key
      const p2 = (await keyward.issueProjectKey('p2')).key
      const guard = apiKeyGuard(keyward, { project: 'p1' })
      for (let round = 0; round < 2; round++) {
        const ok = guard.now?.(request({ 'x-api-key': p1 })) ?? (await guard(request({ 'x-api-key': p1 })))
        expect(ok).toMatchObject({ ok: true, auth: { projectId: 'p1' } })
        const other = guard.now?.(request({ 'x-api-key': p2 })) ?? (await guard(request({ 'x-api-key': p2 })))
        expect(other.ok === false && [other.response.status, parsed(other.response).detail[0].type]).toEqual([
          403,
          'project_mismatch',
        ])
      }
      expect(() => apiKeyGuard(keyward, { project: '' })).toThrow(/`project` must be a non-empty string/)
    }
  })
})

describe('projectGuard and elevatedGuard', () => {
  it('scope an API key to the path parameter', async () => {
    const { keyward, p1 } = await world()
    const guard = projectGuard(keyward)
    const ok = await guard(request({ 'x-api-key': p1 }, { params: { project_id: 'p1' } }))
    expect(ok).toMatchObject({ ok: true, auth: { scope: 'project', projectId: 'p1' } })
    const r = await refusal(guard(request({ 'x-api-key': p1 }, { params: { project_id: 'p2' } })))
    expect([r.status, parsed(r).detail[0].type]).toEqual([403, 'project_mismatch'])
    const custom = projectGuard(keyward, { projectParam: 'pid' })
    expect((await custom(request({ 'x-api-key': p1 }, { params: { pid: 'p1' } }))).ok).toBe(true)
  })

  it('read the one parameter they need through request.param where the adapter gives it, not params', async () => {
    const { keyward, p1 } = await world()
    const read: string[] = []
    const oneAtATime = (params: Record<string, string>): KeywardRequest => ({
      ...request({ 'x-api-key': p1 }),
      get params(): Record<string, string> {
        throw new Error('params decoded every parameter')
      },
      param: (name) => {
        read.push(name)
        return params[name]
      },
    })
    expect(await projectGuard(keyward)(oneAtATime({ project_id: 'p1' }))).toMatchObject({ ok: true })
    const r = await refusal(projectGuard(keyward)(oneAtATime({ project_id: 'p2' })))
    expect([r.status, parsed(r).detail[0].type]).toEqual([403, 'project_mismatch'])
    const custom = projectGuard(keyward, { projectParam: 'pid' })
    expect((await custom(oneAtATime({ pid: 'p1' }))).ok).toBe(true)
    expect(read).toEqual(['project_id', 'project_id', 'pid'])
  })

  it('elevated needs both keys, of one project and its owner', async () => {
    const { keyward, d1, d2, p1 } = await world()
    const guard = elevatedGuard(keyward)
    const params = { params: { project_id: 'p1' } }
    expect(await guard(request({ 'x-developer-key': d1, 'x-api-key': p1 }, params))).toMatchObject({
      ok: true,
      auth: { scope: 'elevated', developerId: 'd1', projectId: 'p1' },
    })
    const noProject = await refusal(guard(request({ 'x-developer-key': d1 }, params)))
    expect(parsed(noProject).detail[0]).toMatchObject({ type: 'key_missing', loc: ['header', 'x-api-key'] })
    const noDeveloper = await refusal(guard(request({ 'x-api-key': p1 }, params)))
    expect(parsed(noDeveloper).detail[0]).toMatchObject({
      type: 'key_missing',
      loc: ['header', 'x-developer-key'],
    })
    const notOwner = await refusal(guard(request({ 'x-developer-key': d2, 'x-api-key': p1 }, params)))
    expect(parsed(notOwner).detail[0].type).toBe('not_project_owner')
  })

  it('answers 503 when the store is down, and never lets the request through', async () => {
    const { p1 } = await world()
    const store = new MemoryKeyStore()
    store.findKeyByHash = async () => {
      throw new Error('connection refused to db.internal:5432')
    }
    const guard = projectGuard(createKeyward({ store }))
    const r = await refusal(guard(request({ 'x-api-key': p1 }, { params: { project_id: 'p1' } })))
    expect(r.status).toBe(503)
    expect(parsed(r).detail[0].type).toBe('store_unavailable')
    expect(r.body).not.toContain('db.internal')
  })
})

describe('bearerGuard', () => {
  const guard = bearerGuard({
    verify: (token) => {
      if (token === 'boom') throw new Error('jwt malformed')
      return token === 'good.token-_~+/==' ? { projectId: 'p1' } : null
    },
  })
  const auth = (value: string | string[]) => request({ authorization: value })

  it('reads one token, any case of the scheme, one or more spaces (RFC 6750)', async () => {
    for (const value of [
      'Bearer good.token-_~+/==',
      'bearer good.token-_~+/==',
      'BEARER  good.token-_~+/==',
    ]) {
      expect(await guard(auth(value))).toEqual({
        ok: true,
        auth: { scope: 'bearer', claims: { projectId: 'p1' } },
      })
    }
  })

  it.each([
    ['absent', undefined, 'token_missing', 'Bearer'],
    ['Basic', 'Basic dXNlcjpwYXNz', 'token_missing', 'Bearer'],
    // Every scheme other than Bearer alike, commas in its parameters or not (RFC 7616, 7235).
    ['Digest', 'Digest username="u", realm="r", nonce="n", response="x"', 'token_missing', 'Bearer'],
    ['Negotiate', 'Negotiate YIIB', 'token_missing', 'Bearer'],
    ['other schemes in two headers', ['Basic dXNlcjpwYXNz', 'Digest a=b'], 'token_missing', 'Bearer'],
    ['Bearer alone', 'Bearer', 'token_missing', 'Bearer'],
    ['two tokens', 'Bearer a b', 'token_invalid', 'Bearer error="invalid_token"'],
    ['outside token68', 'Bearer a%b', 'token_invalid', 'Bearer error="invalid_token"'],
    [
      'two headers',
      ['Bearer good.token-_~+/==', 'Bearer x'],
      'token_invalid',
      'Bearer error="invalid_token"',
    ],
    ['unknown token', 'Bearer nope', 'token_invalid', 'Bearer error="invalid_token"'],
    ['verifier throws', 'Bearer boom', 'token_invalid', 'Bearer error="invalid_token"'],
  ])('%s: 401 %s with WWW-Authenticate', async (_name, value, type, challenge) => {
    const r = await refusal(guard(value === undefined ? request() : auth(value)))
    expect(r.status).toBe(401)
    expect(r.headers['www-authenticate']).toBe(challenge)
    expect(parsed(r).detail).toEqual([{ loc: ['header', 'authorization'], msg: expect.any(String), type }])
  })

  it('never reads a token from the query string, and says so', async () => {
    const r = await refusal(guard(request({}, { url: '/g?access_token=good' })))
    expect(parsed(r).detail[0].msg).toBe(
      'Access tokens are never read from the query string: send Authorization: Bearer <token>.',
    )
  })

  it('passes a KeywardError of the verifier through', async () => {
    const { KeywardError } = await import('../errors/error.js')
    const down = bearerGuard({
      verify: () => {
        throw new KeywardError('store_unavailable', 'The token store is unavailable.', [])
      },
    })
    const r = await refusal(down(auth('Bearer abc')))
    expect([r.status, parsed(r).detail[0].type]).toEqual([503, 'store_unavailable'])
    expect(() => bearerGuard({} as never)).toThrow('bearerGuard: option `verify` must be a function.')
  })
})

describe('answers known at once', () => {
  it('a guard answers a key the verification cache holds synchronously, and nothing else', async () => {
    const keyward = createKeyward({ store: new MemoryKeyStore(), cache: {} })
    const { key, record } = await keyward.issueProjectKey('p1')
    const guard = projectGuard(keyward)
    const req = request({ 'x-api-key': key }, { params: { project_id: 'p1' } })
    expect(guard.now?.(req)).toBeUndefined() // not cached yet: the asynchronous way looks it up
    expect((await guard(req)).ok).toBe(true)
    expect(guard.now?.(req)).toEqual({
      ok: true,
      auth: {
        scope: 'project',
        projectId: 'p1',
        projectKey: { id: record.id, keyPrefix: key.slice(0, 8) },
        permissions: null,
        metadata: null,
        identity: null,
      },
    })
    const other = request({ 'x-api-key': key }, { params: { project_id: 'p2' } })
    const mismatch = guard.now?.(other)
    expect(mismatch?.ok === false && mismatch.response.status).toBe(403)

    await keyward.deactivateKey(record.id)
    expect(guard.now?.(req)).toBeUndefined() // the write dropped the entry
    const refused = await guard(req)
    expect(refused.ok === false && parsed(refused.response).detail[0].type).toBe('key_invalid')
    const cachedRefusal = guard.now?.(req)
    expect(cachedRefusal?.ok === false && parsed(cachedRefusal.response).detail[0].type).toBe('key_invalid')
  })

  it('answers at once only one well-formed key in one header, whatever the cache holds', async () => {
    const keyward = createKeyward({ store: new MemoryKeyStore(), cache: {} })
    const { key: developerKey } = await keyward.issueDeveloperKey('d1')
    const { key } = await keyward.issueProjectKey('p1')
    const params = { params: { project_id: 'p1' } }
    expect((await projectGuard(keyward)(request({ 'x-api-key': key }, params))).ok).toBe(true)
    expect((await developerGuard(keyward)(request({ 'x-developer-key': developerKey }))).ok).toBe(true)
    // Several values, however sent, are for the asynchronous way, which refuses them.
    for (const several of [`${key}, ${key}`, [key, key], [key]]) {
      const req = request({ 'x-api-key': several }, params)
      expect(projectGuard(keyward).now?.(req)).toBeUndefined()
      const result = await projectGuard(keyward)(req)
      // One line holding one key is one value.
      const expected = Array.isArray(several) && several.length === 1 ? 'accepted' : 'key_malformed'
      expect(result.ok ? 'accepted' : parsed(result.response).detail[0].type).toBe(expected)
    }
    // A cached developer key is known at once in its own header only.
    expect(developerGuard(keyward).now?.(request({ 'x-developer-key': developerKey }))).toMatchObject({
      ok: true,
    })
    const swapped = projectGuard(keyward).now?.(request({ 'x-api-key': developerKey }, params))
    expect(swapped?.ok === false && parsed(swapped.response).detail[0].type).toBe('key_wrong_type')
    // A route without the project parameter is answered the asynchronous way, with its reason.
    expect(projectGuard(keyward).now?.(request({ 'x-api-key': key }))).toBeUndefined()
  })

  it('answers nothing at once without a cache, and with the throttle only its refusals', async () => {
    const plain = createKeyward({ store: new MemoryKeyStore() })
    const { key } = await plain.issueProjectKey('p1')
    const req = request({ 'x-api-key': key }, { params: { project_id: 'p1' } })
    await projectGuard(plain)(req)
    expect(projectGuard(plain).now?.(req)).toBeUndefined()
    const throttled = createKeyward({
      store: new MemoryKeyStore(),
      cache: {},
      protection: { limiter: () => ({ get: async () => null, penalty: async () => null }) as never },
    })
    // A cached valid key still waits for the counters (their answer is asynchronous).
    const { key: cachedKey } = await throttled.issueProjectKey('p1')
    const cachedReq = request({ 'x-api-key': cachedKey }, { params: { project_id: 'p1' } })
    expect((await projectGuard(throttled)(cachedReq)).ok).toBe(true)
    expect(projectGuard(throttled).now?.(cachedReq)).toBeUndefined()
  })
})
