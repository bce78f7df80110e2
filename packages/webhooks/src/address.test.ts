import type { LookupAddress } from 'node:dns'
import { afterEach, describe, expect, it } from 'vitest'
import { checkWebhookAddress, refusalOf, type WebhookLookup } from './address.js'
import { postWebhook } from './send.js'
import { receiver } from './test/receiver.js'

// [address, refused by default, refused when private addresses are allowed]
const TABLE: [string, boolean, boolean][] = [
  ['93.184.216.34', false, false],
  ['8.8.8.8', false, false],
  ['127.0.0.1', true, false],
  ['127.255.0.9', true, false],
  ['10.1.2.3', true, false],
  ['172.16.0.1', true, false],
  ['192.168.1.1', true, false],
  ['100.64.0.1', true, false],
  ['0.0.0.0', true, true],
  ['169.254.169.254', true, true],
  ['169.254.0.1', true, true],
  ['224.0.0.1', true, false],
  ['255.255.255.255', true, false],
  ['2606:4700:4700::1111', false, false],
  ['::1', true, false],
  ['::', true, true],
  ['fc00::1', true, false],
  ['fd12:3456::1', true, false],
  ['fe80::1', true, true],
  ['fd00:ec2::254', true, true],
  ['::ffff:127.0.0.1', true, false],
  ['::ffff:10.0.0.1', true, false],
  ['::ffff:169.254.169.254', true, true],
  ['ff02::1', true, false],
]

// A resolver that answers `first` once, then `then`: a name rebound after its registration.
function rebinding(first: string, then: string): { lookup: WebhookLookup; calls: () => number } {
  let calls = 0
  const lookup = ((_host: string, options: { all?: boolean }, callback: (...args: unknown[]) => void) => {
    const address = calls++ === 0 ? first : then
    const family = address.includes(':') ? 6 : 4
    if (options?.all) callback(null, [{ address, family }] satisfies LookupAddress[])
    else callback(null, address, family)
  }) as unknown as WebhookLookup
  return { lookup, calls: () => calls }
}

describe('addresses a webhook may reach', () => {
  it.each(TABLE)(
    '%s: refused %s by default, %s with private addresses allowed',
    (address, refused, refusedAnyway) => {
      expect(refusalOf(address) !== null).toBe(refused)
      expect(refusalOf(address, { allowPrivate: true }) !== null).toBe(refusedAnyway)
    },
  )

  it('checks every address a name resolves to at registration, and IP literals in brackets', async () => {
    const { lookup } = rebinding('10.0.0.7', '10.0.0.7')
    await expect(checkWebhookAddress('https://hooks.example.com/', { lookup })).rejects.toThrow(
      'hooks.example.com resolves to 10.0.0.7 (private).',
    )
    await expect(checkWebhookAddress('https://[::1]:8443/')).rejects.toThrow(
      '::1 resolves to ::1 (loopback).',
    )
    await expect(checkWebhookAddress('https://[fd00:ec2::254]/', { allowPrivate: true })).rejects.toThrow(
      /link-local or metadata/,
    )
    await expect(checkWebhookAddress('https://93.184.216.34/')).resolves.toBeUndefined()
  })
})

describe('a delivery to a rebound name', () => {
  const open: { close(): Promise<void> }[] = []
  afterEach(async () => {
    for (const server of open.splice(0)) await server.close()
  })

  it('passes registration with a public address, then is refused at connection when the name resolves to 127.0.0.1', async () => {
    const target = await receiver()
    open.push(target)
    const url = `http://rebound.example:${target.port}/hooks`
    const { lookup, calls } = rebinding('93.184.216.34', '127.0.0.1')
    await expect(checkWebhookAddress(url, { lookup })).resolves.toBeUndefined()
    const answer = await postWebhook(url, {}, '{}', { lookup })
    expect(answer.status).toBeNull()
    expect(answer.response).toMatch(/127\.0\.0\.1.*(refused|not allowed)/)
    expect(calls()).toBe(2)
    expect(target.received).toHaveLength(0)
    // An IP literal is refused without any lookup; link-local even when private addresses are allowed.
    expect((await postWebhook(`http://127.0.0.1:${target.port}/`, {}, '{}')).status).toBeNull()
    expect(
      (await postWebhook('http://169.254.169.254/latest/meta-data/', {}, '{}', { allowPrivate: true }))
        .response,
    ).toMatch(/link-local or metadata/)
    const metadata = rebinding('169.254.169.254', '169.254.169.254')
    expect(
      (
        await postWebhook('http://metadata.example/', {}, '{}', {
          allowPrivate: true,
          lookup: metadata.lookup,
        })
      ).status,
    ).toBeNull()
    expect(target.received).toHaveLength(0)
  })

  it('follows no redirect, reads at most 64 KB of an answer and keeps 1 KB, and gives up after the timeout', async () => {
    const target = await receiver((_, i) =>
      i === 0
        ? { status: 302, headers: { location: 'http://169.254.169.254/' } }
        : i === 1
          ? { status: 200, body: 'x'.repeat(5_000_000) }
          : 'hang',
    )
    open.push(target)
    const redirected = await postWebhook(target.url, {}, '{}', { allowPrivate: true })
    expect(redirected.status).toBe(302)
    expect(target.received).toHaveLength(1)
    const big = await postWebhook(target.url, {}, '{}', { allowPrivate: true })
    expect(big.status).toBe(200)
    expect(big.response).toHaveLength(1024)
    const started = Date.now()
    const hung = await postWebhook(target.url, {}, '{}', { allowPrivate: true, timeoutMs: 300 })
    expect(hung).toEqual({ status: null, response: 'No answer within 300 ms.' })
    expect(Date.now() - started).toBeLessThan(3_000)
  })
})
