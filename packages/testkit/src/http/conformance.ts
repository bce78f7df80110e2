import type { LegacyDeveloperKeyPolicy, LimiterFactory } from '@keyward/core'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import type { HttpCase } from './case.js'
import { consoleCases } from './console-cases.js'
import { credentialCases } from './credential-cases.js'
import { creditCases } from './credit-cases.js'
import { endpointCases } from './endpoint-cases.js'
import { identityCases } from './identity-cases.js'
import { identityRoleCases } from './identity-role-cases.js'
import { lifecycleCases } from './lifecycle-cases.js'
import { responseChecker } from './openapi-check.js'
import { policyCases } from './policy-cases.js'
import { describeBodyFlood, describeProtection } from './protection-suite.js'
import { rateLimitCases } from './rate-limit-cases.js'
import { type RawRequest, type RawResponse, sendRaw } from './raw-client.js'
import { roleCases } from './role-cases.js'
import { strictBodyCases } from './strict-body-cases.js'
import { strictQueryCases } from './strict-query-cases.js'
import { verifyCases } from './verify-cases.js'
import {
  CONFORMANCE_MAX_LIFETIME_DAYS,
  type ConformanceApp,
  type ConformanceWorld,
  createConformanceWorld,
} from './world.js'

/** A running server of one adapter. */
export interface RunningServer {
  /** `http://127.0.0.1:PORT` */
  readonly origin: string
  close(): Promise<void>
}

/**
 * How the suite starts one adapter. `listen` serves `app` on 127.0.0.1 and an ephemeral port,
 * with the adapter's key routes (with `app.createProject` and `app.listProjects`), its error
 * handler, and these routes,
 * each answering 200 with the JSON `{"auth": <the attached context>}`:
 *
 * - `GET /conformance/developer`: require a developer key;
 * - `GET /conformance/projects/:project_id/owner`: require a developer key of the project's owner;
 * - `GET /conformance/projects/:project_id/project`: require an API key of the project;
 * - `GET /conformance/projects/:project_id/permitted`: require an API key of the project with the
 *   permission `reports:read` (`permissions: { allOf: ['reports:read'] }`);
 * - `POST /conformance/projects/:project_id/elevated`: require both;
 * - `GET /conformance/bearer`: require a bearer token verified by `app.verifyToken`, with
 *   `keyward: app.keyward` (its protection counts refused tokens);
 * - `GET /conformance/throws`: throws `app.failure` (a `KeywardError`) from the route.
 */
export interface HttpAdapterHarness {
  readonly name: string
  listen(app: ConformanceApp): Promise<RunningServer>
}

/** Options of {@link runHttpConformance}. */
export interface HttpConformanceOptions {
  /** The adapters under test. With more than one, their answers must be identical. */
  readonly adapters: readonly HttpAdapterHarness[]
  /**
   * Builds the counters of the protection sequence (throttle and key rate limits), e.g.
   * `(settings) => new RateLimiterMemory(settings)`. Without it, that sequence is skipped.
   */
  readonly limiter?: LimiterFactory
}

interface Target {
  readonly world: ConformanceWorld
  readonly server: RunningServer
}

const COMPARED_HEADERS = [
  'content-type',
  'www-authenticate',
  'cache-control',
  'retry-after',
  'x-credits-remaining',
  'connection',
] as const
const MASKED_FIELDS = new Set([
  'id',
  'key',
  'key_id',
  'key_prefix',
  'display',
  'keyPrefix',
  'next_cursor',
  'identity_id',
  'revoked_keys',
  'detached_keys',
  'detached_identities',
])

/**
 * A success body with its random fields (ids, keys, prefixes, cursors) masked, for comparison
 * across adapters. Arrays are compared as sets: items created in one instant are listed by their
 * random ids (each case checks the order on each adapter).
 */
