// IP addresses and CIDR ranges, parsed by hand: an allowlist takes only the standard text forms
// (dotted-quad IPv4 with no leading zeros, RFC 4291 / RFC 5952 IPv6, an IPv4 tail in IPv6), never
// the legacy forms some parsers accept (`0x7f.1`, `010.0.0.1`, `127.1`), and compiles them to
// 32-bit words, so that a check is a few integer comparisons per entry.

/**
 * An address as 32-bit words: one for IPv4, four for IPv6. An IPv4-mapped IPv6 address
 * (`::ffff:192.0.2.1`) is read as the IPv4 address it maps.
 */
export type IpWords = readonly number[]

const HEXTET = /^[0-9a-fA-F]{1,4}$/

// A hand-written scan rather than split and a regular expression: a request's address is parsed
// on every check of an allowlist, and this is most of its cost.
function parseV4(text: string): number | null {
  const length = text.length
  if (length < 7 || length > 15) return null
  let value = 0
  let octet = 0
  let digits = 0
  let dots = 0
  for (let i = 0; i < length; i++) {
    const code = text.charCodeAt(i)
    if (code === 46) {
      if (digits === 0 || dots === 3) return null
      value = value * 256 + octet
      octet = 0
      digits = 0
      dots++
    } else if (code >= 48 && code <= 57) {
      // No leading zero: `010` is octal to some parsers, decimal to others.
      if (digits === 1 && octet === 0) return null
      octet = octet * 10 + (code - 48)
      if (++digits > 3 || octet > 255) return null
    } else {
      return null
    }
  }
  if (digits === 0 || dots !== 3) return null
  return value * 256 + octet
}

// Eight 16-bit groups, `::` standing for one or more zero groups, the last two may be an IPv4 tail.
function parseV6(text: string): number[] | null {
  const halves = text.split('::')
  if (halves.length > 2) return null
  const groupsOf = (half: string): number[] | null => {
    if (half === '') return []
    const groups: number[] = []
    const parts = half.split(':')
    for (let i = 0; i < parts.length; i++) {
      const part = parts[i]!
      if (i === parts.length - 1 && part.includes('.')) {
        const v4 = parseV4(part)
        if (v4 === null) return null
        groups.push(v4 >>> 16, v4 & 0xffff)
      } else if (HEXTET.test(part)) {
        groups.push(Number.parseInt(part, 16))
      } else {
        return null
      }
    }
    return groups
  }
  const head = groupsOf(halves[0]!)
  const tail = halves.length === 2 ? groupsOf(halves[1]!) : []
  if (head === null || tail === null) return null
  // An IPv4 tail is only allowed at the very end.
  if (halves.length === 2 && halves[0]!.includes('.')) return null
  const missing = 8 - head.length - tail.length
  if (halves.length === 1 ? missing !== 0 : missing < 1) return null
  const groups = [...head, ...new Array<number>(halves.length === 2 ? missing : 0).fill(0), ...tail]
  const words: number[] = []
  for (let i = 0; i < 8; i += 2) words.push(((groups[i]! << 16) | groups[i + 1]!) >>> 0)
  return words
}

const MAPPED_PREFIX = /^::ffff:/i

const isMapped = (words: readonly number[]) =>
  words.length === 4 && words[0] === 0 && words[1] === 0 && words[2] === 0xffff

/**
 * An address as {@link IpWords}, or `null` when it is not one. A zone (`fe80::1%eth0`) is
 * dropped; an IPv4-mapped IPv6 address becomes its IPv4 address.
 *
 * @example
 * ```ts
 * parseIp('::ffff:192.0.2.1') // [3221225985], as parseIp('192.0.2.1')
 * ```
 */
export function parseIp(text: string): IpWords | null {
  if (typeof text !== 'string' || text.length > 64) return null
  if (!text.includes(':')) {
    const v4 = parseV4(text)
    return v4 === null ? null : [v4]
  }
  // The form a dual-stack socket gives an IPv4 client, read at once.
  if (text.length > 7 && MAPPED_PREFIX.test(text)) {
    const v4 = parseV4(text.slice(7))
    if (v4 !== null) return [v4]
  }
  const zone = text.indexOf('%')
  const words = parseV6(zone === -1 ? text : text.slice(0, zone))
  if (words === null) return null
  return isMapped(words) ? [words[3]!] : words
}

/** A range of addresses: the network's words and the mask of each word. */
export interface IpRange {
  readonly network: IpWords
  readonly mask: IpWords
}

const maskWords = (bits: number, count: number): number[] => {
  const mask: number[] = []
  for (let i = 0; i < count; i++) {
    const left = Math.max(0, Math.min(32, bits - 32 * i))
    mask.push(left === 0 ? 0 : (0xffffffff << (32 - left)) >>> 0)
  }
  return mask
}

/** Why an allowlist entry was refused, for the 422's message. */
export type IpEntryProblem = { readonly reason: string }

