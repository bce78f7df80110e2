import { lookup as dnsLookup, type LookupAddress } from 'node:dns'
import { isIP } from 'node:net'
import ipaddr from 'ipaddr.js'

/**
 * Addresses refused even when the operator allows private ones: link-local (169.254.0.0/16, where
 * cloud metadata services answer, also as an IPv4-mapped IPv6 address) and AWS's IPv6 metadata
 * address.
 */
export const ALWAYS_REFUSED: readonly string[] = [
  '169.254.0.0/16',
  '::ffff:169.254.0.0/112',
  'fe80::/10',
  'fd00:ec2::254/128',
]

/** A resolver with the shape of `dns.lookup` (`all: true`), for tests that rebind a name. */
export type WebhookLookup = typeof dnsLookup

/** Options of {@link checkWebhookAddress} and of the sender. */
export interface WebhookAddressOptions {
  /** Allow loopback and private addresses (development and tests). Link-local and metadata stay refused. Default `false`. */
  readonly allowPrivate?: boolean
  /** The resolver. Default `dns.lookup`. */
  readonly lookup?: WebhookLookup
}

/**
 * Why an IP address is refused as a webhook's destination, or `null` when it is not: anything
 * but a public unicast address (loopback, private, link-local, unique local, multicast,
 * unspecified, reserved), unless `allowPrivate`; and {@link ALWAYS_REFUSED} in any case.
 *
 * @example
 * ```ts
 * refusalOf('10.0.0.7') // 'private'
 * refusalOf('10.0.0.7', { allowPrivate: true }) // null
 * refusalOf('169.254.169.254', { allowPrivate: true }) // 'link-local or metadata'
 * ```
 */
export function refusalOf(
  address: string,
  options: Pick<WebhookAddressOptions, 'allowPrivate'> = {},
): string | null {
  if (isIP(address) === 0) return 'not an IP address'
  const parsed = ipaddr.process(address)
  const always = ALWAYS_REFUSED.some((cidr) => {
    const range = ipaddr.parseCIDR(cidr)
    const candidate = ipaddr.parse(address)
    return candidate.kind() === range[0].kind() && candidate.match(range)
  })
  if (always) return 'link-local or metadata'
  const range = parsed.range()
  if (range === 'unspecified') return 'unspecified'
  if (range !== 'unicast' && !options.allowPrivate) return range
  return null
}

/**
 * Checks where a webhook URL's host resolves, at registration: every address it resolves to
 * must be allowed ({@link refusalOf}); throws an `Error` that names the refused address. Each
 * delivery checks again, at connection (a name may resolve elsewhere later).
 *
 * @example
 * ```ts
 * createKeyRoutes(keyward, { webhooks: { checkAddress: (url) => checkWebhookAddress(url) } })
 * ```
 */
export async function checkWebhookAddress(url: string, options: WebhookAddressOptions = {}): Promise<void> {
  const host = new URL(url).hostname.replace(/^\[(.*)\]$/, '$1')
  const lookup = options.lookup ?? dnsLookup
  const addresses =
    isIP(host) !== 0
      ? [{ address: host, family: isIP(host) }]
      : await new Promise<LookupAddress[]>((resolve, reject) =>
          lookup(host, { all: true }, (error, found) => (error ? reject(error) : resolve(found))),
        )
  for (const { address } of addresses) {
    const refusal = refusalOf(address, options)
    if (refusal !== null) throw new Error(`${host} resolves to ${address} (${refusal}).`)
  }
}

/**
 * A resolver that refuses, with an error, a name resolving to an address {@link refusalOf}
 * refuses: what the sender connects through, so that a name rebound after registration is
 * caught at the delivery.
 *
 * @example
 * ```ts
 * http.request(url, { lookup: guardedLookup(dns.lookup, { allowPrivate: false }) })
 * ```
 */
export function guardedLookup(
  base: WebhookLookup,
  options: Pick<WebhookAddressOptions, 'allowPrivate'>,
): WebhookLookup {
  const refused = (host: string, address: string) => {
    const refusal = refusalOf(address, options)
    return refusal === null ? null : new Error(`${host} resolves to ${address} (${refusal}): refused.`)
  }
  // biome-ignore lint/suspicious/noExplicitAny: dns.lookup's overloads, passed through as they are
  const guarded = (host: string, lookupOptions: any, callback: any) => {
    base(
      host,
      lookupOptions,
      (error: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => {
        if (error) return callback(error)
        const list = Array.isArray(address) ? address : [{ address, family: family ?? 4 }]
        for (const found of list) {
          const refusal = refused(host, found.address)
          if (refusal) return callback(refusal)
        }
        return Array.isArray(address) ? callback(null, address) : callback(null, address, family)
      },
    )
  }
  return guarded as WebhookLookup
}
