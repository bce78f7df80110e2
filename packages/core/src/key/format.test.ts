import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { ErrorType } from '../errors/types.js'
import { KEY_ALPHABET, KEY_LENGTH, KEY_SCAN_PATTERN } from './constants.js'
import { checkKeyFormat, type KeyKind } from './format.js'
import { generateKey } from './generate.js'

const kinds: KeyKind[] = ['developer', 'project']
const alphabetChar = fc.constantFrom(...KEY_ALPHABET)
const randomPart = (length: number) => fc.string({ unit: alphabetChar, minLength: length, maxLength: length })
const validKey = randomPart(32).map((s) => `ak_${s}`)

function typeOf(value: string | null | undefined, kind: KeyKind, legacyDeveloperKeys?: 'reject' | 'accept') {
  try {
    checkKeyFormat(value, kind, legacyDeveloperKeys ? { legacyDeveloperKeys } : {})
    return 'ok'
  } catch (error) {
    return (error as { type: string }).type
  }
}

function msgOf(value: string, kind: KeyKind): string {
  try {
    checkKeyFormat(value, kind)
  } catch (error) {
    return (error as { msg: string }).msg
  }
  throw new Error('expected a failure')
}

describe('checkKeyFormat', () => {
  it('accepts every generated key for both kinds', () => {
    for (let i = 0; i < 200; i++) for (const kind of kinds) expect(typeOf(generateKey(), kind)).toBe('ok')
    fc.assert(fc.property(validKey, (key) => kinds.every((kind) => typeOf(key, kind) === 'ok')))
  })

  it('answers key_missing for nothing at all', () => {
    for (const kind of kinds)
      for (const v of [undefined, null, '']) expect(typeOf(v, kind)).toBe(ErrorType.keyMissing)
  })

  it('says exactly what is wrong with the length', () => {
    const key = generateKey()
    expect(msgOf(key.slice(0, 34), 'project')).toBe('Expected 35 characters, got 34.')
    expect(msgOf(`${key}x`, 'project')).toBe('Expected 35 characters, got 36.')
    expect(msgOf(key.slice(0, 15), 'project')).toBe('Expected at least 16 characters, got 15.')
    expect(msgOf(`ak_${'a'.repeat(9997)}`, 'developer')).toBe('Expected 35 characters, got 10000.')
  })

  it('rejects any other length, with the minimum of 16 checked first', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 200 }).filter((n) => n !== 32),
        fc.constantFrom(...kinds),
        (n, kind) => {
          const value = `ak_${'A'.repeat(n)}`
          expect(typeOf(value, kind)).toBe(ErrorType.keyMalformed)
          const msg = msgOf(value, kind)
          expect(msg).toBe(
            value.length < 16
              ? `Expected at least 16 characters, got ${value.length}.`
              : `Expected 35 characters, got ${value.length}.`,
          )
        },
      ),
    )
  })

  it('rejects a wrong prefix before looking at the length', () => {
    fc.assert(
      fc.property(
        fc.string({ minLength: 3, maxLength: 3 }).filter((p) => p !== 'ak_' && p !== 'dk_'),
        randomPart(32),
        fc.constantFrom(...kinds),
        (prefix, rest, kind) => {
          expect(typeOf(prefix + rest, kind)).toBe(ErrorType.keyMalformed)
          expect(msgOf(prefix + rest, kind)).toMatch(/starting with ak_/)
        },
      ),
    )
  })

  it('rejects a character outside the alphabet at any position, naming the position', () => {
    const outside = fc.oneof(
      fc.constantFrom(' ', '\t', '\n', '\0', '+', '/', '=', '.', '~', 'é', 'ß', '中', '\u00a0', '\u200b'),
      fc
        .string({ minLength: 1, maxLength: 1, unit: 'grapheme' })
        .filter((c) => !/^[A-Za-z0-9_-]$/.test(c) && c.length === 1),
    )
    fc.assert(
      fc.property(
        validKey,
        outside,
        fc.integer({ min: 3, max: 34 }),
        fc.constantFrom(...kinds),
        (key, bad, at, kind) => {
          const mutated = key.slice(0, at) + bad + key.slice(at + 1)
          expect(mutated).toHaveLength(KEY_LENGTH)
          expect(typeOf(mutated, kind)).toBe(ErrorType.keyMalformed)
          expect(msgOf(mutated, kind)).toBe(
            `Character ${at + 1} is not allowed: keys use only A-Z, a-z, 0-9, '-' and '_'.`,
          )
        },
      ),
    )
  })

  it('rejects leading and trailing whitespace', () => {
    const key = generateKey()
    for (const v of [` ${key}`, `${key} `, `\t${key}`, `${key}\n`, ` ${key.slice(1)}`]) {
      expect(typeOf(v, 'project')).toBe(ErrorType.keyMalformed)
    }
  })

  it('treats legacy dk_ developer keys by policy, and never as project keys', () => {
    const legacy = `dk_${'a'.repeat(20)}`
    expect(typeOf(legacy, 'developer')).toBe(ErrorType.keyLegacyPrefix)
    expect(typeOf(legacy, 'developer', 'reject')).toBe(ErrorType.keyLegacyPrefix)
    expect(typeOf(legacy, 'developer', 'accept')).toBe('ok')
    expect(typeOf(`dk_${'a'.repeat(12)}`, 'developer', 'accept')).toBe(ErrorType.keyMalformed)
    expect(typeOf(legacy, 'project', 'accept')).toBe(ErrorType.keyMalformed)
  })

  it('never echoes more than the first 8 characters of what it was given', () => {
    fc.assert(
      fc.property(fc.string({ minLength: 9, maxLength: 60 }), fc.constantFrom(...kinds), (value, kind) => {
        try {
          checkKeyFormat(value, kind)
        } catch (error) {
          const msg = (error as { msg: string }).msg
          // No 9-character run of the input may appear in the message.
          for (let i = 0; i + 9 <= value.length; i++) {
            const run = value.slice(i, i + 9)
            if (/^[A-Za-z0-9_-]+$/.test(run)) expect(msg).not.toContain(run)
          }
        }
      }),
    )
  })
})

describe('KEY_SCAN_PATTERN', () => {
  it('finds keys in text and ignores longer or shorter runs', () => {
    const a = generateKey()
    const b = generateKey()
    const text = `token=${a}; other "${b}" ${a}x ak_short x${b}`
    expect([...text.matchAll(KEY_SCAN_PATTERN)].map((m) => m[0])).toEqual([a, b])
  })
})
