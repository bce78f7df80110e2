import type { CreateProject, Keyward, ProjectAuth } from '@keyward/core'
import { createConformanceWorld } from '@keyward/testkit'
import {
  Controller,
  Get,
  HttpException,
  type INestApplication,
  Inject,
  Injectable,
  Module,
  NotFoundException,
} from '@nestjs/common'
import { NestFactory } from '@nestjs/core'
import { ExpressAdapter } from '@nestjs/platform-express'
import { FastifyAdapter } from '@nestjs/platform-fastify'
import { afterEach, describe, expect, it } from 'vitest'
import { KEYWARD, KeywardAuth, KeywardModule, RequireProject } from './index.js'

const apps: INestApplication[] = []
afterEach(async () => {
  for (const app of apps.splice(0)) await app.close()
})

async function start(module: unknown, platform: 'express' | 'fastify' = 'express'): Promise<string> {
  const adapter = platform === 'express' ? new ExpressAdapter() : new FastifyAdapter()
  const app = await NestFactory.create(module as never, adapter, { logger: false })
  apps.push(app)
  await app.listen(0, '127.0.0.1')
  return (await app.getUrl()).replace('[::1]', '127.0.0.1')
}

@Injectable()
class Projects {
  constructor(@Inject(KEYWARD) readonly keyward: Keyward) {}
}

@Controller('api/v1/projects/:project_id')
class OrdersController {
  constructor(@Inject(Projects) private readonly projects: Projects) {}

  @Get('orders')
  @RequireProject()
  orders(@KeywardAuth() auth: ProjectAuth) {
    return { projectId: auth.projectId, service: typeof this.projects.keyward.authenticate }
  }

  @Get('orders/:order_id')
  order() {
    throw new NotFoundException('Order not found.')
  }

  @Get('teapot')
  teapot() {
    throw new HttpException('teapot', 418)
  }

  @Get('boom')
  boom() {
    throw new Error('secret detail')
  }
}

