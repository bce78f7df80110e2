import { keyFormatProblem, type LegacyDeveloperKeyPolicy } from '../key/format.js'
import { ClientConfigError } from './error.js'

/** The settings of a Keyward client: where the server is, and the keys it sends. */
export type ClientSetting = 'baseUrl' | 'developerKey' | 'projectKey'

/**
 * The environment variable of each client setting, as the specification names them.
 *
 * @example
 * ```ts
 * CLIENT_ENV.developerKey // 'SERVICE_DEVELOPER_KEY'
 * ```
 */
export const CLIENT_ENV: Readonly<Record<ClientSetting, string>> = {
  baseUrl: 'SERVICE_BASE_URL',
  developerKey: 'SERVICE_DEVELOPER_KEY',
  projectKey: 'SERVICE_PROJECT_KEY',
}

/** Options of {@link checkClientSetting}. */
export interface CheckClientSettingOptions {
  /** The name to report in errors. Default: the setting's environment variable ({@link CLIENT_ENV}). */
  readonly name?: string
  /** Policy for legacy `dk_` developer keys. Default `reject`, as on the server. */
  readonly legacyDeveloperKeys?: LegacyDeveloperKeyPolicy
  /** A sentence appended to the "is not set" message, e.g. which mode needs the setting. */
  readonly missingHint?: string
}

// The platform's WHATWG URL, reached without a global declaration (core compiles with no types).
interface ParsedUrl {
  readonly protocol: string
  readonly username: string
  readonly password: string
  readonly search: string
  readonly hash: string
  readonly origin: string
  readonly pathname: string
}
const PlatformUrl = (globalThis as unknown as { URL: new (input: string) => ParsedUrl }).URL

function baseUrlProblem(value: string): string | null {
  let url: ParsedUrl
  try {
    url = new PlatformUrl(value)
  } catch {
    return 'is not a valid URL: expected an absolute http:// or https:// URL such as https://keys.example.com.'
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    return 'must be an http:// or https:// URL.'
  }
  if (url.username !== '' || url.password !== '') {
    return 'must not contain a user name or password: keys are sent in headers.'
  }
  if (url.search !== '' || url.hash !== '' || value.includes('?') || value.includes('#')) {
    return 'must not contain a query (?) or a fragment (#).'
  }
  return null
}

/** The base URL in the form the client joins paths to: no trailing slash. */
function normalizeBaseUrl(value: string): string {
  const url = new PlatformUrl(value)
  return url.origin + url.pathname.replace(/\/+$/, '')
}

/**
 * Checks one client setting and returns its value, normalized (a base URL loses its trailing
 * slash). `baseUrl` must be an absolute http(s) URL without credentials, query or fragment;
 * `developerKey` and `projectKey` must pass {@link checkKeyFormat} for their kind. Throws a
 * {@link ClientConfigError} that names the setting and never holds its value.
 *
 * @example
 * ```ts
 * checkClientSetting('baseUrl', 'https://keys.example.com/') // 'https://keys.example.com'
 * checkClientSetting('developerKey', options.developerKey, { name: 'developerKey' })
 * ```
 */
export function checkClientSetting(
  setting: ClientSetting,
  value: unknown,
  options: CheckClientSettingOptions = {},
): string {
  const name = options.name ?? CLIENT_ENV[setting]
  if (value === undefined || value === null) {
    const hint = options.missingHint ? ` ${options.missingHint}` : ''
    throw new ClientConfigError(name, 'missing', `${name} is not set.${hint}`)
  }
  const malformed = (why: string) => new ClientConfigError(name, 'malformed', `${name} ${why}`)
  if (typeof value !== 'string') throw malformed('must be a string.')
  if (value === '') throw new ClientConfigError(name, 'missing', `${name} is empty.`)
  if (value.trim() !== value) throw malformed('has leading or trailing whitespace; remove it.')
  if (setting === 'baseUrl') {
    const problem = baseUrlProblem(value)
    if (problem) throw malformed(problem)
    return normalizeBaseUrl(value)
  }
  const kind = setting === 'developerKey' ? 'developer' : 'project'
  const problem = keyFormatProblem(value, kind, options.legacyDeveloperKeys ?? 'reject')
  // The format check's messages never hold the key, so they can be passed on as they are.
  if (problem) throw malformed(`is malformed: ${problem.msg}`)
  return value
}
