import { BlockList, isIP } from 'node:net'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { clientAddress, type TrustedProxy } from '../http/client-address.js'
import type { KeywardRequest } from '../http/types.js'
import { type IpRange, inRanges, packRanges, parseIp, parseIpEntry } from './ip.js'
import { accessProblem } from './policies.js'

// The oracle of the table: addresses as BigInt, a range as "the top `bits` bits are equal".
const V4_MAX = (1n << 32n) - 1n
const V6_MAX = (1n << 128n) - 1n
const v4Text = (n: bigint) => [24n, 16n, 8n, 0n].map((shift) => (n >> shift) & 255n).join('.')
const groupsOf = (n: bigint) => Array.from({ length: 8 }, (_, i) => (n >> BigInt(112 - 16 * i)) & 0xffffn)
const v6Full = (n: bigint) =>
  groupsOf(n)
    .map((g) => g.toString(16))
    .join(':')
// RFC 5952's form: the longest run of zero groups (two or more) as `::`.
function v6Short(n: bigint): string {
  const groups = groupsOf(n).map((g) => g.toString(16))
  let best = [-1, 0]
  for (let i = 0; i < 8; ) {
    let j = i
    while (j < 8 && groups[j] === '0') j++
    if (j - i > best[1]! && j - i >= 2) best = [i, j - i]
    i = j === i ? i + 1 : j
  }
  if (best[0] === -1) return groups.join(':')
  return `${groups.slice(0, best[0]).join(':')}::${groups.slice(best[0]! + best[1]!).join(':')}`
}
const inside = (address: bigint, network: bigint, bits: number, width: number) =>
  address >> BigInt(width - bits) === network >> BigInt(width - bits)

// A deterministic generator, so that the table is the same on every run.
function* numbers(seed: number): Generator<bigint> {
  let state = BigInt(seed)
  for (;;) {
    state = (state * 6364136223846793005n + 1442695040888963407n) & ((1n << 64n) - 1n)
    yield state
  }
}

interface Case {
  readonly entry: string
  readonly address: string
  readonly allowed: boolean
}

function tableCases(): Case[] {
  const cases: Case[] = []
  const random = numbers(28)
  // IPv4: every prefix length, the first and last address of the range and their neighbours,
  // each as IPv4 and as two IPv4-mapped IPv6 forms.
  for (let round = 0; round < 2; round++) {
    for (let bits = 0; bits <= 32; bits++) {
      const mask = bits === 0 ? 0n : (V4_MAX << BigInt(32 - bits)) & V4_MAX
      const network = random.next().value & V4_MAX & mask
      const last = network | (~mask & V4_MAX)
      for (const address of [network, last, network - 1n, last + 1n]) {
        if (address < 0n || address > V4_MAX) continue
        const allowed = inside(address, network, bits, 32)
        const entry = `${v4Text(network)}/${bits}`
        const hex = `::ffff:${((address >> 16n) & 0xffffn).toString(16)}:${(address & 0xffffn).toString(16)}`
        for (const form of [v4Text(address), `::ffff:${v4Text(address)}`, hex]) {
          cases.push({ entry, address: form, allowed })
        }
      }
    }
  }
  // IPv6: every prefix length, edges, in full and short forms.
  for (let bits = 0; bits <= 128; bits++) {
    const mask = bits === 0 ? 0n : (V6_MAX << BigInt(128 - bits)) & V6_MAX
    const high = (random.next().value << 64n) | random.next().value
    // Away from ::ffff:0:0/96, whose addresses are IPv4 clients.
    const network = (high | (1n << 127n)) & mask
    const last = network | (~mask & V6_MAX)
    for (const address of [network, last, network - 1n, last + 1n]) {
      if (address < 0n || address > V6_MAX) continue
      const allowed = inside(address, network, bits, 128)
      const entry = `${v6Short(network)}/${bits}`
      cases.push({ entry, address: v6Full(address), allowed })
      cases.push({ entry: `${v6Full(network)}/${bits}`, address: v6Short(address).toUpperCase(), allowed })
    }
  }
  // IPv4-mapped entries and IPv6 ranges that hold every IPv4 client.
  const mapped: Case[] = [
    { entry: '::ffff:10.0.0.0/104', address: '10.255.0.1', allowed: true },
    { entry: '::ffff:10.0.0.0/104', address: '11.0.0.0', allowed: false },
    { entry: '::ffff:192.0.2.7', address: '192.0.2.7', allowed: true },
    { entry: '::ffff:192.0.2.7', address: '::ffff:192.0.2.7', allowed: true },
    { entry: '::ffff:192.0.2.7', address: '192.0.2.8', allowed: false },
    { entry: '192.0.2.7', address: '::ffff:c000:207', allowed: true },
    { entry: '::/0', address: '203.0.113.5', allowed: true },
    { entry: '::/0', address: '2001:db8::1', allowed: true },
    { entry: '::ffff:0:0/96', address: '0.0.0.0', allowed: true },
    { entry: '::ffff:0:0/96', address: '2001:db8::1', allowed: false },
    { entry: '2001:db8::/32', address: '203.0.113.5', allowed: false },
    { entry: '0.0.0.0/0', address: '2001:db8::1', allowed: false },
    { entry: '0.0.0.0/0', address: '::ffff:1.2.3.4', allowed: true },
    { entry: '::1', address: '127.0.0.1', allowed: false },
    { entry: '127.0.0.1', address: '::1', allowed: false },
    { entry: 'fe80::/10', address: 'fe80::1%eth0', allowed: true },
    { entry: '::', address: '::', allowed: true },
    { entry: '::', address: '0.0.0.0', allowed: false },
  ]
  return [...cases, ...mapped]
}

