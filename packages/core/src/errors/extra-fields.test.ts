import { describe, expect, it } from 'vitest'
import { isKeywardError } from './error.js'
import { checkKnownFields, checkOptionNames, nearestName } from './extra-fields.js'

function refusal(run: () => unknown) {
  try {
    run()
  } catch (error) {
    if (isKeywardError(error))
      return { status: error.status, type: error.type, loc: error.loc, msg: error.msg }
    throw error
  }
  throw new Error('no error')
}

describe('nearestName', () => {
  const fields = [
    'name',
    'expires_at',
    'expires_in_days',
    'ip_allowlist',
    'permissions',
    'remaining',
    'refill',
  ]

  it('finds the field a typo meant: a letter missing, added, changed or swapped', () => {
    expect(nearestName('remainig', fields)).toBe('remaining')
    expect(nearestName('ip_alowlist', fields)).toBe('ip_allowlist')
    expect(nearestName('permisions', fields)).toBe('permissions')
    expect(nearestName('nmae', fields)).toBe('name')
    expect(nearestName('expires_in_day', fields)).toBe('expires_in_days')
    expect(nearestName('refil', fields)).toBe('refill')
  })

  it('reads across case and separators: camelCase for snake_case and back', () => {
    expect(nearestName('ipAllowlist', fields)).toBe('ip_allowlist')
    expect(nearestName('expiresInDays', fields)).toBe('expires_in_days')
    expect(nearestName('ip_allowlist', ['ipAllowlist', 'permissions'])).toBe('ipAllowlist')
  })

  it('suggests nothing when no field is near', () => {
    expect(nearestName('colour', fields)).toBeUndefined()
    expect(nearestName('x', fields)).toBeUndefined()
    expect(nearestName('remaining_credits_for_the_month', fields)).toBeUndefined()
    expect(nearestName('name', [])).toBeUndefined()
  })
})

describe('checkKnownFields', () => {
  it('accepts known fields and refuses the first unknown one: 422 extra_forbidden at its place', () => {
    expect(() => checkKnownFields({ name: 'x' }, { name: true }, ['body'])).not.toThrow()
    expect(
      refusal(() => checkKnownFields({ name: 'x', remainig: 5 }, { name: true, remaining: true }, ['body'])),
    ).toEqual({
      status: 422,
      type: 'extra_forbidden',
      loc: ['body', 'remainig'],
      msg: 'Unknown field `remainig`: did you mean `remaining`?',
    })
  })

  it('counts a field named __proto__ or constructor as unknown, not as the prototype', () => {
    const parsed = JSON.parse('{"__proto__":{"remaining":1}}')
    expect(refusal(() => checkKnownFields(parsed, { name: true }, ['body']))).toMatchObject({
      loc: ['body', '__proto__'],
    })
    expect(refusal(() => checkKnownFields({ constructor: 1 }, { name: true }, ['body']))).toMatchObject({
      loc: ['body', 'constructor'],
    })
  })

  it('words a library call: who refuses, the option and its nearest name', () => {
    expect(
      refusal(() => checkOptionNames('issueProjectKey', { remainig: 5 }, { name: true, remaining: true })),
    ).toEqual({
      status: 422,
      type: 'extra_forbidden',
      loc: ['options', 'remainig'],
      msg: 'issueProjectKey: unknown option `remainig`: did you mean `remaining`?',
    })
    expect(() => checkOptionNames('rollKey', undefined, { graceSeconds: true })).not.toThrow()
  })
})
