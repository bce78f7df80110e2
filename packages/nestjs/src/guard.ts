import {
  type ApiKeyGuardOptions,
  apiKeyGuard,
  type BearerGuardOptions,
  bearerGuard,
  type DeveloperGuardOptions,
  developerGuard,
  elevatedGuard,
  type Guard,
  type KeywardContext,
  type KeywardResponse,
  type ProjectGuardOptions,
  projectGuard,
} from '@keyward/core'
import {
  applyDecorators,
  type CanActivate,
  createParamDecorator,
  type ExecutionContext,
  HttpException,
  Inject,
  Injectable,
  SetMetadata,
  UseGuards,
} from '@nestjs/common'
import { Reflector } from '@nestjs/core'
import { KEYWARD_OPTIONS, type KeywardModuleOptions } from './options.js'
import { toKeywardRequest } from './request.js'

/** What a route requires, as its `@Require...()` decorator sets it. */
type Requirement =
  | { readonly scope: 'developer'; readonly options?: DeveloperGuardOptions }
  | { readonly scope: 'project' | 'elevated'; readonly options?: ProjectGuardOptions }
  | { readonly scope: 'key'; readonly options?: ApiKeyGuardOptions }
  | { readonly scope: 'bearer'; readonly options?: BearerGuardOptions<unknown> }

const REQUIREMENT = 'keyward:requirement'

/**
 * A refused request: the guard throws it, and `KeywardExceptionFilter` sends `answer` as it is
 * (status, headers, body). Nest's own filter would still answer its status and body.
 *
 * @example
 * ```ts
 * const result = await projectGuard(keyward)(toKeywardRequest(request))
 * if (!result.ok) throw new KeywardRefusal(result.response)
 * ```
 */
export class KeywardRefusal extends HttpException {
  constructor(readonly answer: KeywardResponse) {
    super(JSON.parse(answer.body) as object, answer.status)
  }
}

/**
 * The guard behind the `@Require...()` decorators: it runs the route's requirement with
 * `@keyward/core`, sets `request.keyward` (read it with `@KeywardAuth()`), or refuses.
 *
 * @example
 * ```ts
 * @UseGuards(KeywardGuard)
 * @SetMetadata('keyward:requirement', { scope: 'project' }) // what @RequireProject() does
 * ```
 */
@Injectable()
export class KeywardGuard implements CanActivate {
  // One guard of core per decorated route, built at its first request.
  readonly #guards = new WeakMap<Requirement, Guard<KeywardContext>>()
  constructor(
    @Inject(KEYWARD_OPTIONS) private readonly options: KeywardModuleOptions,
    @Inject(Reflector) private readonly reflector: Reflector,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const requirement = this.reflector.getAllAndOverride<Requirement | undefined>(REQUIREMENT, [
      context.getHandler(),
      context.getClass(),
    ])
    if (requirement === undefined) return true
    const guard = this.#guards.get(requirement) ?? this.#build(requirement)
    const request = context.switchToHttp().getRequest<{ keyward?: KeywardContext }>()
    const converted = toKeywardRequest(request)
    const result = guard.now?.(converted) ?? (await guard(converted))
    if (!result.ok) throw new KeywardRefusal(result.response)
    if (result.headers) {
      // Express's `res.header` and Fastify's `reply.header` take the same arguments.
      const response = context.switchToHttp().getResponse<{ header(name: string, value: string): unknown }>()
      for (const [name, value] of Object.entries(result.headers)) response.header(name, value)
    }
    request.keyward = result.auth
    return true
  }

  #build(requirement: Requirement): Guard<KeywardContext> {
    const { keyward, bearer } = this.options
    const guard: Guard<KeywardContext> =
      requirement.scope === 'developer'
        ? developerGuard(keyward, requirement.options)
        : requirement.scope === 'project'
          ? projectGuard(keyward, requirement.options)
          : requirement.scope === 'elevated'
            ? elevatedGuard(keyward, requirement.options)
            : requirement.scope === 'key'
              ? apiKeyGuard(keyward, requirement.options)
              : bearerGuard({ keyward, ...(requirement.options ?? bearer) } as BearerGuardOptions<unknown>)
    this.#guards.set(requirement, guard)
    return guard
  }
}

const requires = (requirement: Requirement) =>
  applyDecorators(SetMetadata(REQUIREMENT, requirement), UseGuards(KeywardGuard))

/**
 * Requires a developer key (`X-Developer-Key`); with `projectParam`, of that project's owner.
 *
 * @example
 * ```ts
 * @Get('me')
 * @RequireDeveloper()
 * me(@KeywardAuth() auth: DeveloperAuth) { return { id: auth.developerId } }
 * ```
 */
export const RequireDeveloper = (options?: DeveloperGuardOptions) => requires({ scope: 'developer', options })

/**
 * Requires an API key (`X-API-Key`) of the request's `:project_id`.
 *
 * @example
 * ```ts
 * @Get('api/v1/projects/:project_id/items')
 * @RequireProject()
 * items(@KeywardAuth() auth: ProjectAuth) { return { project: auth.projectId } }
 * ```
 */
export const RequireProject = (options?: ProjectGuardOptions) => requires({ scope: 'project', options })

/**
 * Requires an active API key (`X-API-Key`) on a route without a project in its path: of any
 * project, or with `project` of that one. The context's `projectId` says whose key it is.
 *
 * @example
 * ```ts
 * @Get('reports')
 * @RequireKey()
 * reports(@KeywardAuth() auth: ProjectAuth) { return { project: auth.projectId } }
 * ```
 */
export const RequireKey = (options?: ApiKeyGuardOptions) => requires({ scope: 'key', options })

/**
 * Requires both keys: the owner's developer key and an API key of the request's `:project_id`.
 *
 * @example
 * ```ts
 * @Delete('api/v1/projects/:project_id')
 * @RequireElevated()
 * remove(@KeywardAuth() auth: ElevatedAuth) { return { id: auth.projectId, deleted: true } }
 * ```
 */
export const RequireElevated = (options?: ProjectGuardOptions) => requires({ scope: 'elevated', options })

/**
 * Requires `Authorization: Bearer <token>`, verified by `verify` (here, or the module's `bearer`
 * option); the module's service throttles refused tokens when it has `protection`.
 *
 * @example
 * ```ts
 * @Delete('api/v1/generation/generations-v2/:generation_id')
 * @RequireBearer()
 * remove(@KeywardAuth() auth: BearerAuth<Claims>) { return auth.claims }
 * ```
 */
export const RequireBearer = <T>(options?: BearerGuardOptions<T>) =>
  requires({ scope: 'bearer', options: options as BearerGuardOptions<unknown> | undefined })

/**
 * The caller's context that the route's `@Require...()` guard set: annotate it with the type its
 * requirement gives (`ProjectAuth`, `DeveloperAuth`, `ElevatedAuth`, `BearerAuth<Claims>`).
 *
 * @example
 * ```ts
 * hello(@KeywardAuth() auth: ProjectAuth) { return { projectId: auth.projectId } }
 * ```
 */
export const KeywardAuth = createParamDecorator(
  (_data: unknown, context: ExecutionContext) => context.switchToHttp().getRequest().keyward,
)
