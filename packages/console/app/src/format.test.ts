import { describe, expect, it } from 'vitest'
import { ago, keyStatus } from './format'

const NOW = Date.parse('2026-03-10T12:00:00Z')
const at = (ms: number) => new Date(NOW + ms).toISOString()

describe('ago', () => {
  it('tells an instant in the largest unit that holds it, past or future', () => {
    expect(ago(at(-20_000), '—', NOW)).toBe('just now')
    expect(ago(at(-5 * 60_000), '—', NOW)).toBe('5 minutes ago')
    expect(ago(at(-90 * 60_000), '—', NOW)).toBe('1 hour ago')
    expect(ago(at(-26 * 3_600_000), '—', NOW)).toBe('yesterday')
    expect(ago(at(3 * 86_400_000 + 60_000), '—', NOW)).toBe('in 3 days')
    expect(ago(at(-15 * 86_400_000), '—', NOW)).toBe('2 weeks ago')
    expect(ago(at(-400 * 86_400_000), '—', NOW)).toBe('last year')
  })

  it('says the fallback for no instant, or one that is not a time', () => {
    expect(ago(null, 'never', NOW)).toBe('never')
    expect(ago(undefined, 'never', NOW)).toBe('never')
    expect(ago('soon', 'never', NOW)).toBe('never')
  })
})

describe('keyStatus', () => {
  it('says in words how a key stands, with when an active key expires', () => {
    expect(keyStatus({ active: true }, NOW)).toEqual({ label: 'Active', tone: 'ok' })
    expect(keyStatus({ active: true, expires_at: at(2 * 86_400_000) }, NOW)).toEqual({
      label: 'Active, expires in 2 days',
      tone: 'warn',
    })
    expect(keyStatus({ active: true, expires_at: at(-1) }, NOW).label).toBe('Expired')
    expect(keyStatus({ active: false }, NOW).label).toBe('Revoked')
    expect(keyStatus({ active: false, revoked_reason: 'leaked' }, NOW).label).toBe('Revoked: leaked')
  })
})
