import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { FeedFences } from './fences.js'
import { BeaconSession, type SerialQuery } from './pg-beacon.js'

const BOUND = 100
const PERIOD = 25

beforeEach(() => {
  vi.useFakeTimers()
})
afterEach(() => {
  vi.useRealTimers()
})

/** A session on a connection whose queries the test answers, one at a time. */
function sessionOf() {
  const asked: { text: string; answer: (rows: unknown[]) => void }[] = []
  const query = ((text: string) =>
    new Promise((resolve) =>
      asked.push({ text, answer: (rows) => resolve({ rows }) }),
    )) as unknown as SerialQuery
  const fences = new FeedFences(
    BOUND,
    () => {},
    () => Date.now(),
  )
  const evidence: boolean[] = []
  const session = new BeaconSession(
    query,
    fences,
    'abc',
    PERIOD,
    {
      lost: (error) => {
        throw error
      },
      evidence: (wasLate) => evidence.push(wasLate),
    },
    () => Date.now(),
  )
  /** Answers the oldest question with a WAL position. */
  const answer = async (lsn: string, leader = false) => {
    asked.shift()!.answer([{ lsn, leader }])
    await Promise.resolve()
    await Promise.resolve()
  }
  return { session, fences, asked, answer, evidence }
}

describe('BeaconSession', () => {
  it('is fresh from a probe once a beacon naming a later position follows it, dated by the probe', async () => {
    const { session, fences, asked, answer } = sessionOf()
    session.probe()
    expect(asked[0]!.text).toContain('pg_try_advisory_lock') // no beacon heard yet: it tries to lead
    vi.advanceTimersByTime(10)
    await answer('0/100')
    session.heard('0/100') // read no later than the probe's position: proves nothing
    expect(fences.fresh).toBe(false)
    vi.advanceTimersByTime(20)
    session.heard('0/180')
    expect(fences.fresh).toBe(true)
    expect(fences.ageMs).toBe(30) // from the probe's send, not the beacon's arrival
    vi.advanceTimersByTime(69)
    expect(fences.fresh).toBe(true)
    vi.advanceTimersByTime(1)
    expect(fences.fresh).toBe(false) // 99 % of the bound after the probe was sent
  })

  it('counts a beacon heard before the probe answered, and probes before the next beacon', async () => {
    const { session, fences, asked, answer } = sessionOf()
    session.probe()
    session.heard('0/200') // arrives before the probe's answer (same connection)
    await answer('0/1F0')
    expect(fences.fresh).toBe(true)
    // Each beacon schedules the next probe three quarters of a period later, without the lock.
    expect(asked).toHaveLength(0)
    vi.advanceTimersByTime(Math.floor(PERIOD * 0.75))
    expect(asked).toHaveLength(1)
    expect(asked[0]!.text).not.toContain('pg_try_advisory_lock')
  })

  it("dates its own fence by its send, whatever the position; another's fence counts as a beacon", async () => {
    const { session, fences, answer } = sessionOf()
    session.probe()
    await answer('0/300')
    const n = fences.sent()
    vi.advanceTimersByTime(40)
    session.heard(`0/2FF abc:${n}`)
    expect(fences.ageMs).toBe(40)
    session.heard('0/301 other:7')
    expect(fences.ageMs).toBe(40) // the probe was sent before the fence
    expect(session.missing).toBe(false)
    vi.advanceTimersByTime(2 * PERIOD + 1)
    expect(session.missing).toBe(true)
  })

  it('leads when the lock is granted: a beacon now and every period, until closed', async () => {
    const { session, asked, answer } = sessionOf()
    session.probe()
    await answer('0/10', true)
    expect(session.leading).toBe(true)
    expect(asked.map((q) => q.text)).toEqual([
      'SET idle_session_timeout = 1000',
      expect.stringContaining("pg_notify('keyward_beacon', pg_current_wal_insert_lsn()::text)"),
    ])
    asked[1]!.answer([])
    await Promise.resolve()
    vi.advanceTimersByTime(PERIOD)
    expect(asked).toHaveLength(3)
    session.close()
    expect(session.leading).toBe(false)
    vi.advanceTimersByTime(PERIOD * 4)
    expect(asked).toHaveLength(3)
  })

  it('ignores a payload that names no position', () => {
    const { session, fences } = sessionOf()
    session.heard('not a position')
    session.heard(undefined)
    expect(fences.fresh).toBe(false)
    expect(session.missing).toBe(true)
  })
})
