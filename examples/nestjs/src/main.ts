// src/main.ts: the smallest NestJS app that protects routes with Keyward: one project, owned by
// one developer, whose keys are issued at start and printed once. Keys live in memory here, so
// every start issues new ones; a real app keeps them in @keyward/postgres.
import 'reflect-metadata'
import {
  type BearerAuth,
  createKeyward,
  type DeveloperAuth,
  type ElevatedAuth,
  ErrorType,
  KeywardError,
  MemoryKeyStore,
  MemoryProjects,
  type ProjectAuth,
} from '@keyward/core'
import {
  KeywardAuth,
  KeywardModule,
  RequireBearer,
  RequireDeveloper,
  RequireElevated,
  RequireKey,
  RequireProject,
} from '@keyward/nestjs'
import { Body, Controller, Delete, Get, Module, Param, Post } from '@nestjs/common'
import { NestFactory } from '@nestjs/core'
import { ExpressAdapter } from '@nestjs/platform-express'
import { FastifyAdapter } from '@nestjs/platform-fastify'

// Projects in memory: proj_1, owned by dev_1, and those created through the key routes.
const projects = new MemoryProjects([{ id: 'proj_1', name: 'Example', developerId: 'dev_1' }])

const keyward = createKeyward({
  store: new MemoryKeyStore(),
  projectOwner: projects.owner,
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

// Next in src/main.ts: the other guards, in a controller of their own.

// Your token check: the claims of a valid token, or null. Here one token from the environment.
const verify = (token: string) => (token === process.env.REPORTS_TOKEN ? { sub: 'reports' } : null)

@Controller()
class AccountController {
  // Any active API key, on a route without a project in its path: the context says whose it is.
  @Get('api/v1/whoami')
  @RequireKey()
  whoami(@KeywardAuth() auth: ProjectAuth) {
    return { projectId: auth.projectId }
  }

  @Get('me')
  @RequireDeveloper()
  me(@KeywardAuth() auth: DeveloperAuth) {
    return { developerId: auth.developerId }
  }

  @Delete('api/v1/projects/:project_id')
  @RequireElevated()
  remove(@KeywardAuth() auth: ElevatedAuth) {
    projects.delete(auth.projectId)
    return { id: auth.projectId, deleted: true }
  }

  @Get('reports')
  @RequireBearer({ verify })
  reports(@KeywardAuth() auth: BearerAuth<{ sub: string }>) {
    return { sub: auth.claims.sub }
  }
}

// Next in src/main.ts: a JSON body, which Nest parses, and a KeywardError thrown from a handler,
// which answers in the error format.
const orders = new Map<string, unknown>()

@Controller('api/v1/projects/:project_id/orders')
class OrdersController {
  @Post()
  @RequireProject()
  create(@Body() order: unknown) {
    const id = crypto.randomUUID()
    orders.set(id, order)
    return { id }
  }

  @Get(':order_id')
  @RequireProject()
  order(@Param('order_id') orderId: string) {
    const order = orders.get(orderId)
    if (order === undefined)
      throw new KeywardError(ErrorType.notFound, 'Order not found.', ['path', 'order_id'])
    return order
  }
}

// Next in src/main.ts, after the controllers it lists: the root module. KeywardModule mounts the
// key endpoints (the developer key of dev_1 creates and lists projects, and creates, lists and
// revokes their keys) and answers unmatched routes and thrown KeywardErrors in the error format.
@Module({
  imports: [KeywardModule.forRoot({ keyward, ...projects.routes })],
  controllers: [HelloController, AccountController, OrdersController],
})
class AppModule {}

// Last in src/main.ts, the first keys. A real app registers developers with the CLI
// (`keyward developers register`).
const developerKey = await keyward.issueDeveloperKey('dev_1', { name: 'example' })
const apiKey = await keyward.issueProjectKey('proj_1', { name: 'default' })

// On platform-express, or with PLATFORM=fastify the same module on platform-fastify.
const adapter = process.env.PLATFORM === 'fastify' ? new FastifyAdapter() : new ExpressAdapter()
const app = await NestFactory.create(AppModule, adapter, { logger: ['error', 'warn'] })
await app.listen(Number(process.env.PORT ?? 3004), '127.0.0.1')
const url = (await app.getUrl()).replace('[::1]', '127.0.0.1')
console.log(`Keyward + NestJS example listening on ${url}

  API key of project proj_1 (X-API-Key):    ${apiKey.key}
  Developer key of dev_1 (X-Developer-Key): ${developerKey.key}

These keys will not be shown again: copy them now.

  curl -H "X-API-Key: <the API key>" ${url}/api/v1/projects/proj_1/hello`)

// A clean stop on Ctrl-C or SIGTERM: the app closes, then the keys' pending last-used times are
// written (with @keyward/postgres, close its store next).
const stop = () =>
  app.close().then(async () => {
    await keyward.flushLastUsed()
    process.exit(0)
  })
process.once('SIGINT', stop).once('SIGTERM', stop)
