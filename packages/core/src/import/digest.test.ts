import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { hexOfDigest } from './digest.js'

const bytes = fc.uint8Array({ minLength: 32, maxLength: 32 }).map((b) => Buffer.from(b))

describe('hexOfDigest', () => {
  it('reads any 32 bytes as hex, base64url and base64 (with or without its =) alike', () => {
    fc.assert(
      fc.property(bytes, (digest) => {
        const hex = digest.toString('hex')
        expect(hexOfDigest(hex.toUpperCase(), 'sha256-hex')).toBe(hex)
        expect(hexOfDigest(digest.toString('base64url'), 'sha256-base64url')).toBe(hex)
        expect(hexOfDigest(digest.toString('base64'), 'sha256-base64')).toBe(hex)
        expect(hexOfDigest(digest.toString('base64').slice(0, 43), 'sha256-base64')).toBe(hex)
      }),
    )
  })

  it('refuses any other length or alphabet at `hash`, never repeating the value', () => {
    fc.assert(
      fc.property(bytes, fc.integer({ min: 1, max: 42 }), (digest, cut) => {
        for (const [value, format] of [
          [digest.toString('hex').slice(cut), 'sha256-hex'],
          [digest.toString('base64url').slice(cut), 'sha256-base64url'],
          [
            digest
              .toString('base64')
              .replace(/[A-Za-z]/, '+')
              .replace('=', '-'),
            'sha256-base64',
          ],
        ] as const) {
          expect(() => hexOfDigest(value, format)).toThrow(expect.objectContaining({ loc: ['hash'] }))
          // A value of a few characters may well stand in any sentence ("A" does): a longer one may not.
          if (value.length < 8) continue
          try {
            hexOfDigest(value, format)
          } catch (error) {
            expect((error as Error).message).not.toContain(value)
          }
        }
      }),
    )
    expect(() => hexOfDigest('ab', 'md5')).toThrow(expect.objectContaining({ loc: ['hash_format'] }))
  })
})