const request = (address: string | undefined, headers: Record<string, string> = {}): KeywardRequest => ({
  method: 'GET',
  url: '/',
  params: {},
  address,
  header: (name) => headers[name],
})

interface ProxyCase {
  readonly label: string
  readonly socket: string | undefined
  readonly headers: Record<string, string>
  readonly proxy?: TrustedProxy
  readonly allowed: boolean
}

// The allowlist is 203.0.113.0/24 and 2001:db8::/32: the address checked is the throttle's.
function proxyCases(): ProxyCase[] {
  const xff = (value: string) => ({ 'x-forwarded-for': value })
  const one: TrustedProxy = { header: 'x-forwarded-for', hops: 1 }
  const two: TrustedProxy = { header: 'x-forwarded-for', hops: 2 }
  const cases: ProxyCase[] = [
    { label: 'socket inside, no proxy', socket: '203.0.113.9', headers: {}, allowed: true },
    { label: 'socket outside, no proxy', socket: '198.51.100.1', headers: {}, allowed: false },
    { label: 'mapped socket inside', socket: '::ffff:203.0.113.9', headers: {}, allowed: true },
    { label: 'v6 socket inside', socket: '2001:db8:1::5', headers: {}, allowed: true },
    { label: 'no socket address (fail closed)', socket: undefined, headers: {}, allowed: false },
    {
      label: 'a forwarded header is not believed without a trusted proxy',
      socket: '198.51.100.1',
      headers: xff('203.0.113.9'),
      allowed: false,
    },
    {
      label: 'one proxy: its address',
      socket: '10.0.0.1',
      headers: xff('203.0.113.9'),
      proxy: one,
      allowed: true,
    },
    {
      label: 'one proxy: a spoofed left value is ignored',
      socket: '10.0.0.1',
      headers: xff('203.0.113.9, 198.51.100.1'),
      proxy: one,
      allowed: false,
    },
    {
      label: 'two proxies: the second from the right',
      socket: '10.0.0.1',
      headers: xff('198.51.100.1, 203.0.113.9, 10.0.0.2'),
      proxy: two,
      allowed: true,
    },
    {
      label: 'the proxy header absent: the socket',
      socket: '203.0.113.50',
      headers: {},
      proxy: one,
      allowed: true,
    },
    {
      label: 'RFC 7239 Forwarded, IPv6 in brackets with a port',
      socket: '10.0.0.1',
      headers: { forwarded: 'for="[2001:db8::7]:4711"' },
      proxy: { header: 'forwarded' },
      allowed: true,
    },
    {
      label: 'RFC 7239 Forwarded, IPv4 with a port',
      socket: '10.0.0.1',
      headers: { forwarded: 'for=203.0.113.9:80;proto=https' },
      proxy: { header: 'forwarded' },
      allowed: true,
    },
    {
      label: 'a garbage forwarded value (fail closed)',
      socket: '10.0.0.1',
      headers: xff('unknown'),
      proxy: one,
      allowed: false,
    },
    {
      label: 'one proxy: IPv6 in X-Forwarded-For',
      socket: '10.0.0.1',
      headers: xff('198.51.100.1, 2001:db8::7'),
      proxy: one,
      allowed: true,
    },
    {
      label: 'one proxy: IPv6 in its full form, 39 characters',
      socket: '10.0.0.1',
      headers: xff('2001:0db8:0000:0000:0000:0000:0000:0007'),
      proxy: one,
      allowed: true,
    },
    {
      label: 'one proxy: a spoofed IPv6 left value is ignored',
      socket: '10.0.0.1',
      headers: xff('2001:db8::7, 2001:db9::1'),
      proxy: one,
      allowed: false,
    },
    {
      label: 'two proxies: IPv6 second from the right',
      socket: '10.0.0.1',
      headers: xff('2001:db9::1, 2001:db8::7, fd00::2'),
      proxy: two,
      allowed: true,
    },
    {
      label: 'two proxies: an IPv6 address with brackets and a port is not one (fail closed)',
      socket: '10.0.0.1',
      headers: xff('[2001:db8::7]:4711, fd00::2'),
      proxy: two,
      allowed: false,
    },
    {
      label: 'two proxies configured, one entry: the address the nearest proxy saw (inside)',
      socket: '10.0.0.1',
      headers: xff('203.0.113.9'),
      proxy: two,
      allowed: true,
    },
    {
      label: 'two proxies configured, one entry: the address the nearest proxy saw (outside)',
      socket: '10.0.0.1',
      headers: xff('198.51.100.1'),
      proxy: two,
      allowed: false,
    },
    {
      label: 'three proxies configured, two entries: the leftmost, never the socket',
      socket: '203.0.113.9',
      headers: xff('198.51.100.1, 2001:db8::7'),
      proxy: { header: 'x-forwarded-for', hops: 3 },
      allowed: false,
    },
    {
      label: 'three proxies configured, two IPv6 entries: the leftmost (inside)',
      socket: '198.51.100.1',
      headers: xff('2001:db8::7, fd00::2'),
      proxy: { header: 'x-forwarded-for', hops: 3 },
      allowed: true,
    },
    {
      label: 'x-real-ip',
      socket: '10.0.0.1',
      headers: { 'x-real-ip': '::ffff:203.0.113.1' },
      proxy: { header: 'x-real-ip' },
      allowed: true,
    },
  ]
  // Every address of a /28 around the edge of the allowed /24, through one proxy.
  for (let last = 240; last < 256; last++) {
    for (const [prefix, allowed] of [
      ['203.0.113', true],
      ['203.0.114', false],
    ] as const) {
      cases.push({
        label: `through a proxy ${prefix}.${last}`,
        socket: '10.0.0.1',
        headers: xff(`${prefix}.${last}`),
        proxy: one,
        allowed,
      })
    }
  }
  return cases
}