const PREFIX_LENGTH = /^(?:0|[1-9]\d{0,2})$/

/**
 * An allowlist entry (an address, or a CIDR range `address/bits`) as the ranges it covers, or
 * the reason it is refused. Host bits set under the mask (`10.0.0.1/8`) are refused: the entry
 * would not say what it means. A range of IPv4-mapped addresses (`::ffff:10.0.0.0/104`) is the
 * IPv4 range it maps; an IPv6 range that holds every mapped address (`::/0`) covers IPv4 too.
 *
 * @example
 * ```ts
 * parseIpEntry('2001:db8::/32') // { ranges: [{ network, mask }] }
 * parseIpEntry('10.0.0.1/8') // { problem: { reason: 'host bits are set: the network is 10.0.0.0/8' } }
 * ```
 */
export function parseIpEntry(
  entry: unknown,
): { readonly ranges: readonly IpRange[] } | { readonly problem: IpEntryProblem } {
  const refuse = (reason: string) => ({ problem: { reason } })
  if (typeof entry !== 'string') return refuse('should be a string')
  const slash = entry.indexOf('/')
  const addressText = slash === -1 ? entry : entry.slice(0, slash)
  if (addressText.includes('%')) return refuse('a zone (%) has no place in an allowlist')
  const v6 = addressText.includes(':')
  const full = v6 ? parseV6(addressText) : ((v4) => (v4 === null ? null : [v4]))(parseV4(addressText))
  if (full === null) return refuse(`is not an IPv${v6 ? 6 : 4} address`)
  const max = full.length * 32
  let bits = max
  if (slash !== -1) {
    const text = entry.slice(slash + 1)
    if (!PREFIX_LENGTH.test(text) || Number(text) > max) {
      return refuse(`the prefix length should be a whole number from 0 to ${max}`)
    }
    bits = Number(text)
  }
  const mask = maskWords(bits, full.length)
  const network = full.map((word, i) => (word & mask[i]!) >>> 0)
  if (network.some((word, i) => word !== full[i])) {
    return refuse(`host bits are set: the network is ${formatNetwork(network)}/${bits}`)
  }
  if (isMapped(network) && bits >= 96) {
    return { ranges: [{ network: [network[3]!], mask: maskWords(bits - 96, 1) }] }
  }
  const ranges: IpRange[] = [{ network, mask }]
  // Does the range hold ::ffff:0:0/96? Then it holds every IPv4 client as a dual-stack socket sees it.
  if (v6 && bits <= 96 && [0, 0, 0xffff].every((word, i) => (word & mask[i]!) >>> 0 === network[i])) {
    ranges.push({ network: [0], mask: [0] })
  }
  return { ranges }
}

function formatNetwork(words: readonly number[]): string {
  if (words.length === 1) {
    const w = words[0]!
    return [w >>> 24, (w >>> 16) & 255, (w >>> 8) & 255, w & 255].join('.')
  }
  return words.flatMap((w) => [(w >>> 16).toString(16), (w & 0xffff).toString(16)]).join(':')
}

/**
 * Ranges packed for the check: IPv4 as (network, mask) pairs, IPv6 as 4 network words then 4
 * mask words, each in one flat array of numbers.
 */
export interface PackedRanges {
  readonly v4: number[]
  readonly v6: number[]
}

/**
 * Packs ranges for {@link inRanges}.
 *
 * @example
 * ```ts
 * const packed = packRanges([])
 * packRanges((parseIpEntry('10.0.0.0/8') as { ranges: IpRange[] }).ranges, packed)
 * ```
 */
export function packRanges(
  ranges: readonly IpRange[],
  into: PackedRanges = { v4: [], v6: [] },
): PackedRanges {
  for (const { network, mask } of ranges) {
    if (network.length === 1) into.v4.push(network[0]!, mask[0]!)
    else into.v6.push(...network, ...mask)
  }
  return into
}

/**
 * Whether an address (as {@link parseIp} reads it) is in one of the packed ranges.
 *
 * @example
 * ```ts
 * inRanges(parseIp('10.1.2.3')!, packed)
 * ```
 */
export function inRanges(address: IpWords, { v4, v6 }: PackedRanges): boolean {
  if (address.length === 1) {
    const a = address[0]!
    for (let i = 0; i < v4.length; i += 2) {
      if ((a & v4[i + 1]!) >>> 0 === v4[i]) return true
    }
    return false
  }
  const a0 = address[0]!
  const a1 = address[1]!
  const a2 = address[2]!
  const a3 = address[3]!
  for (let i = 0; i < v6.length; i += 8) {
    if (
      (a0 & v6[i + 4]!) >>> 0 === v6[i] &&
      (a1 & v6[i + 5]!) >>> 0 === v6[i + 1] &&
      (a2 & v6[i + 6]!) >>> 0 === v6[i + 2] &&
      (a3 & v6[i + 7]!) >>> 0 === v6[i + 3]
    ) {
      return true
    }
  }
  return false
}
