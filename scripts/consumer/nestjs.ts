// A consumer of @keyward/nestjs with @keyward/core: a Nest app on platform-express whose route
// requires the project's API key, served on 127.0.0.1 and called with fetch.
import 'reflect-metadata'
import { createKeyward, MemoryKeyStore, type ProjectAuth } from '@keyward/core'
import { KeywardAuth, KeywardModule, RequireProject } from '@keyward/nestjs'
import { Controller, Get, Module } from '@nestjs/common'
import { NestFactory } from '@nestjs/core'
import { ExpressAdapter } from '@nestjs/platform-express'
import { checkProtectedRoute, runFixture } from './fixture.js'

runFixture('@keyward/nestjs', async () => {
  const keyward = createKeyward({ store: new MemoryKeyStore() })
  const { key } = await keyward.issueProjectKey('proj_1')

  @Controller('api/v1/projects/:project_id')
  class ItemsController {
    @Get('items')
    @RequireProject()
    items(@KeywardAuth() auth: ProjectAuth) {
      return { projectId: auth.projectId }
    }
  }
  @Module({ imports: [KeywardModule.forRoot({ keyward, keyRoutes: false })], controllers: [ItemsController] })
  class AppModule {}

  const app = await NestFactory.create(AppModule, new ExpressAdapter(), { logger: false })
  await app.listen(0, '127.0.0.1')
  const origin = (await app.getUrl()).replace('[::1]', '127.0.0.1')
  try {
    return await checkProtectedRoute(async (projectId, headers) => {
      const res = await fetch(`${origin}/api/v1/projects/${projectId}/items`, { headers })
      return { status: res.status, body: await res.json() }
    }, key)
  } finally {
    await app.close()
  }
})