describe('@keyward/nestjs', () => {
  for (const platform of ['express', 'fastify'] as const) {
    it(`${platform}: forRootAsync builds the service from injected providers; routes and key routes use it, with Nest's own body parser`, async () => {
      const world = await createConformanceWorld('reject')
      @Module({ providers: [{ provide: 'WORLD', useValue: world }], exports: ['WORLD'] })
      class WorldModule {}
      @Module({
        imports: [
          KeywardModule.forRootAsync({
            imports: [WorldModule],
            inject: ['WORLD'],
            useFactory: (w: typeof world) => ({ keyward: w.keyward }),
          }),
        ],
        controllers: [OrdersController],
        providers: [Projects],
      })
      class AppModule {}
      const origin = await start(AppModule, platform)
      const orders = await fetch(`${origin}/api/v1/projects/proj-1/orders`, {
        headers: { 'X-API-Key': world.keys.p1 },
      })
      expect(await orders.json()).toEqual({ projectId: 'proj-1', service: 'function' })
      const refused = await fetch(`${origin}/api/v1/projects/proj-2/orders`, {
        headers: { 'X-API-Key': world.keys.p1 },
      })
      expect([
        refused.status,
        refused.headers.get('cache-control'),
        (await refused.json()).detail[0].type,
      ]).toEqual([403, 'no-store', 'project_mismatch'])
      // Nest parsed this JSON body already: the key route takes it as it is.
      const created = await fetch(`${origin}/api/v1/auth/developer-keys`, {
        method: 'POST',
        headers: { 'X-Developer-Key': world.keys.d1, 'Content-Type': 'application/json' },
        body: '{"name":"parsed by Nest"}',
      })
      expect([created.status, (await created.json()).name]).toEqual([201, 'parsed by Nest'])
    })

    it(`${platform}: one module builds an app three times in a process, each app on its own options`, async () => {
      // The usual e2e pattern: the module is declared once, and each test builds, uses and closes
      // an app of it. Each build here gets a new service; the second also mounts project creation.
      let world = await createConformanceWorld('reject')
      let createProject: CreateProject | undefined
      @Module({
        imports: [
          KeywardModule.forRootAsync({ useFactory: () => ({ keyward: world.keyward, createProject }) }),
        ],
        controllers: [OrdersController],
        providers: [Projects],
      })
      class AppModule {}
      let previous: string | undefined
      for (const build of [1, 2, 3]) {
        world = await createConformanceWorld('reject')
        createProject = build === 2 ? world.app.createProject : undefined
        const adapter = platform === 'express' ? new ExpressAdapter() : new FastifyAdapter()
        const app = await NestFactory.create(AppModule, adapter, { logger: false, abortOnError: false })
        await app.init()
        await app.listen(0, '127.0.0.1')
        const origin = (await app.getUrl()).replace('[::1]', '127.0.0.1')
        const post = (path: string, key: string, body: object) =>
          fetch(`${origin}${path}`, {
            method: 'POST',
            headers: { 'X-Developer-Key': key, 'Content-Type': 'application/json' },
            body: JSON.stringify(body),
          })
        const created = await post('/api/v1/auth/developer-keys', world.keys.d1, { name: `build ${build}` })
        expect([created.status, created.headers.get('cache-control'), (await created.json()).name]).toEqual([
          201,
          'no-store',
          `build ${build}`,
        ])
        const orders = await fetch(`${origin}/api/v1/projects/proj-1/orders`, {
          headers: { 'X-API-Key': world.keys.p1 },
        })
        expect([orders.status, await orders.json()]).toEqual([
          200,
          { projectId: 'proj-1', service: 'function' },
        ])
        if (previous !== undefined) {
          // The key of the build before is unknown to this one's service.
          const stale = await post('/api/v1/auth/developer-keys', previous, {})
          expect([stale.status, (await stale.json()).detail[0].type]).toEqual([401, 'key_invalid'])
        }
        const project = await post('/api/v1/projects', world.keys.d1, { name: 'Made' })
        const answer = await project.json()
        if (build === 2) expect([project.status, answer.project.name]).toEqual([201, 'Made'])
        else
          expect([project.status, answer]).toEqual([
            404,
            { detail: [{ loc: [], msg: 'Not found.', type: 'not_found' }] },
          ])
        previous = world.keys.d1
        await app.close()
      }
    })

    it(`${platform}: every 404 answers in the format; other errors are Nest's`, async () => {
      const { keyward } = await createConformanceWorld('reject')
      @Module({
        imports: [KeywardModule.forRoot({ keyward, keyRoutes: false })],
        controllers: [OrdersController],
        providers: [Projects],
      })
      class AppModule {}
      const origin = await start(AppModule, platform)
      const notFound = { detail: [{ loc: [], msg: 'Not found.', type: 'not_found' }] }
      for (const path of ['/nowhere', '/api/v1/auth/developer-keys', '/api/v1/projects/p/orders/o']) {
        const answer = await fetch(`${origin}${path}`)
        expect([answer.status, await answer.json()]).toEqual([404, notFound])
      }
      const teapot = await fetch(`${origin}/api/v1/projects/p/teapot`)
      expect([teapot.status, await teapot.json()]).toEqual([418, { statusCode: 418, message: 'teapot' }])
      const boom = await fetch(`${origin}/api/v1/projects/p/boom`)
      expect([boom.status, await boom.json()]).toEqual([
        500,
        { statusCode: 500, message: 'Internal server error' },
      ])
    })
  }
})

// The NestJS matrix (scripts/nestjs-matrix.mjs) names the major it runs the suite on; the suite
// proves that Nest's packages are of that major.
const major = process.env.KEYWARD_NESTJS_MAJOR
describe.skipIf(major === undefined)('the NestJS of the matrix (KEYWARD_NESTJS_MAJOR, set by it)', () => {
  it(`runs this suite: ${major ?? 'none named outside the matrix'}`, async () => {
    const versions = await Promise.all([
      import('@nestjs/common/package.json', { with: { type: 'json' } }),
      import('@nestjs/core/package.json', { with: { type: 'json' } }),
      import('@nestjs/platform-express/package.json', { with: { type: 'json' } }),
      import('@nestjs/platform-fastify/package.json', { with: { type: 'json' } }),
    ])
    expect(versions.map(({ default: manifest }) => manifest.version.split('.')[0])).toEqual([
      major,
      major,
      major,
      major,
    ])
  })
})
