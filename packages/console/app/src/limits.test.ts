import { describe, expect, it } from 'vitest'
import { limitsSummary, limitText, windowOf } from './limits'

describe('limits in words', () => {
  it('tells a window in the largest unit it is a whole number of', () => {
    expect(windowOf(1_000)).toEqual({ amount: 1, unit: 'second' })
    expect(windowOf(90_000)).toEqual({ amount: 90, unit: 'second' })
    expect(windowOf(120_000)).toEqual({ amount: 2, unit: 'minute' })
    expect(windowOf(5_400_000)).toEqual({ amount: 90, unit: 'minute' })
    expect(windowOf(86_400_000)).toEqual({ amount: 1, unit: 'day' })
  })

  it('says a limit, and a list of them by its first', () => {
    const requests = { name: 'requests', limit: 10, duration: 1_000 }
    expect(limitText(requests)).toBe('requests: 10 per second')
    expect(limitText({ name: 'burst', limit: 20, duration: 10_000 })).toBe('burst: 20 per 10 seconds')
    expect(limitText({ name: 'tokens', limit: 1_000_000, duration: 86_400_000 })).toBe(
      'tokens: 1,000,000 per day',
    )
    expect(limitsSummary([])).toBe('none')
    expect(limitsSummary([requests])).toBe('requests: 10 per second')
    expect(limitsSummary([requests, requests, requests])).toBe('requests: 10 per second +2 more')
  })
})
