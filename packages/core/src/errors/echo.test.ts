import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { echoValue, MAX_ECHO_LENGTH } from './echo.js'

describe('echoValue', () => {
  it('quotes a short value as it is', () => {
    expect(echoValue('proj-1')).toBe('"proj-1"')
    expect(echoValue('3f2a9c1e-0b7d-4e8a-9c3b-5d6e7f8a9b0c')).toBe('"3f2a9c1e-0b7d-4e8a-9c3b-5d6e7f8a9b0c"')
  })

  it('cuts a long value to 64 characters and says how long it was', () => {
    const echoed = echoValue('x'.repeat(10_000))
    expect(echoed).toBe(`"${'x'.repeat(64)}…" (10000 characters)`)
  })

  it('never shows a value shaped like a key', () => {
    for (const value of [
      `ak_${'Ab9-'.repeat(8)}`,
      `dk_legacy_${'z'.repeat(20)}`,
      `proj ak_short`,
      'AbCdEfGhIjKlMnOpQrStUvWxYz012345',
      'eyJhbGciOiJIUzI1NiJ9.eyJwcm9qZWN0X2lkIjoicDEifQ.sig',
    ]) {
      expect(echoValue(value)).toBe('the value sent (shaped like a key, not shown)')
    }
  })

  it('never answers more than the cut plus its framing, whatever the value', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 500 }), (value) => {
        const echoed = echoValue(value)
        expect(echoed.length).toBeLessThanOrEqual(MAX_ECHO_LENGTH * 6 + 40)
        if (value.length > MAX_ECHO_LENGTH) expect(echoed).not.toContain(value)
      }),
    )
  })
})
