import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { FeedFences, RevocationUnconfirmedError } from './fences.js'

const BOUND = 100

// Fake timers fake Date too: the fences' clock is Date.now(), moved by advanceTimersByTime.
beforeEach(() => {
  vi.useFakeTimers()
})
afterEach(() => {
  vi.useRealTimers()
})

/** Fences whose requests are recorded, as a feed would send them. */
function fencesOf() {
  const requests: number[] = []
  const fences = new FeedFences(
    BOUND,
    () => requests.push(Date.now()),
    () => Date.now(),
  )
  return { fences, requests }
}

describe('FeedFences', () => {
  it('is fresh only while the latest fence heard back was sent within 99 % of the bound', () => {
    const { fences } = fencesOf()
    expect(fences.fresh).toBe(false)
    const n = fences.sent()
    vi.advanceTimersByTime(30) // the round trip
    expect(fences.fresh).toBe(false) // sent, not heard
    fences.received(n)
    expect(fences.fresh).toBe(true)
    vi.advanceTimersByTime(69) // 99 ms after the send
    expect(fences.fresh).toBe(true)
    vi.advanceTimersByTime(1) // 100 ms: past 99 % of the bound
    expect(fences.fresh).toBe(false)
  })

  it('dates freshness by the send, not the arrival, and by the latest fence sent', () => {
    const { fences } = fencesOf()
    const first = fences.sent()
    vi.advanceTimersByTime(50)
    const second = fences.sent()
    vi.advanceTimersByTime(60)
    fences.received(second) // sent 60 ms ago
    fences.received(first) // an older one changes nothing (and is forgotten already)
    vi.advanceTimersByTime(39)
    expect(fences.fresh).toBe(true)
    vi.advanceTimersByTime(1)
    expect(fences.fresh).toBe(false)
  })

  it('says when a fence ends a gap that no timer reported', () => {
    const { fences } = fencesOf()
    fences.received(fences.sent())
    const late = fences.sent()
    vi.advanceTimersByTime(150)
    expect(fences.received(late)).toBe(true)
    // Sent 150 ms ago: it came back, but too late to make the feed fresh.
    expect(fences.fresh).toBe(false)
    expect(fences.received(fences.sent())).toBe(true)
    expect(fences.fresh).toBe(true)
    expect(fences.received(fences.sent())).toBe(false)
  })

  it('forgets the fences of a lost connection: their numbers prove nothing later', () => {
    const { fences } = fencesOf()
    const n = fences.sent()
    fences.lost()
    fences.received(n)
    expect(fences.fresh).toBe(false)
  })

  it('confirms a time once a fence sent at or after it is back, and asks for one', async () => {
    const { fences, requests } = fencesOf()
    const before = fences.sent()
    vi.advanceTimersByTime(10)
    const confirmed = fences.confirm(Date.now(), 500)
    expect(requests).toEqual([Date.now()])
    fences.received(before) // sent before: not enough
    let settled: boolean | undefined
    void confirmed.then((value) => {
      settled = value
    })
    await vi.advanceTimersByTimeAsync(0)
    expect(settled).toBeUndefined()
    fences.received(fences.sent())
    expect(await confirmed).toBe(true)
  })

  it('does not confirm without a fence back within the timeout', async () => {
    const { fences } = fencesOf()
    const confirmed = fences.confirm(Date.now(), 500)
    await vi.advanceTimersByTimeAsync(500)
    expect(await confirmed).toBe(false)
  })
})

describe('the acknowledgement of a revocation', () => {
  it('comes a bound after the commit, after a fence sent then came back', async () => {
    const { fences, requests } = fencesOf()
    const committedAt = Date.now()
    let acknowledgedAt: number | undefined
    const acknowledged = fences.acknowledge(committedAt, 1000).then(() => {
      acknowledgedAt = Date.now()
    })
    // Fences heard during the bound do not end the wait.
    await vi.advanceTimersByTimeAsync(50)
    fences.received(fences.sent())
    await vi.advanceTimersByTimeAsync(49)
    expect(requests).toEqual([])
    await vi.advanceTimersByTimeAsync(1)
    expect(requests).toEqual([committedAt + BOUND])
    expect(acknowledgedAt).toBeUndefined()
    await vi.advanceTimersByTimeAsync(5)
    fences.received(fences.sent())
    await acknowledged
    expect(acknowledgedAt).toBe(committedAt + BOUND + 5)
  })

  it('fails with outcome unknown when the feed does not confirm', async () => {
    const { fences } = fencesOf()
    const acknowledged = fences.acknowledge(Date.now(), 300)
    const failure = expect(acknowledged).rejects.toBeInstanceOf(RevocationUnconfirmedError)
    await vi.advanceTimersByTimeAsync(BOUND + 300)
    await failure
    await acknowledged.catch((error: RevocationUnconfirmedError) => {
      expect(error.outcome).toBe('unknown')
      expect(error).toMatchObject({ type: 'revocation_unconfirmed', status: 503, waitedMs: 300 })
      expect(error.message).toContain('its confirmation timed out after 300 ms')
    })
  })
})
