// A receiver on 127.0.0.1 for the tests: it records each request (headers and body) and answers
// with what `answer` says for it (a status, a body, or `hang`: no answer at all).
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'

export interface Received {
  readonly headers: IncomingHttpHeaders
  readonly body: string
}

export type Answer = { status: number; body?: string; headers?: Record<string, string> } | 'hang'

export async function receiver(
  answer: (request: Received, index: number) => Answer = () => ({ status: 204 }),
) {
  const received: Received[] = []
  const server: Server = createServer((request, response) => {
    const chunks: Buffer[] = []
    request.on('data', (chunk: Buffer) => chunks.push(chunk))
    request.on('end', () => {
      const got = { headers: request.headers, body: Buffer.concat(chunks).toString('utf8') }
      received.push(got)
      const what = answer(got, received.length - 1)
      if (what === 'hang') return
      response.writeHead(what.status, what.headers ?? {})
      response.end(what.body ?? '')
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  return {
    url: `http://127.0.0.1:${port}/hooks`,
    port,
    received,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      }),
  }
}
