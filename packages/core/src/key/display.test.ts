import { describe, expect, it } from 'vitest'
import { displayKey, keyPrefix } from './display.js'
import { generateKey } from './generate.js'

describe('keyPrefix and displayKey', () => {
  it('keeps the first 8 characters: ak_ and 5 random ones', () => {
    const key = generateKey()
    expect(keyPrefix(key)).toBe(key.slice(0, 8))
    expect(keyPrefix(key)).toHaveLength(8)
  })

  it('displays a key and its prefix the same way, as 8 characters and an ellipsis', () => {
    const key = generateKey()
    expect(displayKey(key)).toBe(`${key.slice(0, 8)}...`)
    expect(displayKey(keyPrefix(key))).toBe(displayKey(key))
    expect(displayKey('ak_Ab3xY')).toBe('ak_Ab3xY...')
  })
})
