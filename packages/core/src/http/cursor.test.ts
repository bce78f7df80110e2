import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { isKeywardError } from '../errors/error.js'
import { decodeCursor, encodeCursor } from './cursor.js'
import { readPageQuery } from './page-query.js'

// Any instant from year 1 to 9999, with microseconds or not, in the RFC 3339 form cursors carry.
const instant = fc
  .tuple(
    fc.date({
      min: new Date('0001-01-01T00:00:00Z'),
      max: new Date('9999-12-31T23:59:59Z'),
      noInvalidDate: true,
    }),
    fc.option(fc.integer({ min: 0, max: 999 })),
  )
  .map(([date, micros]) =>
    micros === null
      ? date.toISOString()
      : `${date.toISOString().slice(0, 23)}${String(micros).padStart(3, '0')}Z`,
  )
const id = fc.oneof(fc.uuid(), fc.string({ minLength: 1, maxLength: 255, unit: 'binary' }))

// What decoding any string may do: return a position, or refuse it with the 422 of a cursor.
function decodeOutcome(text: string): 'position' | 'refused' {
  try {
    const position = decodeCursor(text)
    expect(encodeCursor(position)).toBe(text)
    return 'position'
  } catch (error) {
    expect(isKeywardError(error)).toBe(true)
    expect(error).toMatchObject({ status: 422, type: 'value_error', loc: ['query', 'cursor'] })
    return 'refused'
  }
}

describe('cursors', () => {
  it('round-trip: any position a listing can give reads back the same', () => {
    fc.assert(
      fc.property(instant, id, (createdAt, id) => {
        const cursor = encodeCursor({ createdAt, id })
        expect(cursor).toMatch(/^[A-Za-z0-9_-]+$/)
        expect(decodeCursor(cursor)).toEqual({ createdAt, id })
      }),
      { numRuns: 2000 },
    )
    const at = new Date('2026-11-21T11:22:01.788Z')
    expect(decodeCursor(encodeCursor({ createdAt: at, id: 'k' }))).toEqual({
      createdAt: at.toISOString(),
      id: 'k',
    })
  })

  it('refuse any other string with a 422 at ["query", "cursor"], and never throw anything else', () => {
    const garbage = fc.oneof(
      fc.string({ unit: 'binary', maxLength: 1200 }),
      fc.base64String().map((text) => text.replace(/=+$/, '').replace(/\+/g, '-').replace(/\//g, '_')),
      fc.json().map((json) => Buffer.from(json).toString('base64url')),
      fc
        .tuple(fc.anything(), fc.anything())
        .map((pair) => Buffer.from(JSON.stringify(pair) ?? '').toString('base64url')),
    )
    fc.assert(
      fc.property(garbage, (text) => {
        decodeOutcome(text)
      }),
      { numRuns: 3000 },
    )
  })

  it('refuse tampered and impossible positions, each with a message that says what to do', () => {
    const valid = encodeCursor({ createdAt: new Date('2026-01-01T00:00:00Z'), id: 'a' })
    const encoded = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url')
    for (const text of [
      '',
      `${valid}=`,
      `${valid.slice(0, -1)}${valid.at(-1) === 'A' ? 'B' : 'A'}`,
      'not a cursor',
      encoded(['2026-02-30T00:00:00Z', 'a']),
      encoded(['2026-01-01T00:00:00+01:00', 'a']),
      encoded(['2026-01-01T00:00:00Z', '']),
      encoded(['2026-01-01T00:00:00Z', 5]),
      encoded(['2026-01-01T00:00:00Z', 'a', 'b']),
      encoded({ createdAt: '2026-01-01T00:00:00Z', id: 'a' }),
      'A'.repeat(1025),
    ]) {
      expect(decodeOutcome(text), text).toBe('refused')
    }
    expect(() => decodeCursor('%%%')).toThrow(/Pass the next_cursor of the previous page as it is/)
  })

  it('encodeCursor refuses what no listing should give out', () => {
    expect(() => encodeCursor({ createdAt: new Date(Number.NaN), id: 'a' })).toThrow(TypeError)
    expect(() => encodeCursor({ createdAt: '2026-01-01', id: 'a' })).toThrow(TypeError)
    expect(() => encodeCursor({ createdAt: new Date(), id: '' })).toThrow(TypeError)
  })
})

describe('readPageQuery', () => {
  const read = (query: string) => readPageQuery({ url: `/api/v1/projects${query}` })
  const refusal = (query: string) => {
    try {
      read(query)
    } catch (error) {
      return error as { status: number; type: string; loc: string[]; msg: string }
    }
    throw new Error(`${query} was accepted`)
  }

  it('reads limit (default 100) and cursor, and an empty cursor as none', () => {
    const cursor = encodeCursor({ createdAt: new Date('2026-01-01T00:00:00Z'), id: 'p1' })
    expect(read('')).toEqual({ limit: 100 })
    expect(read('?limit=1')).toEqual({ limit: 1 })
    expect(read(`?other=x&limit=200&cursor=${cursor}#frag`)).toEqual({
      limit: 200,
      after: { createdAt: '2026-01-01T00:00:00.000Z', id: 'p1' },
    })
    expect(read('?cursor=')).toEqual({ limit: 100 })
  })

  it.each([
    ['?limit=0', 'greater_than_equal', 'limit'],
    ['?limit=201', 'less_than_equal', 'limit'],
    ['?limit=', 'int_type', 'limit'],
    ['?limit=1.5', 'int_type', 'limit'],
    ['?limit=-1', 'int_type', 'limit'],
    ['?limit=ten', 'int_type', 'limit'],
    ['?limit=99999999999', 'int_type', 'limit'],
    ['?limit=1&limit=2', 'value_error', 'limit'],
    ['?cursor=abc!', 'value_error', 'cursor'],
    ['?cursor=%E0%A4%A', 'value_error', 'cursor'],
    ['?cursor=a&cursor=b', 'value_error', 'cursor'],
  ])('%s is 422 %s at ["query", "%s"]', (query, type, field) => {
    expect(refusal(query)).toMatchObject({ status: 422, type, loc: ['query', field] })
  })
})
