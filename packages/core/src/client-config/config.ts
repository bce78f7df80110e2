import type { LegacyDeveloperKeyPolicy } from '../key/format.js'
import { ClientConfigError } from './error.js'
import { CLIENT_ENV, checkClientSetting } from './setting.js'

/**
 * How a client talks to the service: `console` mode with a developer key, or `project` mode
 * with a developer key and a project's API key.
 */
export type ClientMode = 'console' | 'project'

/** A checked console-mode configuration. */
export interface ConsoleClientConfig {
  readonly mode: 'console'
  /** The server's base URL, without a trailing slash. */
  readonly baseUrl: string
  /** The developer key, sent as `X-Developer-Key`. */
  readonly developerKey: string
}

/** A checked project-mode configuration. */
export interface ProjectClientConfig {
  readonly mode: 'project'
  /** The server's base URL, without a trailing slash. */
  readonly baseUrl: string
  /** The developer key, sent as `X-Developer-Key`. */
  readonly developerKey: string
  /** The project's API key, sent as `X-API-Key`. */
  readonly projectKey: string
}

/** A checked client configuration of either mode. */
export type ClientConfig = ConsoleClientConfig | ProjectClientConfig

/** The configuration that a mode yields. */
export type ClientConfigFor<M extends ClientMode> = M extends 'project'
  ? ProjectClientConfig
  : ConsoleClientConfig

/** The environment to read, e.g. `process.env`. Only the `SERVICE_*` variables are read. */
export type ClientEnv = Readonly<Record<string, string | undefined>>

/** Options of {@link readClientConfig}. */
export interface ReadClientConfigOptions<M extends ClientMode = ClientMode> {
  /** `console` needs `SERVICE_DEVELOPER_KEY`; `project` needs it and `SERVICE_PROJECT_KEY`. */
  readonly mode: M
  /** Policy for a legacy `dk_` developer key. Default `reject`, as on the server. */
  readonly legacyDeveloperKeys?: LegacyDeveloperKeyPolicy
}

const MODES: readonly ClientMode[] = ['console', 'project']

/**
 * Reads and checks a client's configuration from environment variables: `SERVICE_BASE_URL`
 * (an absolute http or https URL), `SERVICE_DEVELOPER_KEY` (both modes) and
 * `SERVICE_PROJECT_KEY` (project mode; ignored in console mode). The first missing or
 * malformed variable throws a {@link ClientConfigError} that names it and never holds its
 * value. A pure function: pass the environment in (core never reads `process`).
 *
 * @example
 * ```ts
 * const config = readClientConfig(process.env, { mode: 'project' })
 * config.projectKey // checked: a well-formed API key
 * ```
 */
export function readClientConfig<M extends ClientMode>(
  env: ClientEnv,
  options: ReadClientConfigOptions<M>,
): ClientConfigFor<M> {
  const mode = options?.mode
  if (!MODES.includes(mode)) {
    throw new TypeError(
      `readClientConfig: option \`mode\` must be 'console' or 'project', got ${String(mode)}.`,
    )
  }
  if (typeof env !== 'object' || env === null) {
    throw new TypeError('readClientConfig: the environment must be an object such as process.env.')
  }
  const modeHint = `${mode === 'console' ? 'Console' : 'Project'} mode needs it.`
  const baseUrl = checkClientSetting('baseUrl', env[CLIENT_ENV.baseUrl], {
    missingHint: 'Set it to the Keyward server, e.g. https://keys.example.com.',
  })
  const developerKey = checkClientSetting('developerKey', env[CLIENT_ENV.developerKey], {
    missingHint: `${modeHint} Set it to your developer key (ak_...).`,
    legacyDeveloperKeys: options.legacyDeveloperKeys,
  })
  if (mode === 'console') return { mode, baseUrl, developerKey } as ClientConfigFor<M>
  const projectKey = checkClientSetting('projectKey', env[CLIENT_ENV.projectKey], {
    missingHint: `${modeHint} Set it to the project's API key (ak_...).`,
  })
  if (projectKey === developerKey) {
    throw new ClientConfigError(
      CLIENT_ENV.projectKey,
      'malformed',
      `${CLIENT_ENV.projectKey} holds the same key as ${CLIENT_ENV.developerKey}: set it to the project's API key.`,
    )
  }
  return { mode, baseUrl, developerKey, projectKey } as ClientConfigFor<M>
}