const check = (entries: readonly string[], address: string | undefined) =>
  accessProblem({ keyPrefix: 'ak_Ab3xY', ipAllowlist: entries }, address, undefined)?.type ?? 'allowed'

describe('IP allowlists: the table', () => {
  const table = tableCases()
  const proxies = proxyCases()

  it('holds at least 1,000 cases', () => {
    expect(table.length + proxies.length).toBeGreaterThanOrEqual(1000)
  })

  it('answers every address case as the BigInt oracle does, through a fresh record each time', () => {
    const wrong = table.filter(
      ({ entry, address, allowed }) => (check([entry], address) === 'allowed') !== allowed,
    )
    expect(wrong).toEqual([])
  })

  it('answers every proxy case from the address the throttle uses', () => {
    const wrong = proxies.filter(({ socket, headers, proxy, allowed }) => {
      const address = clientAddress(request(socket, headers), proxy)
      return (check(['203.0.113.0/24', '2001:db8::/32'], address) === 'allowed') !== allowed
    })
    expect(wrong.map((c) => c.label)).toEqual([])
  })
})

describe('IP allowlist entries', () => {
  it.each([
    ['10.0.0.1/8', 'host bits are set: the network is 10.0.0.0/8'],
    ['2001:db8::1/32', 'host bits are set: the network is 2001:db8:0:0:0:0:0:0/32'],
    ['10.0.0.0/33', 'the prefix length should be a whole number from 0 to 32'],
    ['::/129', 'the prefix length should be a whole number from 0 to 128'],
    ['10.0.0.0/08', 'the prefix length should be a whole number from 0 to 32'],
    ['10.0.0.0/', 'the prefix length should be a whole number from 0 to 32'],
    ['010.0.0.1', 'is not an IPv4 address'],
    ['127.1', 'is not an IPv4 address'],
    ['0x7f.0.0.1', 'is not an IPv4 address'],
    ['256.0.0.1', 'is not an IPv4 address'],
    ['1.2.3.4 ', 'is not an IPv4 address'],
    ['', 'is not an IPv4 address'],
    ['1::2::3', 'is not an IPv6 address'],
    ['1:2:3:4:5:6:7:8:9', 'is not an IPv6 address'],
    ['12345::', 'is not an IPv6 address'],
    ['1.2.3.4::', 'is not an IPv6 address'],
    ['fe80::1%eth0', 'a zone (%) has no place in an allowlist'],
    ['example.com', 'is not an IPv4 address'],
  ])('refuses %j: %s', (entry, reason) => {
    expect(parseIpEntry(entry)).toEqual({ problem: { reason } })
  })

  it('refuses what is not a string', () => {
    expect(parseIpEntry(42)).toEqual({ problem: { reason: 'should be a string' } })
  })
})

