import { describe, expect, it } from 'vitest'
import { generateKey } from '../key/generate.js'
import { readClientConfig } from './config.js'
import { ClientConfigError } from './error.js'

const developerKey = generateKey()
const projectKey = generateKey()
const baseUrl = 'https://api.acme.test'

const consoleEnv = { SERVICE_BASE_URL: baseUrl, SERVICE_DEVELOPER_KEY: developerKey }
const projectEnv = { ...consoleEnv, SERVICE_PROJECT_KEY: projectKey }

/** Runs `read` and returns the ClientConfigError it throws, failing the test otherwise. */
function configError(read: () => unknown): ClientConfigError {
  try {
    read()
  } catch (error) {
    expect(error).toBeInstanceOf(ClientConfigError)
    return error as ClientConfigError
  }
  throw new Error('expected a ClientConfigError')
}

/** Everything an error exposes, as text: message, properties, cause, stack. */
function everything(error: ClientConfigError): string {
  return [error.message, error.stack, JSON.stringify(error), String(error.cause), error.variable].join('\n')
}

describe('readClientConfig', () => {
  it('reads console mode from the base URL and the developer key', () => {
    expect(readClientConfig(consoleEnv, { mode: 'console' })).toEqual({
      mode: 'console',
      baseUrl,
      developerKey,
    })
  })

  it('reads project mode with both keys', () => {
    expect(readClientConfig(projectEnv, { mode: 'project' })).toEqual({
      mode: 'project',
      baseUrl,
      developerKey,
      projectKey,
    })
  })

  it('ignores SERVICE_PROJECT_KEY in console mode, even when malformed', () => {
    const config = readClientConfig({ ...consoleEnv, SERVICE_PROJECT_KEY: 'nonsense' }, { mode: 'console' })
    expect(config).not.toHaveProperty('projectKey')
  })

  it.each([
    ['https://api.acme.test/', 'https://api.acme.test'],
    ['http://127.0.0.1:3000', 'http://127.0.0.1:3000'],
    ['https://example.com/keyward/', 'https://example.com/keyward'],
    ['https://example.com/a/b//', 'https://example.com/a/b'],
  ])('normalizes the base URL %s to %s', (value, expected) => {
    expect(readClientConfig({ ...consoleEnv, SERVICE_BASE_URL: value }, { mode: 'console' }).baseUrl).toBe(
      expected,
    )
  })

  it.each([
    ['console', 'SERVICE_BASE_URL', 'SERVICE_BASE_URL is not set.'],
    ['console', 'SERVICE_DEVELOPER_KEY', 'SERVICE_DEVELOPER_KEY is not set. Console mode needs it.'],
    ['project', 'SERVICE_DEVELOPER_KEY', 'SERVICE_DEVELOPER_KEY is not set. Project mode needs it.'],
    ['project', 'SERVICE_PROJECT_KEY', 'SERVICE_PROJECT_KEY is not set. Project mode needs it.'],
  ] as const)('in %s mode, a missing %s is named', (mode, variable, message) => {
    const env: Record<string, string | undefined> = { ...projectEnv, [variable]: undefined }
    const error = configError(() => readClientConfig(env, { mode }))
    expect(error.variable).toBe(variable)
    expect(error.problem).toBe('missing')
    expect(error.message.startsWith(message)).toBe(true)
  })

  it('reports an empty variable as missing', () => {
    const error = configError(() =>
      readClientConfig({ ...consoleEnv, SERVICE_DEVELOPER_KEY: '' }, { mode: 'console' }),
    )
    expect([error.variable, error.problem, error.message]).toEqual([
      'SERVICE_DEVELOPER_KEY',
      'missing',
      'SERVICE_DEVELOPER_KEY is empty.',
    ])
  })

  it('checks the variables in order: base URL, developer key, project key', () => {
    expect(configError(() => readClientConfig({}, { mode: 'project' })).variable).toBe('SERVICE_BASE_URL')
    expect(
      configError(() => readClientConfig({ SERVICE_BASE_URL: baseUrl }, { mode: 'project' })).variable,
    ).toBe('SERVICE_DEVELOPER_KEY')
  })

  const malformedKeys = [
    [developerKey.slice(0, -1), 'is malformed: Expected 35 characters, got 34.'],
    [`${developerKey}x`, 'is malformed: Expected 35 characters, got 36.'],
    ['ak_short', 'is malformed: Expected at least 16 characters, got 8.'],
    [`xk_${developerKey.slice(3)}`, 'is malformed: Expected a developer key starting with ak_.'],
    [`${developerKey.slice(0, 20)}!${developerKey.slice(21)}`, 'is malformed: Character 21 is not allowed'],
    [` ${developerKey}`, 'has leading or trailing whitespace; remove it.'],
    [`${developerKey}\n`, 'has leading or trailing whitespace; remove it.'],
    [
      `dk_${developerKey.slice(3)}`,
      'is malformed: Developer keys with the dk_ prefix are no longer accepted.',
    ],
  ]

  it.each(malformedKeys)(
    'says what is wrong with a malformed developer key, without its value (%#)',
    (value, why) => {
      const error = configError(() =>
        readClientConfig({ ...consoleEnv, SERVICE_DEVELOPER_KEY: value }, { mode: 'console' }),
      )
      expect(error.variable).toBe('SERVICE_DEVELOPER_KEY')
      expect(error.problem).toBe('malformed')
      expect(error.message.startsWith(`SERVICE_DEVELOPER_KEY ${why}`)).toBe(true)
      expect(error.cause).toBeUndefined()
      expect(everything(error)).not.toContain(value.trim().slice(3, 16))
    },
  )

  it('accepts a legacy dk_ developer key when the policy accepts it', () => {
    const legacy = `dk_${developerKey.slice(3)}`
    const env = { ...consoleEnv, SERVICE_DEVELOPER_KEY: legacy }
    expect(readClientConfig(env, { mode: 'console', legacyDeveloperKeys: 'accept' }).developerKey).toBe(
      legacy,
    )
  })

  it('refuses a dk_ project key, whatever the legacy policy', () => {
    const env = { ...projectEnv, SERVICE_PROJECT_KEY: `dk_${projectKey.slice(3)}` }
    const error = configError(() => readClientConfig(env, { mode: 'project', legacyDeveloperKeys: 'accept' }))
    expect(error.variable).toBe('SERVICE_PROJECT_KEY')
    expect(error.message).toBe(
      'SERVICE_PROJECT_KEY is malformed: API keys start with ak_; dk_ is the legacy prefix of developer keys.',
    )
  })

  it('refuses the developer key given again as the project key', () => {
    const env = { ...projectEnv, SERVICE_PROJECT_KEY: developerKey }
    const error = configError(() => readClientConfig(env, { mode: 'project' }))
    expect([error.variable, error.problem]).toEqual(['SERVICE_PROJECT_KEY', 'malformed'])
    expect(everything(error)).not.toContain(developerKey.slice(8))
  })

  it.each([
    ['api.acme.test', 'is not a valid URL'],
    ['/api', 'is not a valid URL'],
    ['ftp://api.acme.test', 'must be an http:// or https:// URL.'],
    ['https://user:secret-password@api.acme.test', 'must not contain a user name or password'],
    ['https://api.acme.test/?token=secret-value', 'must not contain a query (?) or a fragment (#).'],
    ['https://api.acme.test/#secret-value', 'must not contain a query (?) or a fragment (#).'],
    ['https://api.acme.test?', 'must not contain a query (?) or a fragment (#).'],
    [' https://api.acme.test', 'has leading or trailing whitespace'],
  ])('refuses the base URL %s, without printing it', (value, why) => {
    const error = configError(() =>
      readClientConfig({ ...consoleEnv, SERVICE_BASE_URL: value }, { mode: 'console' }),
    )
    expect(error.variable).toBe('SERVICE_BASE_URL')
    expect(error.problem).toBe('malformed')
    expect(error.message.startsWith(`SERVICE_BASE_URL ${why}`)).toBe(true)
    expect(everything(error)).not.toContain('api.acme.test')
    expect(everything(error)).not.toContain('secret')
  })

  it('refuses an unknown mode, naming the option', () => {
    expect(() => readClientConfig(consoleEnv, { mode: 'operator' as 'console' })).toThrow(
      "readClientConfig: option `mode` must be 'console' or 'project', got operator.",
    )
  })

  it('types the configuration by mode', () => {
    const project = readClientConfig(projectEnv, { mode: 'project' })
    const projectKeyValue: string = project.projectKey
    expect(projectKeyValue).toBe(projectKey)
    const consoleConfig = readClientConfig(consoleEnv, { mode: 'console' })
    // @ts-expect-error: a console configuration has no project key
    expect(consoleConfig.projectKey).toBeUndefined()
  })
})
