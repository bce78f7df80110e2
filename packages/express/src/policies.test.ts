import type { AddressInfo } from 'node:net'
import type { ElevatedAuth, KeyMetadata, ProjectAuth } from '@keyward/core'
import { createConformanceWorld, issuePolicyKeys } from '@keyward/testkit'
import express from 'express'
import { afterEach, describe, expect, expectTypeOf, it } from 'vitest'
import { requireElevated, requireKey, requireProject, requireProjectWithMetadata } from './index.js'

type Plan = { plan: string; seats: number }

const servers: import('node:http').Server[] = []
afterEach(() => {
  for (const server of servers.splice(0)) server.close()
})

describe('@keyward/express: access policies', () => {
  it("types the key's metadata by the generic and refuses a key without the route's permission", async () => {
    const { keyward } = await createConformanceWorld('reject')
    const { reader, writer } = await issuePolicyKeys(keyward)
    const app = express()
    app.get(
      '/projects/:project_id/reports',
      requireProjectWithMetadata<Plan>(keyward, { permissions: { allOf: ['reports:read'] } }),
      (req, res) => {
        expectTypeOf(req.keyward).toEqualTypeOf<ProjectAuth<Plan>>()
        res.json({ seats: req.keyward.metadata?.seats })
      },
    )
    app.get('/projects/:project_id/open', requireProject(keyward), (req, res) => {
      expectTypeOf(req.keyward.metadata).toEqualTypeOf<Readonly<Record<string, unknown>> | null>()
      res.json({ metadata: req.keyward.metadata })
    })
    const server = app.listen(0, '127.0.0.1')
    servers.push(server)
    await new Promise((resolve) => server.once('listening', resolve))
    const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
    const ok = await fetch(`${origin}/projects/proj-1/reports`, { headers: { 'x-api-key': reader } })
    expect(await ok.json()).toEqual({ seats: 3 })
    const refused = await fetch(`${origin}/projects/proj-1/reports`, { headers: { 'x-api-key': writer } })
    expect(refused.status).toBe(403)
    expect((await refused.json()).detail[0]).toMatchObject({ type: 'permission_denied' })
    const open = await fetch(`${origin}/projects/proj-1/open`, { headers: { 'x-api-key': writer } })
    expect(await open.json()).toEqual({ metadata: null })
  })

  it("types the key's metadata in requireKey and requireElevated by the generic, and without one as before", async () => {
    const { keyward, keys } = await createConformanceWorld('reject')
    const { reader } = await issuePolicyKeys(keyward)
    const app = express()
    app.get('/reports', requireKey<Plan>(keyward), (req, res) => {
      expectTypeOf(req.keyward).toEqualTypeOf<ProjectAuth<Plan>>()
      res.json({ plan: req.keyward.metadata?.plan })
    })
    app.get('/any', requireKey(keyward), (req, res) => {
      expectTypeOf(req.keyward).toEqualTypeOf<ProjectAuth<KeyMetadata>>()
      res.json({ project: req.keyward.projectId })
    })
    app.get('/projects/:project_id/admin', requireElevated<Plan>(keyward), (req, res) => {
      expectTypeOf(req.keyward).toEqualTypeOf<ElevatedAuth<Plan>>()
      res.json({ seats: req.keyward.metadata?.seats, developer: req.keyward.developerId })
    })
    app.get('/projects/:project_id/plain', requireElevated(keyward), (req, res) => {
      expectTypeOf(req.keyward).toEqualTypeOf<ElevatedAuth>()
      res.json({ metadata: req.keyward.metadata })
    })
    const server = app.listen(0, '127.0.0.1')
    servers.push(server)
    await new Promise((resolve) => server.once('listening', resolve))
    const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
    const get = async (path: string, headers: Record<string, string>) =>
      (await fetch(`${origin}${path}`, { headers })).json()
    expect(await get('/reports', { 'x-api-key': reader })).toEqual({ plan: 'pro' })
    expect(await get('/any', { 'x-api-key': reader })).toEqual({ project: 'proj-1' })
    const both = { 'x-api-key': reader, 'x-developer-key': keys.d1 }
    expect(await get('/projects/proj-1/admin', both)).toEqual({ seats: 3, developer: 'dev-1' })
    expect(await get('/projects/proj-1/plain', both)).toEqual({ metadata: { plan: 'pro', seats: 3 } })
  })
})
