/**
 * @internal A WAL position (`pg_lsn`, text such as `16/B374D848`) as a number that compares:
 * the high and low 32-bit halves, in hex.
 */
export function parseLsn(text: string): bigint {
  const slash = text.indexOf('/')
  if (slash < 1) throw new TypeError(`Not a WAL position: ${JSON.stringify(text)}.`)
  return (BigInt(`0x${text.slice(0, slash)}`) << 32n) | BigInt(`0x${text.slice(slash + 1)}`)
}
