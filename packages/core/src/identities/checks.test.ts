import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { isKeywardError } from '../errors/error.js'
import { generateKey } from '../key/generate.js'
import { checkExternalId, checkIdentityChange, checkNewIdentity, checkRateLimits } from './checks.js'

function refusal(run: () => unknown) {
  try {
    run()
  } catch (error) {
    if (!isKeywardError(error)) throw error
    return { type: error.type, loc: error.loc, msg: error.msg }
  }
  throw new Error('accepted')
}

describe('checkNewIdentity', () => {
  it('takes an external id with metadata, named limits and a credit pool', () => {
    expect(
      checkNewIdentity({
        external_id: 'customer_acme',
        metadata: { plan: 'pro' },
        ratelimits: [{ name: 'requests', limit: 10, duration: 1000 }],
        remaining: 100,
        refill: { amount: 100, interval: 'daily' },
      }),
    ).toEqual({
      externalId: 'customer_acme',
      metadata: { plan: 'pro' },
      ratelimits: [{ name: 'requests', limit: 10, duration: 1000 }],
      remaining: 100,
      refill: { amount: 100, interval: 'daily' },
    })
    expect(checkNewIdentity({ external_id: 'x' })).toEqual({
      externalId: 'x',
      metadata: null,
      ratelimits: [],
      remaining: null,
      refill: null,
    })
  })

  it('refuses a misspelt field, naming the nearest, at any depth', () => {
    expect(refusal(() => checkNewIdentity({ external_id: 'x', remainig: 5 }))).toMatchObject({
      type: 'extra_forbidden',
      loc: ['body', 'remainig'],
      msg: 'Unknown field `remainig`: did you mean `remaining`?',
    })
    const ratelimits = [{ name: 'r', limit: 1, duraton: 1000 }]
    expect(refusal(() => checkNewIdentity({ external_id: 'x', ratelimits }))).toMatchObject({
      type: 'extra_forbidden',
      loc: ['body', 'ratelimits', '0', 'duraton'],
    })
  })

  it('needs an external id of 1 to 255 characters, never shaped like a key', () => {
    expect(refusal(() => checkNewIdentity({}))).toMatchObject({
      type: 'missing',
      loc: ['body', 'external_id'],
    })
    expect(refusal(() => checkNewIdentity({ external_id: '' }))).toMatchObject({ type: 'string_too_short' })
    expect(checkExternalId('é'.repeat(255), ['x'])).toHaveLength(255)
    expect(refusal(() => checkExternalId('é'.repeat(256), ['x']))).toMatchObject({ type: 'string_too_long' })
    const key = generateKey()
    const refused = refusal(() => checkNewIdentity({ external_id: `user ${key}` }))
    expect(refused).toMatchObject({ type: 'key_shaped_value', loc: ['body', 'external_id'] })
    expect(refused.msg).not.toContain(key.slice(3, 12))
  })

  it('keeps metadata to 4 KB and a refill to a pool that has a limit', () => {
    expect(
      refusal(() => checkNewIdentity({ external_id: 'x', metadata: { a: 'x'.repeat(5000) } })),
    ).toMatchObject({
      type: 'too_long',
      loc: ['body', 'metadata'],
    })
    expect(
      refusal(() => checkNewIdentity({ external_id: 'x', refill: { amount: 5, interval: 'daily' } })),
    ).toMatchObject({ type: 'value_error', loc: ['body', 'refill'] })
  })
})

describe('checkRateLimits', () => {
  const limit = (name: string, extra = {}) => ({ name, limit: 10, duration: 60_000, ...extra })

  it('takes at most 5 limits with distinct names', () => {
    expect(
      checkRateLimits(
        ['a', 'b', 'c', 'd', 'e'].map((n) => limit(n)),
        ['l'],
      ),
    ).toHaveLength(5)
    expect(
      refusal(() =>
        checkRateLimits(
          ['a', 'b', 'c', 'd', 'e', 'f'].map((n) => limit(n)),
          ['l'],
        ),
      ),
    ).toMatchObject({
      type: 'too_long',
      loc: ['l'],
    })
    expect(refusal(() => checkRateLimits([limit('a'), limit('a')], ['l']))).toMatchObject({
      type: 'value_error',
      loc: ['l', '1', 'name'],
    })
  })

  it('takes a duration of whole seconds from 1 s to 1 day, in milliseconds', () => {
    expect(
      checkRateLimits([limit('a', { duration: 1000 }), limit('b', { duration: 86_400_000 })], ['l']),
    ).toHaveLength(2)
    for (const [duration, type] of [
      [999, 'greater_than_equal'],
      [86_401_000, 'less_than_equal'],
      [1500, 'value_error'],
      [1.5, 'int_type'],
      ['60s', 'int_type'],
    ] as const) {
      expect(refusal(() => checkRateLimits([limit('a', { duration })], ['l']))).toMatchObject({
        type,
        loc: ['l', '0', 'duration'],
      })
    }
  })

  it('accepts exactly the well-formed limits (property)', () => {
    const name = fc.stringMatching(/^[A-Za-z0-9][A-Za-z0-9_.:-]{0,63}$/)
    fc.assert(
      fc.property(
        name,
        fc.integer({ min: 1, max: 1_000_000_000 }),
        fc.integer({ min: 1, max: 86_400 }),
        (n, l, seconds) => {
          const given = [{ name: n, limit: l, duration: seconds * 1000 }]
          expect(checkRateLimits(given, ['l'])).toEqual(given)
        },
      ),
    )
    fc.assert(
      fc.property(fc.string(), (n) => {
        fc.pre(!/^[A-Za-z0-9][A-Za-z0-9_.:-]{0,63}$/.test(n))
        expect(refusal(() => checkRateLimits([limit(n)], ['l']))).toMatchObject({
          type: 'string_pattern_mismatch',
        })
      }),
    )
  })
})

describe('checkIdentityChange', () => {
  it('changes only what is given; null clears', () => {
    expect(checkIdentityChange({ metadata: null })).toEqual({ metadata: null })
    expect(checkIdentityChange({ ratelimits: [] })).toEqual({ ratelimits: [] })
    expect(checkIdentityChange({})).toEqual({})
  })

  it('refuses to change the external id or the credits, in plain words', () => {
    expect(refusal(() => checkIdentityChange({ external_id: 'other' }))).toMatchObject({
      type: 'value_error',
      loc: ['body', 'external_id'],
    })
    expect(refusal(() => checkIdentityChange({ remaining: 5 }))).toMatchObject({
      type: 'value_error',
      loc: ['body', 'remaining'],
    })
  })
})
