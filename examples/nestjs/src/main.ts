// The smallest NestJS app that protects a route with Keyward: one project, owned by one
// developer, whose keys are issued at start and printed once. Keys live in memory here, so every
// start issues new ones; a real app keeps them in @keyward/postgres.
import 'reflect-metadata'
import { createKeyward, MemoryKeyStore, type ProjectAuth } from '@keyward/core'
import { KeywardAuth, KeywardModule, RequireProject } from '@keyward/nestjs'
import { Controller, Get, Module } from '@nestjs/common'
import { NestFactory } from '@nestjs/core'

const projects = new Map([
  ['proj_1', { id: 'proj_1', name: 'Example', developerId: 'dev_1', createdAt: new Date() }],
])

const keyward = createKeyward({
  store: new MemoryKeyStore(),
  projectOwner: (projectId) => projects.get(projectId)?.developerId ?? null,
})

@Controller('api/v1/projects/:project_id')
class HelloController {
  // An API key of the project named by :project_id, in the X-API-Key header.
  @Get('hello')
  @RequireProject()
  hello(@KeywardAuth() auth: ProjectAuth) {
    const { projectId, projectKey } = auth
    return { message: `Hello, ${projectId}!`, projectId, key: projectKey.keyPrefix }
  }
}

// KeywardModule mounts the key endpoints (the developer key of dev_1 creates, lists and revokes
// keys of proj_1) and answers unmatched routes and thrown KeywardErrors in the error format.
@Module({ imports: [KeywardModule.forRoot({ keyward })], controllers: [HelloController] })
class AppModule {}

// The first keys. A real app registers developers with the CLI (`keyward developers register`).

const developerKey = await keyward.issueDeveloperKey('dev_1', { name: 'example' })
const apiKey = await keyward.issueProjectKey('proj_1', { name: 'default' })

const app = await NestFactory.create(AppModule, { logger: ['error', 'warn'] })
await app.listen(Number(process.env.PORT ?? 3004), '127.0.0.1')
const url = (await app.getUrl()).replace('[::1]', '127.0.0.1')
console.log(`Keyward + NestJS example listening on ${url}

  API key of project proj_1 (X-API-Key):    ${apiKey.key}
  Developer key of dev_1 (X-Developer-Key): ${developerKey.key}

These keys will not be shown again: copy them now.

  curl -H "X-API-Key: <the API key>" ${url}/api/v1/projects/proj_1/hello`)
