import {
  type BearerAuth,
  createKeyward,
  type KeywardContext,
  MemoryKeyStore,
  type ProjectAuth,
} from '@keyward/core'
import Fastify from 'fastify'
import { expectTypeOf } from 'vitest'
import { type KeywardRouteConfig, requireBearer, requireProject } from './index.js'

const keyward = createKeyward({ store: new MemoryKeyStore() })
const app = Fastify()
app.get('/p/:project_id', { onRequest: requireProject(keyward) }, async (request) => {
  expectTypeOf(request.keyward).toEqualTypeOf<ProjectAuth>()
  return request.keyward.projectId
})
app.get<{ Params: { id: string } }, KeywardRouteConfig<BearerAuth<{ sub: string }>>>(
  '/q/:id',
  { onRequest: requireBearer<{ sub: string }>({ verify: () => ({ sub: 'x' }) }) },
  async (request) => {
    expectTypeOf(request.keyward).toEqualTypeOf<BearerAuth<{ sub: string }>>()
    expectTypeOf(request.params.id).toEqualTypeOf<string>()
  },
)
app.get('/x', async (request) => {
  expectTypeOf(request.keyward).toEqualTypeOf<KeywardContext | null>()
})
app.addHook('onRequest', requireProject(keyward))
