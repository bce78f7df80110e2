import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { describe, expect, it } from 'vitest'
import { nodeRequestHeader } from './node-headers.js'

describe('nodeRequestHeader', () => {
  it('keeps every line of a repeated header on a real Node request', async () => {
    const seen: unknown[] = []
    const server = createServer((req, res) => {
      seen.push(nodeRequestHeader(req, 'authorization'), nodeRequestHeader(req, 'x-api-key'))
      seen.push(nodeRequestHeader(req, 'x-absent'), nodeRequestHeader(req, 'user-agent'))
      res.end()
    })
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    const { port } = server.address() as AddressInfo
    const { connect } = await import('node:net')
    await new Promise<void>((resolve) => {
      const socket = connect(port, '127.0.0.1', () =>
        socket.end(
          'GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\nUser-Agent: one\r\n' +
            'Authorization: Bearer a\r\nAuthorization: Bearer b\r\nX-API-Key: k1\r\nX-API-Key: k2\r\n\r\n',
        ),
      )
      socket.on('close', () => resolve())
      socket.resume()
    })
    server.close()
    expect(seen).toEqual([['Bearer a', 'Bearer b'], 'k1, k2', undefined, ['one']])
  })

  it('reads plain objects without headersDistinct', () => {
    expect(nodeRequestHeader({ headers: { authorization: 'Bearer a' } }, 'authorization')).toBe('Bearer a')
  })
})
