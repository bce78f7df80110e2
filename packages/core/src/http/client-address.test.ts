import { describe, expect, it } from 'vitest'
import { clientAddress } from './client-address.js'
import type { KeywardRequest } from './types.js'

const request = (headers: Record<string, string | string[]>, address = '10.0.0.1'): KeywardRequest => ({
  method: 'GET',
  url: '/',
  params: {},
  header: (name) => headers[name],
  address,
})

describe('clientAddress', () => {
  it('is the socket address unless a proxy header is trusted', () => {
    expect(clientAddress(request({ 'x-forwarded-for': '192.0.2.1' }))).toBe('10.0.0.1')
  })

  it('takes the address `hops` from the right of X-Forwarded-For, lines joined', () => {
    const r = request({ 'x-forwarded-for': ['1.1.1.1, 192.0.2.1', '172.16.0.1'] })
    expect(clientAddress(r, { header: 'x-forwarded-for' })).toBe('172.16.0.1')
    expect(clientAddress(r, { header: 'x-forwarded-for', hops: 2 })).toBe('192.0.2.1')
    expect(clientAddress(r, { header: 'x-forwarded-for', hops: 9 })).toBe('1.1.1.1')
  })

  it('reads the for= parameters of Forwarded (RFC 7239), without quotes, brackets or port', () => {
    const r = request({ forwarded: 'for=1.1.1.1;proto=https, for="[2001:db8::1]:4711", for=192.0.2.3:80' })
    expect(clientAddress(r, { header: 'forwarded' })).toBe('192.0.2.3')
    expect(clientAddress(r, { header: 'forwarded', hops: 2 })).toBe('2001:db8::1')
  })

  it('falls back to the socket address when the trusted header is absent or empty', () => {
    expect(clientAddress(request({}), { header: 'x-real-ip' })).toBe('10.0.0.1')
    expect(clientAddress(request({ 'x-real-ip': ' , ' }), { header: 'x-real-ip' })).toBe('10.0.0.1')
    expect(clientAddress(request({ 'x-real-ip': '192.0.2.4' }), { header: 'x-real-ip' })).toBe('192.0.2.4')
  })
})
