import { describe, expect, it } from 'vitest'
import { KEY_ALPHABET, KEY_LENGTH, KEY_PATTERN, KEY_PREFIX, KEY_RANDOM_LENGTH } from './constants.js'
import { generateKey } from './generate.js'

const SAMPLES = 100_000

describe('generateKey', () => {
  it('makes ak_ plus 32 alphabet characters', () => {
    for (let i = 0; i < 1000; i++) {
      const key = generateKey()
      expect(key).toHaveLength(KEY_LENGTH)
      expect(key.startsWith(KEY_PREFIX)).toBe(true)
      expect(KEY_PATTERN.test(key)).toBe(true)
    }
  })

  it(`gives ${SAMPLES.toLocaleString('en')} distinct keys whose characters are uniform at every position`, () => {
    const keys = new Set<string>()
    const counts = Array.from({ length: KEY_RANDOM_LENGTH }, () => new Array<number>(64).fill(0))
    const index = new Map([...KEY_ALPHABET].map((c, i) => [c, i]))
    for (let n = 0; n < SAMPLES; n++) {
      const key = generateKey()
      keys.add(key)
      for (let p = 0; p < KEY_RANDOM_LENGTH; p++) counts[p]![index.get(key[KEY_PREFIX.length + p]!)!]!++
    }
    expect(keys.size).toBe(SAMPLES)
    // Chi-square with 63 degrees of freedom per position. Its 99.999th percentile is about 120;
    // a generator with modulo bias or a missing symbol lands in the hundreds or thousands.
    const expected = SAMPLES / 64
    const chiSquares = counts.map((row) =>
      row.reduce((sum, observed) => sum + (observed - expected) ** 2 / expected, 0),
    )
    for (const chi of chiSquares) expect(chi).toBeLessThan(120)
    // Every symbol occurs at every position.
    for (const row of counts) expect(Math.min(...row)).toBeGreaterThan(0)
  })
})