function masked(value: unknown): unknown {
  if (Array.isArray(value)) {
    return value
      .map(masked)
      .map((item) => [JSON.stringify(item), item] as const)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([, item]) => item)
  }
  if (typeof value !== 'object' || value === null) return value
  return Object.fromEntries(
    Object.entries(value).map(([k, v]) => [
      k,
      !MASKED_FIELDS.has(k)
        ? masked(v)
        : typeof v === 'string'
          ? '<random>'
          : Array.isArray(v)
            ? v.map((item) => (typeof item === 'string' ? '<random>' : masked(item)))
            : masked(v),
    ]),
  )
}

/** The credentials a request presented: keys and tokens from headers and the query string. */
function presented(request: RawRequest): string[] {
  const values: string[] = []
  for (const [name, value] of request.headers ?? []) {
    const lower = name.toLowerCase()
    if (lower === 'x-api-key' || lower === 'x-developer-key') values.push(value.trim())
    if (lower === 'authorization') values.push(value.replace(/^\S+\s*/, ''))
  }
  const query = request.path.split('?')[1]
  for (const [, value] of new URLSearchParams(query ?? '')) values.push(value)
  return values
}

/** The body never carries `input`, a stack trace, or more than 8 characters of a presented credential. */
function expectNoLeak(response: RawResponse, request: RawRequest): void {
  expect(response.body).not.toMatch(/"input"|"stack"|\n\s+at |\.ts:\d+|node_modules/)
  for (const value of presented(request)) {
    for (let i = 0; i + 9 <= value.length; i++) {
      if (response.body.includes(value.slice(i, i + 9))) {
        throw new Error(`The response shows 9 characters of a presented credential: ${response.body}`)
      }
    }
  }
}

function checkExpectation(testCase: HttpCase, response: RawResponse, target: Target, eventsBefore: number) {
  const e = testCase.expect
  if ('refusedByServer' in e) {
    expect(response.status).toBe(e.refusedByServer)
    expect(target.world.events.length, 'Keyward must not run').toBe(eventsBefore)
    return
  }
  expect(response.status, response.body).toBe(e.status)
  if (!('type' in e)) return
  const body = JSON.parse(response.body)
  expect(Object.keys(body)).toEqual(['detail'])
  expect(body.detail).toHaveLength(1)
  const [detail] = body.detail
  expect(Object.keys(detail)).toEqual(['loc', 'msg', 'type'])
  expect(detail.type).toBe(e.type)
  if (e.loc) expect(detail.loc).toEqual(e.loc)
  if (e.msg) expect(detail.msg).toBe(e.msg)
  expect(typeof detail.msg === 'string' && detail.msg.length > 0).toBe(true)
  expect(response.headers['content-type']).toEqual(['application/json; charset=utf-8'])
  expect(response.headers['www-authenticate']).toEqual(e.challenge ? [e.challenge] : undefined)
  expect(response.headers['cache-control'], 'every error carries Cache-Control: no-store').toEqual([
    'no-store',
  ])
  if (response.status === 503) expect(response.headers['retry-after']?.[0]).toMatch(/^\d+$/)
}

/**
 * What must be identical across adapters: status, the compared headers, and the (masked) body.
 * A success of a `/conformance/` route is the host's own answer: its headers are the framework's.
 */
function comparable(testCase: HttpCase, request: RawRequest, response: RawResponse) {
  if ('refusedByServer' in testCase.expect) return { status: response.status }
  if (response.status < 400 && request.path.startsWith('/conformance/')) {
    return { status: response.status, body: masked(JSON.parse(response.body)) }
  }
  const headers = Object.fromEntries(COMPARED_HEADERS.map((h) => [h, response.headers[h]]))
  const body = response.status >= 400 ? response.body : masked(JSON.parse(response.body))
  return { status: response.status, headers, body }
}

/**
 * The HTTP conformance suite every Keyward adapter runs: real servers on 127.0.0.1, raw
 * requests (duplicate headers, NUL, non-ASCII bytes), every error type of the key checks,
 * every key-management endpoint and the verification endpoint, and no leak of a presented key in
 * any answer. With several
 * adapters, each request goes to all of them and their answers must be identical.
 *
 * @example
 * ```ts
 * runHttpConformance({ adapters: [expressHarness, fastifyHarness, honoHarness] })
 * ```
 */
