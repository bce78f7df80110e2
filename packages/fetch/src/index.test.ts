import {
  type BearerAuth,
  type DeveloperAuth,
  ErrorType,
  KeywardError,
  type ProjectAuth,
  projectGuard,
} from '@keyward/core'
import { createConformanceWorld } from '@keyward/testkit'
import { describe, expect, expectTypeOf, it } from 'vitest'
import {
  authenticate,
  keywardHandler,
  keywardOnError,
  requireBearer,
  requireDeveloper,
  requireKey,
  requireProject,
  toKeywardRequest,
} from './index.js'

// Web Request and Response only, no server: as a Next.js route handler, Bun or Deno calls them.
const ORIGIN = 'http://localhost'
const request = (path: string, init?: RequestInit) => new Request(`${ORIGIN}${path}`, init)

describe('@keyward/fetch', () => {
  it("reads the project from Next.js's params, a promise (Next 15) or an object (Next 14)", async () => {
    const { keyward, keys } = await createConformanceWorld('reject')
    const GET = requireProject(keyward, (_request, auth) => {
      expectTypeOf(auth).toEqualTypeOf<ProjectAuth>()
      return Response.json({ projectId: auth.projectId })
    })
    const headers = { 'X-API-Key': keys.p1 }
    for (const params of [Promise.resolve({ project_id: 'proj-1' }), { project_id: 'proj-1' }]) {
      const answer = await GET(request('/api/v1/projects/proj-1/hello', { headers }), { params })
      expect([answer.status, await answer.json()]).toEqual([200, { projectId: 'proj-1' }])
    }
    const other = await GET(request('/x', { headers }), { params: { project_id: 'proj-2' } })
    expect([other.status, (await other.json()).detail[0].type]).toEqual([403, 'project_mismatch'])
    const twice = await GET(request('/x', { headers: { 'X-API-Key': `${keys.p1}, ${keys.p1}` } }), {
      params: { project_id: 'proj-1' },
    })
    expect([twice.status, twice.headers.get('cache-control')]).toEqual([401, 'no-store'])
  })

  it('requireKey takes any active API key without route params; a misplaced guard throws to the host', async () => {
    const { keyward, keys } = await createConformanceWorld('reject')
    const GET = requireKey(keyward, (_request, auth) => Response.json({ project: auth.projectId }))
    for (const [key, project] of [
      [keys.p1, 'proj-1'],
      [keys.p2, 'proj-2'],
    ]) {
      const answer = await GET(request('/api/reports', { headers: { 'X-API-Key': key! } }))
      expect([answer.status, await answer.json()]).toEqual([200, { project }])
    }
    expect((await GET(request('/api/reports'))).status).toBe(401)
    const misplaced = requireProject(keyward, () => Response.json('never'))
    await expect(misplaced(request('/api/reports', { headers: { 'X-API-Key': keys.p1 } }))).rejects.toThrow(
      /route GET \/api\/reports has none/,
    )
  })

  it("hands the handler its context and answers the KeywardErrors it throws; the host's own go on", async () => {
    const { keyward, keys } = await createConformanceWorld('reject')
    const hostError = new Error('secret detail')
    const GET = requireDeveloper(keyward, async (_request, auth, context) => {
      expectTypeOf(auth).toEqualTypeOf<DeveloperAuth>()
      const { thing } = (await context.params) ?? {}
      if (thing === 'boom') throw hostError
      throw new KeywardError(ErrorType.notFound, 'No such thing.', ['path', 'thing'])
    })
    const headers = { 'X-Developer-Key': keys.d1 }
    const missing = await GET(request('/things/x', { headers }), { params: Promise.resolve({ thing: 'x' }) })
    expect([missing.status, await missing.json()]).toEqual([
      404,
      { detail: [{ loc: ['path', 'thing'], msg: 'No such thing.', type: 'not_found' }] },
    ])
    await expect(
      GET(request('/things/boom', { headers }), { params: Promise.resolve({ thing: 'boom' }) }),
    ).rejects.toBe(hostError)
    expect(() => keywardOnError(hostError)).toThrow(hostError)
  })

  it('authenticate gives the context, or the refusal as a Response', async () => {
    const { keyward, keys } = await createConformanceWorld('reject')
    const guard = projectGuard(keyward)
    const params = { project_id: 'proj-1' }
    const ok = await authenticate(guard, request('/p', { headers: { 'x-api-key': keys.p1 } }), { params })
    expect(ok.ok && ok.auth.projectId).toBe('proj-1')
    const refused = await authenticate(guard, request('/p'), { params })
    expect(refused.ok).toBe(false)
    if (refused.ok) return
    expect([refused.response.status, (await refused.response.json()).detail[0].type]).toEqual([
      401,
      'key_missing',
    ])
  })

  it('keywardHandler answers every key route from one handler, and 404 in the format for the rest', async () => {
    const { keyward, keys } = await createConformanceWorld('reject')
    const handler = keywardHandler(keyward)
    const headers = { 'X-Developer-Key': keys.d1, 'Content-Type': 'application/json' }
    const created = await handler(
      request('/api/v1/projects/proj-1/api-keys', { method: 'POST', headers, body: '{"name":"edge"}' }),
    )
    expect(created.status).toBe(201)
    const key = await created.json()
    expect(key).toMatchObject({ name: 'edge', project_id: 'proj-1' })
    // A percent-encoded parameter is decoded, as routers do.
    const encoded = key.id.replace('-', '%2D')
    const revoked = await handler(
      request(`/api/v1/projects/proj-1/api-keys/${encoded}`, { method: 'DELETE', headers }),
    )
    expect([revoked.status, (await revoked.json()).active]).toEqual([200, false])
    for (const [method, path] of [
      ['GET', '/api/v1/nowhere'],
      ['PUT', '/api/v1/auth/developer-keys'],
      ['GET', '/api/v1/auth/developer-keys/extra/segments'],
    ] as const) {
      const answer = await handler(request(path, { method, headers }))
      expect([answer.status, await answer.json()]).toEqual([
        404,
        { detail: [{ loc: [], msg: 'Not found.', type: 'not_found' }] },
      ])
    }
  })

  it('converts a request: catch-all arrays joined, the address as given, headers by name', () => {
    const converted = toKeywardRequest(request('/a?x=1', { headers: { 'X-API-Key': 'k' } }), {
      params: { path: ['auth', 'developer-keys'], project_id: 'p' },
      address: '192.0.2.1',
    })
    expect([converted.url, converted.params, converted.address, converted.header('x-api-key')]).toEqual([
      `${ORIGIN}/a?x=1`,
      { path: 'auth/developer-keys', project_id: 'p' },
      '192.0.2.1',
      'k',
    ])
  })

  it('types a bearer context by its claims', () => {
    type Claims = { readonly sub: string }
    requireBearer<Claims>({ verify: () => ({ sub: 'x' }) }, (_request, auth) => {
      expectTypeOf(auth).toEqualTypeOf<BearerAuth<Claims>>()
      return Response.json({ sub: auth.claims.sub })
    })
  })
})
