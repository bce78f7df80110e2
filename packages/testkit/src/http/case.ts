import type { LegacyDeveloperKeyPolicy } from '@keyward/core'
import type { RawRequest } from './raw-client.js'
import type { ConformanceWorld } from './world.js'

/** A parsed JSON body, as the checks of a case read it. */
// biome-ignore lint/suspicious/noExplicitAny: checks read response fields freely and fail with the body.
export type JsonBody = any

/** What one case expects of every adapter. */
export type Expectation =
  /** An error in the specification's format (`msg` checked when given). */
  | {
      readonly status: number
      readonly type: string
      readonly loc?: readonly string[]
      readonly msg?: string
      readonly challenge?: string
      /** Checks, after the answer, that the refused request changed nothing (reading the world). */
      readonly afterwards?: (world: ConformanceWorld) => Promise<void>
    }
  /** A success; `check` inspects the parsed body (and may use the world to verify effects). */
  | {
      readonly status: number
      readonly check?: (
        body: JsonBody,
        world: ConformanceWorld,
        headers: Readonly<Record<string, readonly string[]>>,
      ) => void | Promise<void>
    }
  /** The HTTP server refuses the request itself with this status: Keyward never runs. */
  | { readonly refusedByServer: number }

/** One request sent to every adapter, with what each must answer. */
export interface HttpCase {
  readonly name: string
  /** The legacy `dk_` policy of the world it runs in. Default `reject`. */
  readonly policy?: LegacyDeveloperKeyPolicy
  /**
   * Runs in a world (legacy policy `reject`) whose API keys live at most
   * `CONFORMANCE_MAX_LIFETIME_DAYS` days, as under the reference server's
   * `KEYWARD_MAX_API_KEY_LIFETIME_DAYS`.
   */
  readonly maxLifetime?: boolean
  readonly request: (world: ConformanceWorld) => RawRequest | Promise<RawRequest>
  readonly expect: Expectation
}

/** Paths of the protected routes that every harness serves (see `HttpAdapterHarness`). */
export const ROUTES = {
  developer: '/conformance/developer',
  owner: (projectId: string) => `/conformance/projects/${projectId}/owner`,
  project: (projectId: string) => `/conformance/projects/${projectId}/project`,
  permitted: (projectId: string) => `/conformance/projects/${projectId}/permitted`,
  elevated: (projectId: string) => `/conformance/projects/${projectId}/elevated`,
  bearer: '/conformance/bearer',
  throws: '/conformance/throws',
} as const

type Header = readonly [string, string]
export const developerKey = (key: string): Header => ['X-Developer-Key', key]
export const apiKey = (key: string): Header => ['X-API-Key', key]
export const json: Header = ['Content-Type', 'application/json']
export const get = (path: string, ...headers: Header[]): RawRequest => ({ method: 'GET', path, headers })

/** An error expectation. */
export const error = (
  status: number,
  type: string,
  loc?: readonly string[],
  msg?: string,
  challenge?: string,
): Expectation => ({
  status,
  type,
  ...(loc ? { loc } : {}),
  ...(msg ? { msg } : {}),
  ...(challenge ? { challenge } : {}),
})

/** `ak_` plus `n` alphabet characters that no world ever issued. */
export const unknownKey = (n = 32) => `ak_${'Zq9-_x'.repeat(Math.ceil(n / 6)).slice(0, n)}`
