import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { digestImplementation, hashKey, sha256HexNode, sha256HexWeb } from './digest.js'

describe('hashKey', () => {
  it('is SHA-256 as lower-case hex', async () => {
    expect(await hashKey('abc')).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad')
    expect(await sha256HexWeb('')).toBe('e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855')
  })

  it('takes the node:crypto path on Node', () => {
    expect(digestImplementation).toBe('node')
    expect(sha256HexNode).toBeTypeOf('function')
  })

  it('gives the same digest through node:crypto and Web Crypto', async () => {
    await fc.assert(
      fc.asyncProperty(fc.string({ unit: 'binary', maxLength: 80 }), async (input) => {
        expect(sha256HexNode!(input)).toBe(await sha256HexWeb(input))
      }),
    )
  })
})
