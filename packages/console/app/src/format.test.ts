import { describe, expect, it } from 'vitest'
import { ago, graceChoices, keyStatus, summary } from './format'

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

describe('summary', () => {
  it('says a list in one line: its first entries, and how many more', () => {
    expect(summary([], 'none')).toBe('none')
    expect(summary(['a', 'b'], 'none')).toBe('a, b')
    expect(summary(['a', 'b', 'c'], 'none')).toBe('a, b +1 more')
    expect(summary(['a', 'b', 'c'], 'none', 1)).toBe('a +2 more')
  })
})

describe('graceChoices', () => {
  it('offers the grace periods up to the most a roll allows', () => {
    expect(graceChoices('it stops now').map((choice) => choice.value)).toEqual([
      '0',
      '3600',
      '86400',
      '604800',
      '2592000',
    ])
    const week = graceChoices('it stops now', 7 * 86_400)
    expect(week.at(-1)?.label).toBe('7 days')
    expect(week[0]?.label).toBe('None: it stops now')
  })
})
