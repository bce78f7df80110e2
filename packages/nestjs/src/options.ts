import type { BearerGuardOptions, KeyRoutesOptions, Keyward } from '@keyward/core'

/**
 * The injection token of the module's options; `@Inject(KEYWARD_OPTIONS)` gives them.
 *
 * @example
 * ```ts
 * constructor(@Inject(KEYWARD_OPTIONS) private readonly options: KeywardModuleOptions) {}
 * ```
 */
export const KEYWARD_OPTIONS = 'KEYWARD_OPTIONS'

/**
 * The injection token of the Keyward service; `@Inject(KEYWARD)` gives it to your providers.
 *
 * @example
 * ```ts
 * constructor(@Inject(KEYWARD) private readonly keyward: Keyward) {}
 * ```
 */
export const KEYWARD = 'KEYWARD'

/** Options of `KeywardModule.forRoot`, and what the factory of `forRootAsync` returns. */
export interface KeywardModuleOptions extends KeyRoutesOptions {
  /** The Keyward service (`createKeyward`). */
  readonly keyward: Keyward
  /** The token check of `@RequireBearer()`, when the decorator is given none. */
  readonly bearer?: BearerGuardOptions<unknown>
}
