import { describe, expect, it } from 'vitest'
import { isKeywardError } from '../errors/error.js'
import {
  ChangeCreditsBodySchema,
  CreateApiKeyBodySchema,
  CreateKeyBodySchema,
  CreateProjectBodySchema,
  GenerationBodySchema,
  RollKeyBodySchema,
} from './schemas.js'
import { checkBody } from './validate.js'

function problem(run: () => unknown) {
  try {
    run()
  } catch (error) {
    if (isKeywardError(error)) return { type: error.type, loc: error.loc, msg: error.msg }
    throw error
  }
  throw new Error('no error')
}

describe('checkBody', () => {
  it('returns a valid body as it is', () => {
    const body = { name: 'ci', expires_in_days: 30 }
    expect(checkBody(CreateKeyBodySchema, body)).toBe(body)
    expect(checkBody(CreateKeyBodySchema, undefined)).toEqual({})
    expect(checkBody(CreateKeyBodySchema, { name: null })).toEqual({ name: null })
  })

  it('refuses a field the schema does not name, first, with the nearest known one', () => {
    const body = { name: 'x', remainig: 5, ip_alowlist: ['10.0.0.0/8'] }
    expect(problem(() => checkBody(CreateApiKeyBodySchema, body))).toEqual({
      type: 'extra_forbidden',
      loc: ['body', 'remainig'],
      msg: 'Unknown field `remainig`: did you mean `remaining`?',
    })
    // Before a missing required field: the typo explains it.
    expect(problem(() => checkBody(CreateProjectBodySchema, { nmae: 'Shop' }))).toMatchObject({
      type: 'extra_forbidden',
      loc: ['body', 'nmae'],
    })
    expect(problem(() => checkBody(RollKeyBodySchema, { colour: 1 }))).toEqual({
      type: 'extra_forbidden',
      loc: ['body', 'colour'],
      msg: 'Unknown field `colour`: expected one of `grace_seconds`.',
    })
  })

  it('refuses unknown fields of a nested object at their path, and leaves metadata free-form', () => {
    const refill = { amount: 5, interval: 'monthly', dya: 3 }
    expect(problem(() => checkBody(ChangeCreditsBodySchema, { op: 'set', amount: 5, refill }))).toEqual({
      type: 'extra_forbidden',
      loc: ['body', 'refill', 'dya'],
      msg: 'Unknown field `dya`: did you mean `day`?',
    })
    const metadata = { remainig: 1, nested: { anything: true } }
    expect(checkBody(CreateApiKeyBodySchema, { metadata }).metadata).toBe(metadata)
    expect(checkBody(GenerationBodySchema, { any: 1 })).toEqual({ any: 1 })
  })

  it('never repeats a field name shaped like a key, and cuts a long one', () => {
    const key = `ak_${'Zq9x'.repeat(8)}`
    const refused = problem(() => checkBody(CreateKeyBodySchema, { [key]: 1 }))
    expect(refused).toMatchObject({ type: 'extra_forbidden', loc: ['body'] })
    expect(refused.msg).not.toContain('Zq9x')
    const long = problem(() => checkBody(CreateKeyBodySchema, { ['f'.repeat(1000)]: 1 }))
    expect(long.loc[1]).toBe(`${'f'.repeat(64)}…`)
    expect(long.msg.length).toBeLessThan(200)
  })

  it('answers a missing required field or body with `missing`', () => {
    expect(problem(() => checkBody(CreateProjectBodySchema, {}))).toMatchObject({
      type: 'missing',
      loc: ['body', 'name'],
    })
    expect(problem(() => checkBody(CreateProjectBodySchema, undefined))).toMatchObject({
      type: 'missing',
      loc: ['body'],
    })
  })

  it('checks names by code points and control characters, as checkName does', () => {
    expect(checkBody(CreateKeyBodySchema, { name: '😀'.repeat(100) }).name).toHaveLength(200)
    expect(problem(() => checkBody(CreateKeyBodySchema, { name: 'x'.repeat(101) }))).toMatchObject({
      type: 'string_too_long',
    })
    expect(problem(() => checkBody(CreateKeyBodySchema, { name: 'a\u0000' }))).toMatchObject({
      type: 'string_pattern_mismatch',
    })
    expect(problem(() => checkBody(CreateProjectBodySchema, { name: null }))).toMatchObject({
      type: 'string_type',
      loc: ['body', 'name'],
    })
  })

  it('answers integers, ranges and date-times in the specification words', () => {
    expect(problem(() => checkBody(CreateKeyBodySchema, { expires_in_days: 'x' }))).toMatchObject({
      type: 'int_type',
      loc: ['body', 'expires_in_days'],
    })
    expect(problem(() => checkBody(CreateKeyBodySchema, { expires_in_days: 1.5 })).type).toBe('int_type')
    expect(problem(() => checkBody(CreateKeyBodySchema, { expires_in_days: 0 }))).toMatchObject({
      type: 'greater_than_equal',
      msg: 'Input should be greater than or equal to 1.',
    })
    expect(problem(() => checkBody(CreateKeyBodySchema, { expires_in_days: 3651 })).type).toBe(
      'less_than_equal',
    )
    expect(problem(() => checkBody(RollKeyBodySchema, { grace_seconds: -1 })).type).toBe('greater_than_equal')
    expect(checkBody(CreateKeyBodySchema, { expires_at: '2030-01-01T00:00:00Z' }).expires_at).toBeDefined()
    expect(problem(() => checkBody(CreateKeyBodySchema, { expires_at: 'tomorrow' }))).toMatchObject({
      type: 'datetime_parsing',
      loc: ['body', 'expires_at'],
    })
    expect(problem(() => checkBody(CreateKeyBodySchema, { expires_at: 5 })).type).toBe('string_type')
    // A date is ISO 8601 too, but without an offset it names no instant: the message says so.
    for (const value of ['2027-01-31', '2027-01-31T00:00:00', '2027-02-30T00:00:00Z']) {
      expect(problem(() => checkBody(CreateKeyBodySchema, { expires_at: value })).msg).toBe(
        'Input should be an ISO 8601 date and time with an offset, e.g. 2027-01-31T00:00:00Z.',
      )
    }
  })
})
