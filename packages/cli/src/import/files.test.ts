import { ErrorType, KeywardError } from '@keyward/core'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { csvRecords, csvRows, ndjsonRecords } from './files.js'

const collect = async <T>(items: AsyncIterable<T>) => {
  const all: T[] = []
  for await (const item of items) all.push(item)
  return all
}

// The text cut at the given places, as a stream of bytes would bring it: inside a UTF-8
// character, a quoted value, a line break.
async function* chunked(text: string, cuts: readonly number[]): AsyncIterable<Uint8Array> {
  const bytes = new TextEncoder().encode(text)
  let at = 0
  for (const cut of [...new Set(cuts.map((c) => c % (bytes.length + 1)))].sort((a, b) => a - b)) {
    yield bytes.slice(at, cut)
    at = cut
  }
  yield bytes.slice(at)
}

const quote = (value: string) =>
  /[",\r\n]/.test(value) || value === '' ? `"${value.replaceAll('"', '""')}"` : value
const csvText = (rows: readonly (readonly string[])[], eol: string) =>
  rows.map((r) => r.map(quote).join(',')).join(eol)

const value = fc.string({ unit: fc.constantFrom('a', 'é', '😀', ',', '"', '\n', '\r', ' ', '0', '{', '}') })
const rows = fc.array(fc.array(value, { minLength: 2, maxLength: 5 }), { maxLength: 8 })
const cuts = fc.array(fc.nat(), { maxLength: 6 })

describe('CSV records', () => {
  it('give back every row written by RFC 4180, however the bytes are cut', async () => {
    await fc.assert(
      fc.asyncProperty(rows, cuts, fc.constantFrom('\n', '\r\n'), async (written, at, eol) => {
        expect(await collect(csvRows(chunked(csvText(written, eol), at)))).toEqual(written)
      }),
    )
  })

  it('name the values by the header, leave empty ones out, and refuse a row of another length', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(value, { minLength: 3, maxLength: 3 }), cuts, async (values, at) => {
        const text = `a,b,c\n${values.map(quote).join(',')}\nx,y\n`
        const [record, short] = await collect(csvRecords(chunked(text, at)))
        expect(record).toEqual(
          Object.fromEntries(['a', 'b', 'c'].map((k, i) => [k, values[i]]).filter(([, v]) => v !== '')),
        )
        expect(short).toEqual(
          new KeywardError(ErrorType.valueError, 'The row has 2 values, the header 3.', []),
        )
      }),
    )
  })
})

describe('NDJSON records', () => {
  it('give back each object of a line, leave blank lines out, and refuse a line that is no JSON', async () => {
    const objects = fc.array(fc.dictionary(fc.string(), fc.jsonValue()), { maxLength: 8 })
    await fc.assert(
      fc.asyncProperty(objects, cuts, fc.constantFrom('\n', '\r\n', '\n\n'), async (written, at, eol) => {
        const text = `${written.map((o) => JSON.stringify(o)).join(eol)}${eol}{not json${eol}`
        const read = await collect(ndjsonRecords(chunked(text, at)))
        expect(read.slice(0, -1)).toEqual(JSON.parse(JSON.stringify(written)))
        expect(read.at(-1)).toMatchObject({ type: 'json_invalid' })
      }),
    )
  })
})
