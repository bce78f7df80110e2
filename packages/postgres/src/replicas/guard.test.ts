import { describe, expect, it } from 'vitest'
import { LagGuard } from './guard.js'
import { parseLsn } from './lsn.js'

const H = 'a'.repeat(64)
const OTHER = 'b'.repeat(64)

// A guard whose feed is connected and whose barrier was read at `barrier`.
function connectedAt(barrier: bigint): LagGuard {
  const guard = new LagGuard()
  guard.hear({ type: 'connected' })
  guard.settle(guard.takeWaiting(), barrier)
  return guard
}

describe('parseLsn', () => {
  it('reads both 32-bit halves, so positions compare as numbers', () => {
    expect(parseLsn('0/16B3748')).toBe(0x16b3748n)
    expect(parseLsn('1/0')).toBe(1n << 32n)
    expect(parseLsn('1/0') > parseLsn('0/FFFFFFFF')).toBe(true)
    expect(() => parseLsn('16B3748')).toThrow('Not a WAL position: "16B3748".')
  })
})

describe('LagGuard', () => {
  it('trusts no standby before the feed is connected and its barrier read', () => {
    const guard = new LagGuard()
    expect(guard.trusts(H, 1000n)).toBe(false)
    guard.hear({ type: 'connected' })
    expect(guard.trusts(H, 1000n)).toBe(false)
    guard.settle(guard.takeWaiting(), 100n)
    expect(guard.trusts(H, 99n)).toBe(false)
    expect(guard.trusts(H, 100n)).toBe(true)
  })

  it('keeps a changed key on the primary until a position read after the change is replayed', () => {
    const guard = connectedAt(100n)
    guard.hear({ type: 'changed', hash: H })
    expect(guard.trusts(H, 10_000n)).toBe(false) // position not read yet
    expect(guard.trusts(OTHER, 10_000n)).toBe(true)
    guard.settle(guard.takeWaiting(), 500n)
    expect(guard.trusts(H, 499n)).toBe(false)
    expect(guard.trusts(H, 500n)).toBe(true)
  })

  it('a primary that did not answer leaves the marks waiting for the next read', () => {
    const guard = connectedAt(100n)
    guard.hear({ type: 'changed', hash: H })
    guard.settle(guard.takeWaiting(), undefined)
    expect(guard.waiting).toBe(true)
    expect(guard.trusts(H, 10_000n)).toBe(false)
    guard.settle(guard.takeWaiting(), 700n)
    expect(guard.trusts(H, 700n)).toBe(true)
  })

  it('a change heard again while its first position is read waits for a later read', () => {
    const guard = connectedAt(100n)
    guard.hear({ type: 'changed', hash: H })
    const first = guard.takeWaiting()
    guard.hear({ type: 'changed', hash: H })
    guard.settle(first, 500n)
    expect(guard.trusts(H, 10_000n)).toBe(false)
    guard.settle(guard.takeWaiting(), 800n)
    expect(guard.trusts(H, 799n)).toBe(false)
    expect(guard.trusts(H, 800n)).toBe(true)
  })

  it('forgets replayed changes, and never trusts a standby below what it forgot', () => {
    const guard = connectedAt(100n)
    guard.hear({ type: 'changed', hash: H })
    guard.settle(guard.takeWaiting(), 500n)
    guard.forget(600n)
    expect(guard.size).toBe(0)
    // A standby that restarted and shows less than was forgotten is not read, for any key.
    expect(guard.trusts(OTHER, 499n)).toBe(false)
    expect(guard.trusts(H, 500n)).toBe(true)
  })

  it('while the feed is lost it trusts nothing, unless the primary is down and was not seen after the loss', () => {
    const guard = connectedAt(100n)
    guard.hear({ type: 'changed', hash: H })
    guard.settle(guard.takeWaiting(), 500n)
    guard.hear({ type: 'disconnected' })
    expect(guard.trusts(OTHER, 200n)).toBe(false)
    expect(guard.trusts(OTHER, 200n, true)).toBe(true)
    expect(guard.trusts(H, 200n, true)).toBe(false) // its change is not replayed
    const epoch = guard.feedEpoch
    guard.primaryAnswered(epoch) // the primary answered after the loss: changes went unheard
    expect(guard.trusts(OTHER, 200n, true)).toBe(false)
    guard.hear({ type: 'connected' })
    expect(guard.trusts(OTHER, 200n)).toBe(false) // new barrier, not read yet
    guard.settle(guard.takeWaiting(), 900n)
    expect(guard.trusts(OTHER, 900n)).toBe(true)
  })

  it('a primary answer to a query started before the loss does not count as seen after it', () => {
    const guard = connectedAt(100n)
    const epoch = guard.feedEpoch
    guard.hear({ type: 'disconnected' })
    guard.primaryAnswered(epoch)
    expect(guard.trusts(OTHER, 200n, true)).toBe(true)
  })

  it('past its bound it replaces every change with one barrier read after them', () => {
    const guard = new LagGuard({ maxEntries: 2 })
    guard.hear({ type: 'connected' })
    guard.settle(guard.takeWaiting(), 100n)
    for (const hash of ['1', '2', '3']) guard.hear({ type: 'changed', hash: hash.repeat(64) })
    expect(guard.size).toBe(0)
    expect(guard.trusts(OTHER, 10_000n)).toBe(false)
    guard.settle(guard.takeWaiting(), 900n)
    expect(guard.trusts('1'.repeat(64), 899n)).toBe(false)
    expect(guard.trusts('1'.repeat(64), 900n)).toBe(true)
  })
})

describe('LagGuard with a feed asked at the moment of use', () => {
  it('trusts nothing while the feed says it is late, before any event reported it', () => {
    let fresh = true
    const guard = new LagGuard({ live: () => fresh })
    guard.hear({ type: 'connected' })
    guard.settle(guard.takeWaiting(), 100n)
    expect(guard.trusts(H, 100n)).toBe(true)
    fresh = false // the fences are late; no `disconnected` heard yet
    expect(guard.connected).toBe(false)
    expect(guard.trusts(H, 100n)).toBe(false)
    fresh = true
    expect(guard.trusts(H, 100n)).toBe(true)
  })
})
