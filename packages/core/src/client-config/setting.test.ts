import { describe, expect, it } from 'vitest'
import { generateKey } from '../key/generate.js'
import { ClientConfigError } from './error.js'
import { checkClientSetting } from './setting.js'

describe('checkClientSetting', () => {
  it('names the option it is given instead of the environment variable', () => {
    const key = generateKey().slice(0, 30)
    let caught: unknown
    try {
      checkClientSetting('projectKey', key, { name: 'projectKey' })
    } catch (error) {
      caught = error
    }
    expect(caught).toBeInstanceOf(ClientConfigError)
    expect((caught as ClientConfigError).variable).toBe('projectKey')
    expect((caught as ClientConfigError).message).toBe(
      'projectKey is malformed: Expected 35 characters, got 30.',
    )
  })

  it('refuses a value that is not a string, without printing it', () => {
    expect(() => checkClientSetting('baseUrl', 42, { name: 'baseUrl' })).toThrow('baseUrl must be a string.')
  })

  it('reports null as missing', () => {
    expect(() => checkClientSetting('developerKey', null)).toThrow('SERVICE_DEVELOPER_KEY is not set.')
  })

  it('returns a well-formed key unchanged', () => {
    const key = generateKey()
    expect(checkClientSetting('developerKey', key)).toBe(key)
  })
})
