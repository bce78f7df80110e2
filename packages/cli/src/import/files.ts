// Records of a file to import: NDJSON (one JSON object a line) or CSV (RFC 4180, a header row).
// Both read text as it streams, and hand a record they cannot read to the import as the refusal
// that says why, in its place, so that its number stays the same.
import { ErrorType, KeywardError } from '@keyward/core'

/** The formats of a file to import. */
export type ImportFileFormat = 'ndjson' | 'csv'

const decoded = async function* (chunks: AsyncIterable<string | Uint8Array>): AsyncIterable<string> {
  const decoder = new TextDecoder()
  for await (const chunk of chunks)
    yield typeof chunk === 'string' ? chunk : decoder.decode(chunk, { stream: true })
  const rest = decoder.decode()
  if (rest) yield rest
}

/** @internal Lines of streamed text, without their `\n` (or `\r\n`). */
export async function* lines(chunks: AsyncIterable<string | Uint8Array>): AsyncIterable<string> {
  let pending = ''
  for await (const text of decoded(chunks)) {
    pending += text
    let end = pending.indexOf('\n')
    while (end !== -1) {
      yield pending.slice(0, end).replace(/\r$/, '')
      pending = pending.slice(end + 1)
      end = pending.indexOf('\n')
    }
  }
  if (pending !== '') yield pending.replace(/\r$/, '')
}

/**
 * @internal The records of NDJSON text: each line that is not blank is one, parsed; a line that is
 * no JSON is its refusal (`json_invalid`).
 */
export async function* ndjsonRecords(chunks: AsyncIterable<string | Uint8Array>): AsyncIterable<unknown> {
  for await (const line of lines(chunks)) {
    if (line.trim() === '') continue
    try {
      yield JSON.parse(line)
    } catch {
      yield new KeywardError(ErrorType.jsonInvalid, 'The line is not valid JSON.', [])
    }
  }
}

/**
 * @internal The rows of CSV text (RFC 4180: `,` between values, `"` around a value that holds one,
 * a `"` doubled inside, line breaks inside quotes), each a list of values. A row that is blank is
 * left out.
 */
export async function* csvRows(chunks: AsyncIterable<string | Uint8Array>): AsyncIterable<string[]> {
  let row: string[] = []
  let value = ''
  let quoted = false
  // After a closing quote: the next `"` is an escaped one.
  let closing = false
  let started = false
  for await (const text of decoded(chunks)) {
    for (const c of text) {
      if (quoted) {
        if (c === '"') {
          quoted = false
          closing = true
        } else value += c
        continue
      }
      if (c === '"') {
        if (closing) value += '"'
        quoted = true
        closing = false
        started = true
        continue
      }
      closing = false
      // A carriage return outside quotes ends a line (\r\n) or is dropped.
      if (c === '\r') continue
      if (c === ',') {
        row.push(value)
        value = ''
        started = true
      } else if (c === '\n') {
        row.push(value)
        if (started || row.length > 1 || row[0] !== '') yield row
        row = []
        value = ''
        started = false
      } else {
        value += c
        started = true
      }
    }
  }
  if (started || value !== '') {
    row.push(value)
    yield row
  }
}

/**
 * @internal The records of CSV text: its first row names the fields, each later row is one record
 * of them (an empty value is an absent one). A row of another length than the header is its
 * refusal (`value_error`).
 */
export async function* csvRecords(chunks: AsyncIterable<string | Uint8Array>): AsyncIterable<unknown> {
  let header: string[] | undefined
  for await (const row of csvRows(chunks)) {
    if (!header) {
      header = row.map((name) => name.trim())
      continue
    }
    if (row.length !== header.length) {
      yield new KeywardError(
        ErrorType.valueError,
        `The row has ${row.length} values, the header ${header.length}.`,
        [],
      )
      continue
    }
    const record: Record<string, string> = {}
    header.forEach((name, i) => {
      if (row[i] !== '') record[name] = row[i]!
    })
    yield record
  }
}

/** @internal The records of a file's text, by its format. */
export const fileRecords = (format: ImportFileFormat, chunks: AsyncIterable<string | Uint8Array>) =>
  format === 'csv' ? csvRecords(chunks) : ndjsonRecords(chunks)