export function runHttpConformance(options: HttpConformanceOptions): void {
  const { adapters, limiter } = options
  const names = adapters.map((a) => a.name).join(', ')

  describe(`HTTP adapter conformance: ${names}`, () => {
    const targets = new Map<string, Target>()
    // A world per adapter and legacy policy, and one whose API keys have a maximum lifetime.
    const key = (adapter: string, world: LegacyDeveloperKeyPolicy | 'max-lifetime') => `${adapter}/${world}`
    // Every answer of a documented operation must match Keyward's OpenAPI document.
    const checker = responseChecker()
    const checked = new Set<string>()

    beforeAll(async () => {
      for (const adapter of adapters) {
        for (const policy of ['reject', 'accept'] as const) {
          const world = await createConformanceWorld(policy)
          targets.set(key(adapter.name, policy), { world, server: await adapter.listen(world.app) })
        }
        const bounded = await createConformanceWorld('reject', undefined, undefined, {
          project: { maxLifetimeDays: CONFORMANCE_MAX_LIFETIME_DAYS },
        })
        targets.set(key(adapter.name, 'max-lifetime'), {
          world: bounded,
          server: await adapter.listen(bounded.app),
        })
      }
    })
    afterAll(async () => {
      for (const target of targets.values()) await target.server.close()
    })
    afterEach(() => {
      for (const target of targets.values()) target.world.setStoreDown(false)
    })

    for (const testCase of [
      ...credentialCases,
      ...endpointCases,
      ...lifecycleCases,
      ...policyCases,
      ...verifyCases,
      ...creditCases,
      ...rateLimitCases,
      ...strictBodyCases,
      ...strictQueryCases,
      ...consoleCases,
      ...identityCases,
      ...roleCases,
      ...identityRoleCases,
    ]) {
      it(testCase.name, async () => {
        const answers: Array<{ adapter: string; value: unknown }> = []
        for (const adapter of adapters) {
          const target = targets.get(
            key(adapter.name, testCase.maxLifetime ? 'max-lifetime' : (testCase.policy ?? 'reject')),
          )!
          const request = await testCase.request(target.world)
          const eventsBefore = target.world.events.length
          const response = await sendRaw(target.server.origin, request)
          checkExpectation(testCase, response, target, eventsBefore)
          const conformsTo = checker.check(request.method, request.path, response.status, response.body)
          if (conformsTo.documented) {
            expect(
              conformsTo.problems,
              `${conformsTo.operation} ${response.status}: ${response.body}`,
            ).toEqual([])
            checked.add(`${response.status} ${conformsTo.operation}`)
          }
          if (response.status >= 400) {
            expectNoLeak(response, request)
            if ('afterwards' in testCase.expect) await testCase.expect.afterwards?.(target.world)
          } else if ('check' in testCase.expect)
            await testCase.expect.check?.(JSON.parse(response.body), target.world, response.headers)
          target.world.setStoreDown(false)
          answers.push({ adapter: adapter.name, value: comparable(testCase, request, response) })
        }
        for (const answer of answers.slice(1)) {
          expect({ adapter: answer.adapter, answer: answer.value }).toEqual({
            adapter: answer.adapter,
            answer: answers[0]!.value,
          })
        }
      })
    }

    // Runs after the cases above: proof that their answers were checked, successes and errors.
    it('checked the answers of the key routes against the OpenAPI document', () => {
      const statuses = [...checked].map((answer) => answer[0])
      expect(statuses.filter((s) => s === '2').length, [...checked].join(', ')).toBeGreaterThan(4)
      expect(statuses.filter((s) => s === '4').length, [...checked].join(', ')).toBeGreaterThan(4)
    })
    describeProtection(adapters, limiter)
    describeBodyFlood(adapters)
  })
}
