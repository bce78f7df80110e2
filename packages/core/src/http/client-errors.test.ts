import { describe, expect, it } from 'vitest'
import { answerConnect, clientErrorResponse, requestTargetProblem } from './client-errors.js'

describe('requestTargetProblem', () => {
  it('lets through the targets and Host headers a route can take', () => {
    for (const [target, host] of [
      ['/api/v1/projects?q=a\\b', 'example.com'],
      ['/healthz', 'EXAMPLE.com:443'],
      ['/', '127.0.0.1:3000'],
      ['/', '[::1]:3000'],
      ['/', undefined],
      ['/', ''],
      ['http://example.com/healthz', 'example.com'],
    ] as const) {
      expect(requestTargetProblem(target, host)).toBeUndefined()
    }
  })

  it('names what no route can take, answered 400 request_invalid in the error format, closing', () => {
    const cases: Array<[string, string, string]> = [
      ['/healthz', 'user@127.0.0.1', 'KEYWARD_INVALID_HOST'],
      ['/healthz', 'exa mple', 'KEYWARD_INVALID_HOST'],
      ['/api\\v1/audit', 'x', 'KEYWARD_BACKSLASH_PATH'],
      ['*', 'x', 'KEYWARD_ASTERISK_TARGET'],
    ]
    for (const [target, host, code] of cases) {
      expect(requestTargetProblem(target, host)).toBe(code)
      const { status, headers, body } = clientErrorResponse({ code })
      expect([status, headers['cache-control'], headers.connection]).toEqual([400, 'no-store', 'close'])
      expect(JSON.parse(body)).toEqual({
        detail: [
          {
            loc: [],
            msg: expect.stringMatching(/^The (Host header|request path|request target)/),
            type: 'request_invalid',
          },
        ],
      })
    }
  })
})

describe('answerConnect', () => {
  it('answers 405 method_not_allowed in the error format and closes', () => {
    let written = ''
    let destroyed = false
    answerConnect(undefined, {
      writable: true,
      end: (data: string) => {
        written = data
      },
      destroy: () => {
        destroyed = true
      },
    })
    const [head = '', body = ''] = written.split('\r\n\r\n')
    expect(head.split('\r\n')).toEqual(
      expect.arrayContaining([
        'HTTP/1.1 405 Method Not Allowed',
        'cache-control: no-store',
        'connection: close',
      ]),
    )
    expect(JSON.parse(body)).toEqual({
      detail: [{ loc: [], msg: 'CONNECT is not served here: this is no proxy.', type: 'method_not_allowed' }],
    })
    expect(destroyed).toBe(false) // ended now, destroyed a moment later
  })
})
