import { describe, expect, it } from 'vitest'
import { checkTimeout, QueryTimeoutError } from './driver.js'

describe('QueryTimeoutError', () => {
  it('says how long, and whether the operation may have taken effect', () => {
    const none = new QueryTimeoutError(20)
    expect(none).toMatchObject({
      name: 'QueryTimeoutError',
      message: 'The database did not answer within 20 ms.',
      outcome: 'none',
    })
    expect(new QueryTimeoutError(20, 'unknown')).toMatchObject({
      outcome: 'unknown',
      message:
        'The database did not answer within 20 ms, nor in time to a write already sent: it may have taken effect.',
    })
  })
})

describe('checkTimeout', () => {
  it('takes the default, a positive integer, and refuses anything else by name', () => {
    expect(checkTimeout('x', undefined, 3000)).toBe(3000)
    expect(checkTimeout('x', 250, 3000)).toBe(250)
    for (const bad of [0, -5, 1.5, Number.NaN]) {
      expect(() => checkTimeout('x', bad, 3000)).toThrow(
        `x: option \`queryTimeoutMs\` must be a positive integer, got ${bad}.`,
      )
    }
  })
})
