import { describe, expect, it } from 'vitest'
import { checkTimeout, QueryTimeoutError, withTimeout } from './driver.js'

describe('withTimeout', () => {
  it('passes a value or an error through when they come in time', async () => {
    await expect(withTimeout(Promise.resolve(7), 50)).resolves.toBe(7)
    const failure = new Error('refused')
    await expect(withTimeout(Promise.reject(failure), 50)).rejects.toBe(failure)
  })

  it('rejects with QueryTimeoutError when the time passes, and hands what comes late to onLate', async () => {
    let late: unknown
    let arrive!: (value: string) => void
    const slow = new Promise<string>((resolve) => {
      arrive = resolve
    })
    const error = await withTimeout(slow, 20, (value) => {
      late = value
    }).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(QueryTimeoutError)
    expect((error as Error).message).toBe('The database did not answer within 20 ms.')
    arrive('connection')
    await slow
    expect(late).toBe('connection')
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
