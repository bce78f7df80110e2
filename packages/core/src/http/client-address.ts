import type { KeywardRequest } from './types.js'

/**
 * Which forwarded header to believe, and how many proxies stand in front of the app. Each proxy
 * appends the address it received the request from, so the client is the `hops`-th address from
 * the right; anything further left was written by the client and is never believed.
 *
 * @example
 * ```ts
 * const behindOneProxy: TrustedProxy = { header: 'x-forwarded-for', hops: 1 }
 * ```
 */
export interface TrustedProxy {
  /**
   * The header, lower-case: `x-forwarded-for` (a comma-separated list), `forwarded` (RFC 7239,
   * its `for=` parameters), or one that holds a single address (`x-real-ip`, `cf-connecting-ip`).
   */
  readonly header: string
  /** How many trusted proxies append to the header. Default 1. */
  readonly hops?: number
}

/** The addresses of a `Forwarded` header's `for=` parameters, without quotes, brackets or port. */
function forwardedFor(value: string): string[] {
  const addresses: string[] = []
  for (const element of value.split(',')) {
    const match = /(?:^|;)\s*for=("[^"]*"|[^;,\s]*)/i.exec(element)
    if (match) addresses.push(match[1]!.replace(/^"|"$/g, ''))
  }
  return addresses.map((address) => {
    const v6 = /^\[([^\]]*)\]/.exec(address)
    if (v6) return v6[1]!
    return /^[^:]*:\d+$/.test(address) ? address.slice(0, address.lastIndexOf(':')) : address
  })
}

/** @internal Checks a `trustedProxy` option once, naming it. */
export function checkTrustedProxy(value: TrustedProxy | undefined, where: string): void {
  if (value === undefined) return
  if (typeof value?.header !== 'string' || !/^[a-z0-9-]+$/.test(value.header)) {
    throw new TypeError(`${where}: option \`trustedProxy.header\` must be a lower-case header name.`)
  }
  if (value.hops !== undefined && !(Number.isInteger(value.hops) && value.hops > 0)) {
    throw new TypeError(`${where}: option \`trustedProxy.hops\` must be a positive integer.`)
  }
}

/**
 * The address of the client that sent a request: the socket's address, or, behind a configured
 * trusted proxy, the address that proxy wrote into its header. `undefined` when the adapter
 * cannot tell (a runtime without socket addresses) and no proxy header is configured.
 *
 * @example
 * ```ts
 * clientAddress(request) // '203.0.113.7', the socket's address
 * clientAddress(request, { header: 'x-forwarded-for', hops: 1 }) // the last address of X-Forwarded-For
 * ```
 */
export function clientAddress(request: KeywardRequest, trustedProxy?: TrustedProxy): string | undefined {
  if (!trustedProxy) return request.address
  const raw = request.header(trustedProxy.header)
  const value = typeof raw === 'string' ? raw : raw?.join(',')
  if (!value) return request.address
  const addresses =
    trustedProxy.header === 'forwarded'
      ? forwardedFor(value)
      : value
          .split(',')
          .map((address) => address.trim())
          .filter((address) => address !== '')
  if (addresses.length === 0) return request.address
  const hops = trustedProxy.hops ?? 1
  return addresses[Math.max(0, addresses.length - hops)]
}
