import { CLIENT_ENV, type ClientEnv, type ClientMode, readClientConfig } from '@keyward/core/client'
import { buildClient, type ClientOptions, type KeywardClient } from './client.js'

/** Options of {@link clientFromEnv}. */
export interface ClientFromEnvOptions
  extends Omit<ClientOptions, 'baseUrl' | 'developerKey' | 'projectKey' | 'session'> {
  /** `console` needs `SERVICE_DEVELOPER_KEY`; `project` needs it and `SERVICE_PROJECT_KEY`. */
  readonly mode: ClientMode
  /** Where to read the variables. Default `process.env` (Node, Bun, Deno). */
  readonly env?: ClientEnv
}

function platformEnv(): ClientEnv {
  const proc = (globalThis as { process?: { env?: ClientEnv } }).process
  return proc?.env ?? {}
}

/**
 * Builds a client from the environment: `SERVICE_BASE_URL` names the server, console mode
 * sends `SERVICE_DEVELOPER_KEY`, project mode also has `SERVICE_PROJECT_KEY`. A missing or
 * malformed variable throws a `ClientConfigError` that names it and never holds its value.
 *
 * @example
 * ```ts
 * const client = clientFromEnv({ mode: 'project' })
 * const token = await client.accessTokens.create(projectId)
 * await client.generations.delete(generationId, { accessToken: token.access_token })
 * ```
 */
export function clientFromEnv(options: ClientFromEnvOptions): KeywardClient {
  const { mode, env = platformEnv(), ...rest } = options ?? ({} as ClientFromEnvOptions)
  const config = readClientConfig(env, { mode, legacyDeveloperKeys: rest.legacyDeveloperKeys })
  return buildClient({ ...rest, ...config, names: CLIENT_ENV })
}
