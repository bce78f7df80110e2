import { describe, expect, it } from 'vitest'
import { KEY_COLUMNS, keyRowOf } from './key-rows.js'

describe('keyRowOf', () => {
  it('names the values of a row in the order of the columns that the lookup reads', () => {
    const columns = KEY_COLUMNS.split(', ')
    const row = keyRowOf(columns.map((name) => `value of ${name}`))
    expect(Object.keys(row)).toEqual(columns)
    for (const [name, value] of Object.entries(row)) expect(value).toBe(`value of ${name}`)
  })
})
