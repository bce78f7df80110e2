import { afterEach, describe, expect, it, vi } from 'vitest'
import { storeErrorLog } from './store-errors.js'

const down = (operation: string) => ({
  type: 'store.error' as const,
  operation,
  error: new Error('connect ECONNREFUSED 127.0.0.1:5432'),
})

describe('the log of a database outage', () => {
  afterEach(() => {
    vi.useRealTimers()
  })

  it('is a first line, a count per interval, and a recovery line, whatever the number of failures', async () => {
    vi.useFakeTimers()
    const lines: string[] = []
    let answers = false
    const log = storeErrorLog({
      write: (line) => lines.push(line),
      probe: () => (answers ? Promise.resolve() : Promise.reject(new Error('down'))),
      intervalMs: 1_000,
    })
    // 20,000 failed requests over 2.5 s of outage: one every 125 µs.
    for (let i = 0; i < 20_000; i++) {
      log.report(down(i % 4 ? 'findKeyByHash' : 'healthz'))
      if (i % 8 === 7) await vi.advanceTimersByTimeAsync(1)
    }
    await vi.advanceTimersByTimeAsync(500)
    answers = true
    await vi.advanceTimersByTimeAsync(1_000)
    log.close()
    // 2.5 s of failures, then a second until the probe finds the database: 5 lines, not 20,000.
    expect(lines[0]).toBe(
      'store.error during healthz: connect ECONNREFUSED 127.0.0.1:5432 (further failures are summed up every 1s until the database answers)',
    )
    const counts = lines.slice(1, -1)
    expect(counts).toHaveLength(3)
    for (const line of counts) {
      expect(line).toMatch(
        /^store\.errors \d+ failed in the last 1s \((findKeyByHash|healthz) \d+.*\); last: connect ECONNREFUSED/,
      )
    }
    expect(lines.at(-1)).toMatch(
      /^store\.recovered: the database answers again after 4\.0 s \(20000 failed operations\)$/,
    )
    const counted = counts
      .map((line) => Number(/^store\.errors (\d+)/.exec(line)![1]))
      .reduce((a, b) => a + b, 0)
    expect(counted).toBe(19_999)
  })

  it('starts again with a first line after a recovery', async () => {
    vi.useFakeTimers()
    const lines: string[] = []
    const log = storeErrorLog({
      write: (line) => lines.push(line),
      probe: () => Promise.resolve(),
      intervalMs: 1_000,
    })
    log.report(down('healthz'))
    await vi.advanceTimersByTimeAsync(1_000)
    log.report(down('healthz'))
    log.close()
    expect(lines.map((line) => line.split(':')[0])).toEqual([
      'store.error during healthz',
      'store.recovered',
      'store.error during healthz',
    ])
  })
})
