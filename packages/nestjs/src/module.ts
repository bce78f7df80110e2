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

// The key routes' controller, one class per module. Its routes are those of `createKeyRoutes`
// for the resolved options, so it adds them to its own prototype when Nest builds it, before Nest
// maps the routes of controllers (`forRootAsync`'s options are only known then).
function keyRoutesController(): Type {
  @Controller()
  class KeywardKeyRoutesController {
    constructor(
      @Inject(KEYWARD_OPTIONS) options: KeywardModuleOptions,
      @Inject(HttpAdapterHost) host: HttpAdapterHost,
    ) {
      const prototype = Object.getPrototypeOf(this)
      for (const [i, route] of createKeyRoutes(options.keyward, options).entries()) {
        const name = `${route.method} ${route.path} #${i}`
        const descriptor = {
          value: async (request: unknown, response: unknown) => {
            send(host.httpAdapter, response, await route.handle(toKeywardRequest(request)))
          },
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
