import type { ProjectAuth } from '@keyward/core'
import { createConformanceWorld, issuePolicyKeys } from '@keyward/testkit'
import { Hono } from 'hono'
import { describe, expect, expectTypeOf, it } from 'vitest'
import { requireProject } from './index.js'

type Plan = { plan: string; seats: number }

describe('@keyward/hono: access policies', () => {
  it("types the key's metadata by the generic and refuses a key without the route's permission", async () => {
    const { keyward } = await createConformanceWorld('reject')
    const { reader, writer } = await issuePolicyKeys(keyward)
    const app = new Hono()
    app.get(
      '/projects/:project_id/reports',
      requireProject<Plan>(keyward, { permissions: { allOf: ['reports:read'] } }),
      (c) => {
        expectTypeOf(c.get('keyward')).toEqualTypeOf<ProjectAuth<Plan>>()
        expectTypeOf(c.get('keyward').metadata).toEqualTypeOf<Plan | null>()
        return c.json({ seats: c.get('keyward').metadata?.seats })
      },
    )
    const ok = await app.request('/projects/proj-1/reports', { headers: { 'X-API-Key': reader } })
    expect(await ok.json()).toEqual({ seats: 3 })
    const refused = await app.request('/projects/proj-1/reports', { headers: { 'X-API-Key': writer } })
    expect(refused.status).toBe(403)
    expect((await refused.json()).detail[0]).toMatchObject({ type: 'permission_denied' })
  })
})
