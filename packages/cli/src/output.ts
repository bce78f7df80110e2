// C0 and C1 control characters: a name with an escape sequence must not drive the terminal.
// biome-ignore lint/suspicious/noControlCharactersInRegex: matching them is the point
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/g

/** @internal Text from storage made safe to print on a terminal. */
export function printable(value: string): string {
  return value.replace(CONTROL, '?')
}

/** @internal Rows as a plain-text table: a header row, columns padded to their widest cell. */
export function table(header: readonly string[], rows: readonly (readonly string[])[]): string {
  const cells = [header, ...rows].map((row) => row.map(printable))
  const widths = header.map((_, i) => Math.max(...cells.map((row) => [...(row[i] ?? '')].length)))
  return cells
    .map((row) =>
      row
        .map((cell, i) => (i === row.length - 1 ? cell : cell + ' '.repeat(widths[i]! - [...cell].length)))
        .join('  '),
    )
    .join('\n')
}

/** @internal A timestamp for tables: ISO 8601 to the second, in UTC. */
export function timestamp(date: Date): string {
  return `${date.toISOString().slice(0, 19)}Z`
}

/** @internal `1 key`, `2 keys`. */
export function plural(count: number, noun: string): string {
  return `${count} ${noun}${count === 1 ? '' : 's'}`
}
