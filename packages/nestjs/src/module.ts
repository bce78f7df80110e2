import { createKeyRoutes, errorResponse, isKeywardError, notFoundResponse } from '@keyward/core'
import {
  type ArgumentsHost,
  Catch,
  Controller,
  type DynamicModule,
  Inject,
  type InjectionToken,
  Module,
  type ModuleMetadata,
  NotFoundException,
  type OptionalFactoryDependency,
  type Provider,
  Req,
  RequestMapping,
  RequestMethod,
  Res,
  type Type,
} from '@nestjs/common'
import { APP_FILTER, BaseExceptionFilter, HttpAdapterHost } from '@nestjs/core'
import { KeywardGuard, KeywardRefusal } from './guard.js'
import { KEYWARD, KEYWARD_OPTIONS, type KeywardModuleOptions } from './options.js'
import { send, toKeywardRequest } from './request.js'

/**
 * The global exception filter that `KeywardModule` installs: a `KeywardError` thrown by your
 * routes, a refusal of a Keyward guard, and every 404 (unmatched routes included) answer in the
 * specification's format; anything else goes to Nest's own handling.
 *
 * @example
 * ```ts
 * app.useGlobalFilters(new KeywardExceptionFilter(app.get(HttpAdapterHost).httpAdapter))
 * ```
 */
@Catch()
export class KeywardExceptionFilter extends BaseExceptionFilter {
  override catch(exception: unknown, host: ArgumentsHost): void {
    const answer =
      exception instanceof KeywardRefusal
        ? exception.answer
        : isKeywardError(exception)
          ? errorResponse(exception)
          : exception instanceof NotFoundException
            ? notFoundResponse()
            : undefined
    if (answer === undefined) {
      super.catch(exception, host)
      return
    }
    const adapter = this.httpAdapterHost?.httpAdapter ?? this.applicationRef!
    send(adapter, host.switchToHttp().getResponse(), answer)
  }
}

const METHODS = {
  GET: RequestMethod.GET,
  POST: RequestMethod.POST,
  PATCH: RequestMethod.PATCH,
  DELETE: RequestMethod.DELETE,
} as const

type RouteHandler = (request: unknown, response: unknown) => Promise<void>
const HANDLERS = Symbol('keyward:key-routes')

// The key routes' controller, one class per module. Its routes are those of `createKeyRoutes`
// for the resolved options, so it adds them to its own prototype when Nest builds it, before Nest
// maps the routes of controllers (`forRootAsync`'s options are only known then). One module may
// be built by several apps in a process (an e2e test's `beforeEach`): a method calls the handler
// of the instance it is called on, and a build whose routes differ from the last one's replaces
// the methods, in its routes' order.
function keyRoutesController(): Type {
  @Controller()
  class KeywardKeyRoutesController {
    readonly [HANDLERS] = new Map<string, RouteHandler>()

    constructor(
      @Inject(KEYWARD_OPTIONS) options: KeywardModuleOptions,
      @Inject(HttpAdapterHost) host: HttpAdapterHost,
    ) {
      const routes = createKeyRoutes(options.keyward, options)
      const names = routes.map((route, i) => `${route.method} ${route.path} #${i}`)
      for (const [i, route] of routes.entries()) {
        this[HANDLERS].set(names[i]!, async (request, response) => {
          send(host.httpAdapter, response, await route.handle(toKeywardRequest(request)))
        })
      }
      const prototype = KeywardKeyRoutesController.prototype as unknown as Record<string, unknown>
      const mapped = Object.getOwnPropertyNames(prototype).filter((name) => name !== 'constructor')
      if (mapped.join('\n') === names.join('\n')) return
      for (const name of mapped) delete prototype[name]
      for (const [i, route] of routes.entries()) {
        const name = names[i]!
        const descriptor = {
          value(this: KeywardKeyRoutesController, request: unknown, response: unknown) {
            return this[HANDLERS].get(name)!(request, response)
          },
          configurable: true,
          writable: true,
        }
        Object.defineProperty(prototype, name, descriptor)
        Req()(prototype, name, 0)
        Res()(prototype, name, 1)
        RequestMapping({ path: route.path, method: METHODS[route.method] })(prototype, name, descriptor)
      }
    }
  }
  return KeywardKeyRoutesController
}

/** Options of `KeywardModule.forRootAsync`: a factory of {@link KeywardModuleOptions}. */
export interface KeywardModuleAsyncOptions extends Pick<ModuleMetadata, 'imports'> {
  useFactory: (...args: never[]) => KeywardModuleOptions | Promise<KeywardModuleOptions>
  inject?: Array<InjectionToken | OptionalFactoryDependency>
  /** Mount the key-management endpoints. Default `true`. */
  keyRoutes?: boolean
}

/**
 * The Keyward module, global: `@Inject(KEYWARD)` gives the service, the `@Require...()`
 * decorators guard routes, `KeywardExceptionFilter` answers errors in the specification's
 * format, and (unless `keyRoutes: false`) the key-management endpoints are mounted.
 *
 * @example
 * ```ts
 * @Module({ imports: [KeywardModule.forRoot({ keyward })], controllers: [HelloController] })
 * class AppModule {}
 * ```
 */
@Module({})
// biome-ignore lint/complexity/noStaticOnlyClass: a Nest module is a class; forRoot and forRootAsync are its static API
export class KeywardModule {
  /**
   * The module with these options (`keyRoutes: false` mounts no key routes).
   *
   * @example
   * ```ts
   * KeywardModule.forRoot({ keyward, createProject })
   * ```
   */
  static forRoot(options: KeywardModuleOptions & { readonly keyRoutes?: boolean }): DynamicModule {
    return build({ provide: KEYWARD_OPTIONS, useValue: options }, options.keyRoutes !== false, [])
  }

  /**
   * The module with options from a factory, which Nest calls with the providers of `inject`.
   *
   * @example
   * ```ts
   * KeywardModule.forRootAsync({ imports: [DbModule], inject: [Db], useFactory: (db: Db) => ({ keyward: db.keyward }) })
   * ```
   */
  static forRootAsync(options: KeywardModuleAsyncOptions): DynamicModule {
    const { useFactory, inject = [], imports = [] } = options
    return build({ provide: KEYWARD_OPTIONS, useFactory, inject }, options.keyRoutes !== false, imports)
  }
}

function build(optionsProvider: Provider, keyRoutes: boolean, imports: ModuleMetadata['imports']) {
  return {
    module: KeywardModule,
    global: true,
    imports,
    providers: [
      optionsProvider,
      { provide: KEYWARD, useFactory: (o: KeywardModuleOptions) => o.keyward, inject: [KEYWARD_OPTIONS] },
      KeywardGuard,
      { provide: APP_FILTER, useClass: KeywardExceptionFilter },
    ],
    controllers: keyRoutes ? [keyRoutesController()] : [],
    exports: [KEYWARD, KEYWARD_OPTIONS, KeywardGuard],
  } satisfies DynamicModule
}