// Generators of addresses and ranges, with Node's BlockList as a second, independent oracle.
const v4 = fc.bigInt({ min: 0n, max: V4_MAX })
const v6 = fc.bigInt({ min: 0n, max: V6_MAX })

describe('IP allowlists: properties', () => {
  it('every IPv4 or IPv6 address fast-check writes parses, and Node agrees on what is an address', () => {
    fc.assert(
      fc.property(fc.oneof(fc.ipV4(), fc.ipV6()), (address) => {
        expect(parseIp(address)).not.toBeNull()
        expect(isIP(address)).not.toBe(0)
      }),
    )
    fc.assert(
      fc.property(fc.string({ maxLength: 45 }), (text) => {
        // Node accepts zones, and so does parseIp for a request's address.
        if (text.includes('%')) return
        if (parseIp(text) !== null) expect(isIP(text)).not.toBe(0)
      }),
    )
  })

  it('an IPv4 range holds an address exactly as BlockList and the BigInt oracle say, in every form', () => {
    fc.assert(
      fc.property(v4, v4, fc.integer({ min: 0, max: 32 }), (address, base, bits) => {
        const network = bits === 0 ? 0n : (base >> BigInt(32 - bits)) << BigInt(32 - bits)
        const blocks = new BlockList()
        blocks.addSubnet(v4Text(network), bits, 'ipv4')
        const expected = inside(address, network, bits, 32)
        expect(blocks.check(v4Text(address), 'ipv4')).toBe(expected)
        const entry = `${v4Text(network)}/${bits}`
        expect(check([entry], v4Text(address)) === 'allowed').toBe(expected)
        expect(check([entry], `::ffff:${v4Text(address)}`) === 'allowed').toBe(expected)
      }),
    )
  })

  it('an IPv6 range holds an address exactly as BlockList says', () => {
    fc.assert(
      fc.property(v6, v6, fc.integer({ min: 0, max: 128 }), (address, base, bits) => {
        const network = bits === 0 ? 0n : (base >> BigInt(128 - bits)) << BigInt(128 - bits)
        const blocks = new BlockList()
        blocks.addSubnet(v6Short(network), bits, 'ipv6')
        // BlockList reads mapped addresses as IPv4 too; both sides then agree on them.
        const expected = blocks.check(v6Short(address), 'ipv6')
        expect(check([`${v6Short(network)}/${bits}`], v6Short(address)) === 'allowed').toBe(expected)
      }),
    )
  })

  it('a list allows an address when one of its entries does, whatever the order', () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(v4, fc.integer({ min: 8, max: 32 })), { minLength: 1, maxLength: 20 }),
        v4,
        (ranges, address) => {
          const entries = ranges.map(
            ([base, bits]) => `${v4Text((base >> BigInt(32 - bits)) << BigInt(32 - bits))}/${bits}`,
          )
          const any = entries.some((entry) => check([entry], v4Text(address)) === 'allowed')
          expect(check(entries, v4Text(address)) === 'allowed').toBe(any)
          expect(check([...entries].reverse(), v4Text(address)) === 'allowed').toBe(any)
        },
      ),
    )
  })

  it('inRanges of compiled ranges agrees with each entry', () => {
    const parsed = parseIpEntry('198.51.100.0/24') as { ranges: IpRange[] }
    const packed = packRanges(parsed.ranges)
    expect(inRanges(parseIp('198.51.100.200')!, packed)).toBe(true)
    expect(inRanges(parseIp('198.51.101.0')!, packed)).toBe(false)
    expect(inRanges(parseIp('2001:db8::1')!, packed)).toBe(false)
  })
})
