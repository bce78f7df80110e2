import type { ProjectAuth } from '@keyward/core'
import { createConformanceWorld, issuePolicyKeys } from '@keyward/testkit'
import Fastify from 'fastify'
import { describe, expect, expectTypeOf, it } from 'vitest'
import { type KeywardRouteConfig, requireProject } from './index.js'

type Plan = { plan: string; seats: number }

describe('@keyward/fastify: access policies', () => {
  it("types the key's metadata by the generic and refuses a key without the route's permission", async () => {
    const { keyward } = await createConformanceWorld('reject')
    const { reader, writer } = await issuePolicyKeys(keyward)
    const app = Fastify()
    const hook = requireProject<Plan>(keyward, { permissions: { allOf: ['reports:read'] } })
    app.get<{ Params: { project_id: string } }, KeywardRouteConfig<ProjectAuth<Plan>>>(
      '/projects/:project_id/reports',
      { onRequest: hook },
      async (request) => {
        expectTypeOf(request.keyward.metadata).toEqualTypeOf<Plan | null>()
        return { seats: request.keyward.metadata?.seats }
      },
    )
    const ok = await app.inject({ url: '/projects/proj-1/reports', headers: { 'x-api-key': reader } })
    expect(ok.json()).toEqual({ seats: 3 })
    const refused = await app.inject({
      url: '/projects/proj-1/reports',
      headers: { 'x-api-key': writer },
    })
    expect(refused.statusCode).toBe(403)
    expect(refused.json().detail[0]).toMatchObject({ type: 'permission_denied' })
  })
})
