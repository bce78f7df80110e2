import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { isKeywardError } from '../errors/error.js'
import { KEY_ALPHABET } from './constants.js'
import { generateKey } from './generate.js'
import { checkNotKeyShaped, holdsKeyMaterial } from './material.js'

const legacyKey = () => `dk_${generateKey().slice(3, 23)}`

describe('holdsKeyMaterial', () => {
  it('finds a key anywhere in a text, alone, glued to words, or followed by more characters', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 20 }), fc.string({ maxLength: 20 }), (before, after) => {
        const key = generateKey()
        return (
          holdsKeyMaterial(`${before} ${key} ${after}`) &&
          holdsKeyMaterial(`prod-${key}`) &&
          holdsKeyMaterial(`${key}_old`) &&
          holdsKeyMaterial(`name:${key}`)
        )
      }),
      { numRuns: 300 },
    )
  })

  it('finds a legacy dk_ key of 16 characters or more', () => {
    expect(holdsKeyMaterial(legacyKey())).toBe(true)
    expect(holdsKeyMaterial(`old ${legacyKey()}`)).toBe(true)
    expect(holdsKeyMaterial('dk_Ab3xY9zQ1w2e3')).toBe(true)
  })

  it('leaves names alone: prefixes, short runs, words in snake_case, a prefix inside a word', () => {
    for (const name of [
      'ci runner',
      'ak_',
      'ak_billing',
      'dk_migration_plan',
      'ak_billing_service_for_the_eu_west_region',
      'peak_Traffic_Monitor_For_The_EU_West_Region_2026',
      'Key for ak_ rotation',
      `ak_${'x'.repeat(31)}Y`.slice(0, 34),
    ]) {
      expect(holdsKeyMaterial(name), name).toBe(false)
    }
  })

  it('finds 32 random characters of the alphabet after ak_ whatever they are, but for one kind only', () => {
    const mixedRun = fc.string({ unit: fc.constantFrom(...KEY_ALPHABET), minLength: 32, maxLength: 32 })
    fc.assert(
      fc.property(mixedRun, (run) => {
        const kinds = [/[A-Z]/, /[a-z]/, /\d/].filter((kind) => kind.test(run)).length
        return holdsKeyMaterial(`ak_${run}`) === kinds >= 2
      }),
    )
  })
})

describe('checkNotKeyShaped', () => {
  it('refuses with 422 key_shaped_value at the given loc, and never repeats the value', () => {
    const key = generateKey()
    try {
      checkNotKeyShaped(`laptop ${key}`, ['body', 'name'])
      expect.unreachable()
    } catch (error) {
      expect(isKeywardError(error)).toBe(true)
      const { status, type, loc, msg } = error as { status: number; type: string; loc: string[]; msg: string }
      expect({ status, type, loc }).toEqual({ status: 422, type: 'key_shaped_value', loc: ['body', 'name'] })
      expect(msg).not.toContain(key.slice(3, 12))
    }
    expect(() => checkNotKeyShaped('laptop', ['body', 'name'])).not.toThrow()
  })
})
