import { ClientConfigError, generateKey } from '@keyward/core'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { clientFromEnv } from './env.js'

const developerKey = generateKey()
const projectKey = generateKey()

function recordingFetch() {
  const calls: { url: string; headers: Record<string, string> }[] = []
  const fetch = async (url: string, init: RequestInit) => {
    calls.push({ url, headers: init.headers as Record<string, string> })
    return new Response(JSON.stringify({ id: 'p1', deleted: true }), { status: 200 })
  }
  return { calls, fetch }
}

function configError(build: () => unknown): ClientConfigError {
  try {
    build()
  } catch (error) {
    expect(error).toBeInstanceOf(ClientConfigError)
    return error as ClientConfigError
  }
  throw new Error('expected a ClientConfigError')
}

afterEach(() => {
  vi.unstubAllEnvs()
})

describe('clientFromEnv', () => {
  it('in project mode sends both keys from the environment', async () => {
    const { calls, fetch } = recordingFetch()
    const env = {
      SERVICE_BASE_URL: 'https://keys.example.com/',
      SERVICE_DEVELOPER_KEY: developerKey,
      SERVICE_PROJECT_KEY: projectKey,
    }
    const client = clientFromEnv({ mode: 'project', env, fetch })
    expect(client.baseUrl).toBe('https://keys.example.com')
    await client.projects.delete('p1')
    expect(calls[0]!.url).toBe('https://keys.example.com/api/v1/projects/p1')
    expect(calls[0]!.headers['x-developer-key']).toBe(developerKey)
    expect(calls[0]!.headers['x-api-key']).toBe(projectKey)
  })

  it('in console mode needs no project key, and names the variable when a call needs one', async () => {
    const { calls, fetch } = recordingFetch()
    const env = { SERVICE_BASE_URL: 'https://keys.example.com', SERVICE_DEVELOPER_KEY: developerKey }
    const client = clientFromEnv({ mode: 'console', env, fetch })
    const error = await client.projects.delete('p1').then(
      () => null,
      (e: unknown) => e as ClientConfigError,
    )
    expect(error).toBeInstanceOf(ClientConfigError)
    expect(error!.variable).toBe('SERVICE_PROJECT_KEY')
    expect(error!.message).toBe(
      "SERVICE_PROJECT_KEY is not set. projects.delete needs the project's API key.",
    )
    expect(calls).toHaveLength(0)
  })

  it('names a missing or malformed variable and never prints its value', () => {
    const missing = configError(() =>
      clientFromEnv({
        mode: 'project',
        env: { SERVICE_BASE_URL: 'http://127.0.0.1:3000', SERVICE_DEVELOPER_KEY: developerKey },
      }),
    )
    expect([missing.variable, missing.problem]).toEqual(['SERVICE_PROJECT_KEY', 'missing'])
    const bad = `${projectKey.slice(0, 20)}*${projectKey.slice(21)}`
    const malformed = configError(() =>
      clientFromEnv({
        mode: 'project',
        env: {
          SERVICE_BASE_URL: 'http://127.0.0.1:3000',
          SERVICE_DEVELOPER_KEY: developerKey,
          SERVICE_PROJECT_KEY: bad,
        },
      }),
    )
    expect(malformed.variable).toBe('SERVICE_PROJECT_KEY')
    expect(malformed.message).toBe(
      "SERVICE_PROJECT_KEY is malformed: Character 21 is not allowed: keys use only A-Z, a-z, 0-9, '-' and '_'.",
    )
    expect(`${malformed.message}${malformed.stack}${JSON.stringify(malformed)}`).not.toContain(
      bad.slice(3, 20),
    )
  })

  it('reads process.env by default', async () => {
    vi.stubEnv('SERVICE_BASE_URL', 'https://from-process.example.com')
    vi.stubEnv('SERVICE_DEVELOPER_KEY', developerKey)
    const { calls, fetch } = recordingFetch()
    const client = clientFromEnv({ mode: 'console', fetch })
    await client.developerKeys.list()
    expect(calls[0]!.url).toBe('https://from-process.example.com/api/v1/auth/developer-keys')
    expect(calls[0]!.headers['x-developer-key']).toBe(developerKey)
  })
})
