import { describe, expect, it } from 'vitest'
import { rangeAt, USAGE_RANGES, usageSeries } from './usage'

const day = USAGE_RANGES.find((range) => range.id === '24h')!

describe('rangeAt', () => {
  it("ends at the end of the current bucket, and holds the range's buckets", () => {
    const { from, to } = rangeAt(day, Date.parse('2026-03-10T12:34:56Z'))
    expect(to.toISOString()).toBe('2026-03-10T13:00:00.000Z')
    expect(from.toISOString()).toBe('2026-03-09T13:00:00.000Z')
    // On a boundary, the bucket that starts there is the current one.
    expect(rangeAt(day, Date.parse('2026-03-10T12:00:00Z')).to.toISOString()).toBe('2026-03-10T13:00:00.000Z')
    const month = rangeAt(
      USAGE_RANGES.find((range) => range.id === '30d')!,
      Date.parse('2026-03-10T12:00:00Z'),
    )
    expect([month.from.toISOString(), month.to.toISOString()]).toEqual([
      '2026-02-09T00:00:00.000Z',
      '2026-03-11T00:00:00.000Z',
    ])
  })
})

describe('usageSeries', () => {
  it('fills every bucket, accepted apart from every refusal, and sums them', () => {
    const from = new Date('2026-03-10T00:00:00Z')
    const to = new Date('2026-03-10T04:00:00Z')
    const series = usageSeries(
      [
        { start: '2026-03-10T01:00:00.000Z', outcome: 'accepted', count: 5 },
        { start: '2026-03-10T01:00:00.000Z', outcome: 'accepted', count: 2 }, // another key
        { start: '2026-03-10T01:00:00.000Z', outcome: 'expired', count: 1 },
        { start: '2026-03-10T03:00:00.000Z', outcome: 'rate_limited', count: 4 },
        { start: '2026-03-10T04:00:00.000Z', outcome: 'accepted', count: 9 }, // past the end
        { start: '2026-03-09T23:00:00.000Z', outcome: 'accepted', count: 9 }, // before the start
      ],
      from,
      to,
      'hour',
    )
    expect(series.starts).toEqual([0, 1, 2, 3].map((hour) => from.getTime() / 1000 + hour * 3600))
    expect(series.accepted).toEqual([0, 7, 0, 0])
    expect(series.refused).toEqual([0, 1, 0, 4])
    expect(series.total).toEqual({ accepted: 7, refused: 5 })
  })
})
