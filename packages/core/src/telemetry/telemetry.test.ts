import { createHash } from 'node:crypto'
import { trace } from '@opentelemetry/api'
import {
  AlwaysOffSampler,
  BasicTracerProvider,
  InMemorySpanExporter,
  type ReadableSpan,
  SimpleSpanProcessor,
} from '@opentelemetry/sdk-trace-base'
import { describe, expect, expectTypeOf, it } from 'vitest'
import { projectGuard } from '../http/guards.js'
import type { KeywardRequest } from '../http/types.js'
import { createKeyward, type Keyward } from '../service/keyward.js'
import type { KeywardOptions } from '../service/options.js'
import { MemoryKeyStore } from '../store/memory.js'
import { traceStoreCalls } from './spans.js'
import type { TelemetryTracerProvider } from './types.js'

// A tracer provider of the SDK whose spans end in memory, as the host's exporter would get them.
function tracing() {
  const exporter = new InMemorySpanExporter()
  const tracerProvider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] })
  return { tracerProvider, exporter, spans: () => exporter.getFinishedSpans() }
}

const ADDRESS = '203.0.113.7'
const SECRET_METADATA = 'metadata-that-must-stay-out'

function world(options: Partial<KeywardOptions> & { recordClientAddress?: boolean } = {}) {
  const { recordClientAddress, ...rest } = options
  const traces = tracing()
  const store = (rest.store as MemoryKeyStore | undefined) ?? new MemoryKeyStore()
  const keyward = createKeyward({
    store,
    permissions: ['reports:read', 'reports:write'],
    projectOwner: (projectId) => (projectId === 'p1' ? 'dev-1' : null),
    ...rest,
    telemetry: {
      tracerProvider: traces.tracerProvider,
      ...(recordClientAddress === undefined ? {} : { recordClientAddress }),
    },
  })
  return { ...traces, keyward, store }
}

const attributesOf = (span: ReadableSpan | undefined) => ({ ...span?.attributes })
const verifications = (spans: readonly ReadableSpan[]) =>
  spans.filter((span) => span.name === 'keyward.verify')
const refusal = (promise: Promise<unknown>) =>
  promise.then(
    () => 'accepted',
    () => 'refused',
  )

const request = (key: string, projectId = 'p1'): KeywardRequest => ({
  method: 'GET',
  url: `/projects/${projectId}/reports`,
  params: { project_id: projectId },
  address: ADDRESS,
  header: (name) => (name === 'x-api-key' ? key : undefined),
})

describe('verification spans', () => {
  it('accepted, from the store then from the cache: scope, outcome, key, project, cached, store time', async () => {
    const { keyward, spans, exporter } = world({ cache: {} })
    const { key, record } = await keyward.issueProjectKey('p1', { metadata: { plan: SECRET_METADATA } })
    const requirement = { scope: 'project', projectId: 'p1' } as const
    await keyward.authenticate({ projectKey: key, address: ADDRESS }, requirement)
    await keyward.authenticate({ projectKey: key, address: ADDRESS }, requirement)
    const [fromStore, fromCache] = verifications(spans())
    expect(fromStore?.kind).toBe(0)
    const cachedAccepted = {
      'keyward.verification.scope': 'project',
      'keyward.verification.outcome': 'accepted',
      'keyward.verification.cached': true,
      'keyward.key.id': record.id,
      'keyward.key.prefix': record.keyPrefix,
      'keyward.project.id': 'p1',
    }
    expect(attributesOf(fromStore)).toEqual({
      ...cachedAccepted,
      'keyward.verification.cached': false,
      'keyward.verification.store_ms': expect.any(Number),
    })
    expect(attributesOf(fromCache)).toEqual(cachedAccepted)
    expect(fromStore?.status.code).toBe(0)

    // The guards' synchronous way: a span when the cache answers, none when it does not.
    exporter.reset()
    const guard = projectGuard(keyward)
    expect(guard.now?.(request(key))).toMatchObject({ ok: true })
    const unknown = `ak_${'Z'.repeat(32)}`
    expect(guard.now?.(request(unknown))).toBeUndefined()
    expect(spans().map((span) => span.name)).toEqual(['keyward.verify'])
    const [now] = spans()
    expect(attributesOf(now)).toEqual(cachedAccepted)
    const [start, end] = [now!.startTime, now!.endTime]
    expect(end[0] * 1e9 + end[1]).toBeGreaterThanOrEqual(start[0] * 1e9 + start[1])

    // A refusal the cache answers: its record is read again for the reason.
    await keyward.deactivateKey(record.id)
    expect(await refusal(keyward.authenticate({ projectKey: key }, requirement))).toBe('refused')
    exporter.reset()
    expect(guard.now?.(request(key))).toMatchObject({ ok: false })
    expect(attributesOf(spans()[0])).toEqual({
      ...cachedAccepted,
      'keyward.verification.outcome': 'inactive_key',
    })
  })

  it('refusals carry the precise reason, and the prefix only of a well-formed key', async () => {
    let clock = new Date('2030-01-01T00:00:00Z')
    const { keyward, spans } = world({ now: () => clock })
    const { key, record } = await keyward.issueProjectKey('p1', { permissions: ['reports:read'] })
    const inactive = await keyward.issueProjectKey('p1')
    await keyward.deactivateKey(inactive.record.id)
    const expiring = await keyward.issueProjectKey('p1', { expiresInDays: 1 })
    const other = await keyward.issueProjectKey('p2')
    const developer = await keyward.issueDeveloperKey('dev-2')
    const unknown = `ak_${'Q'.repeat(32)}`
    clock = new Date('2030-01-03T00:00:00Z')

    const project = (projectKey: string, more: object = {}) =>
      refusal(keyward.authenticate({ projectKey }, { scope: 'project', projectId: 'p1', ...more }))
    await project(unknown)
    await project(inactive.key)
    await project(expiring.key)
    await project(`${key.slice(0, 20)}!`)
    await project('')
    await project(developer.key)
    await project(other.key)
    await project(key, { permissions: { allOf: ['reports:write'] } })
    await refusal(
      keyward.authenticate({ developerKey: developer.key }, { scope: 'developer', projectId: 'p1' }),
    )
    await refusal(keyward.verifyApiKey({ projectKey: key }, { developerId: 'dev-9' }))

    const outcomes = verifications(spans()).map((span) => {
      const { 'keyward.verification.outcome': outcome, 'keyward.key.prefix': prefix } = span.attributes
      return [outcome, prefix ?? null, span.attributes['keyward.key.id'] ?? null]
    })
    expect(outcomes).toEqual([
      ['unknown_key', unknown.slice(0, 8), null],
      ['inactive_key', inactive.record.keyPrefix, inactive.record.id],
      ['expired_key', expiring.record.keyPrefix, expiring.record.id],
      ['malformed', null, null],
      ['missing', null, null],
      ['wrong_type', developer.record.keyPrefix, developer.record.id],
      ['project_mismatch', other.record.keyPrefix, other.record.id],
      ['permission_denied', record.keyPrefix, record.id],
      ['not_project_owner', developer.record.keyPrefix, developer.record.id],
      ['not_project_owner', record.keyPrefix, record.id],
    ])
    const mismatch = verifications(spans())[6]!
    // The key's own project, not the one asked for, and no error: a refusal is an answer.
    expect(mismatch.attributes['keyward.project.id']).toBe('p2')
    expect(mismatch.status.code).toBe(0)
    expect(verifications(spans()).every((span) => span.attributes['error.type'] === undefined)).toBe(true)
    const wrongType = verifications(spans())[5]!
    expect(wrongType.attributes).toMatchObject({
      'keyward.developer.id': 'dev-2',
      'keyward.project.id': 'p1',
    })
  })

  it('developer and elevated scopes name the developer, and the elevated one both keys', async () => {
    const { keyward, spans } = world()
    const developer = await keyward.issueDeveloperKey('dev-1')
    const project = await keyward.issueProjectKey('p1')
    await keyward.authenticate({ developerKey: developer.key }, { scope: 'developer' })
    await keyward.authenticate(
      { developerKey: developer.key, projectKey: project.key },
      { scope: 'elevated', projectId: 'p1' },
    )
    const [alone, elevated] = verifications(spans())
    expect(attributesOf(alone)).toMatchObject({
      'keyward.verification.scope': 'developer',
      'keyward.key.prefix': developer.record.keyPrefix,
      'keyward.developer.id': 'dev-1',
    })
    expect(attributesOf(alone)['keyward.project.id']).toBeUndefined()
    expect(attributesOf(elevated)).toMatchObject({
      'keyward.verification.scope': 'elevated',
      'keyward.verification.outcome': 'accepted',
      'keyward.key.prefix': project.record.keyPrefix,
      'keyward.developer_key.prefix': developer.record.keyPrefix,
      'keyward.developer.id': 'dev-1',
      'keyward.project.id': 'p1',
      'keyward.verification.cached': false,
    })
  })

  it('a store that fails: outcome store_unavailable, error.type and an error status', async () => {
    const store = new MemoryKeyStore()
    const { keyward, spans } = world({ store })
    const { key } = await keyward.issueProjectKey('p1')
    store.findKeyByHash = () => Promise.reject(Object.assign(new Error('down'), { code: 'ECONNREFUSED' }))
    expect(await refusal(keyward.authenticate({ projectKey: key }, { scope: 'project' }))).toBe('refused')
    const [span] = verifications(spans())
    expect(attributesOf(span)).toMatchObject({
      'keyward.verification.outcome': 'store_unavailable',
      'keyward.verification.cached': false,
      'keyward.verification.store_ms': expect.any(Number),
      'keyward.key.prefix': key.slice(0, 8),
      'error.type': 'store_unavailable',
    })
    expect(span?.status.code).toBe(2)
    expect(span?.status.message).toBeUndefined()
  })

  it('a call that throws, not a refusal: outcome error, error.type the class', async () => {
    const { keyward, spans } = world()
    const bogus = { scope: 'owner' } as never
    expect(await refusal(keyward.authenticate({}, bogus))).toBe('refused')
    const [span] = verifications(spans())
    expect(attributesOf(span)).toEqual({
      'keyward.verification.scope': 'owner',
      'keyward.verification.outcome': 'error',
      'error.type': 'TypeError',
    })
    expect(span?.status.code).toBe(2)
  })

  it('the client address only when the host allows it', async () => {
    for (const recordClientAddress of [undefined, false, true]) {
      const { keyward, spans } = world({ recordClientAddress })
      const { key } = await keyward.issueProjectKey('p1')
      await keyward.authenticate({ projectKey: key, address: ADDRESS }, { scope: 'project' })
      expect(verifications(spans())[0]?.attributes['client.address']).toBe(
        recordClientAddress ? ADDRESS : undefined,
      )
    }
  })
})

describe('spans left out', () => {
  it('by the sampler (or with no SDK): verifications and leases answer as before, and nothing is noted', async () => {
    const exporter = new InMemorySpanExporter()
    const tracerProvider = new BasicTracerProvider({
      sampler: new AlwaysOffSampler(),
      spanProcessors: [new SimpleSpanProcessor(exporter)],
    })
    for (const provider of [tracerProvider, trace.getTracerProvider()]) {
      const keyward = createKeyward({
        store: new MemoryKeyStore(),
        cache: {},
        telemetry: { tracerProvider: provider },
      })
      const { key, record } = await keyward.issueProjectKey('p1')
      const metered = await keyward.issueProjectKey('p1', { remaining: 5 })
      const auth = await keyward.authenticate({ projectKey: key }, { scope: 'project', projectId: 'p1' })
      expect(auth).toMatchObject({ projectId: 'p1', projectKey: { id: record.id } })
      expect(projectGuard(keyward).now?.(request(key))).toMatchObject({ ok: true })
      expect(await projectGuard(keyward, { cost: 2 })(request(metered.key))).toMatchObject({
        ok: true,
        headers: { 'x-credits-remaining': '3' },
      })
      expect(
        await refusal(keyward.authenticate({ projectKey: key }, { scope: 'project', projectId: 'p2' })),
      ).toBe('refused')
    }
    expect(exporter.getFinishedSpans()).toEqual([])
  })
})

describe('credit lease spans', () => {
  it('name the key, the credits asked for and granted, and those left', async () => {
    const { keyward, spans } = world()
    const { key, record } = await keyward.issueProjectKey('p1', { remaining: 10 })
    const guard = projectGuard(keyward, { cost: 3 })
    expect(await guard(request(key))).toMatchObject({ ok: true })
    const leases = spans().filter((span) => span.name === 'keyward.credits.lease')
    expect(leases.length).toBeGreaterThanOrEqual(1)
    expect(attributesOf(leases[0])).toEqual({
      'keyward.key.id': record.id,
      'keyward.key.prefix': record.keyPrefix,
      'keyward.credits.requested': 3,
      'keyward.credits.needed': 3,
      'keyward.credits.granted': 3,
      'keyward.credits.remaining': 7,
    })
  })

  it('a lease the store fails is marked failed', async () => {
    const store = new MemoryKeyStore()
    store.leaseCredits = () => Promise.reject(new Error('down'))
    const { keyward, spans } = world({ store })
    const { key } = await keyward.issueProjectKey('p1', { remaining: 10 })
    const result = await projectGuard(keyward, { cost: 1 })(request(key))
    expect(result.ok).toBe(false)
    const [lease] = spans().filter((span) => span.name === 'keyward.credits.lease')
    expect(lease?.status.code).toBe(2)
    expect(lease?.attributes['error.type']).toBe('Error')
  })
})

/** Every string a span carries: its name, attribute values, events' names and attributes. */
function spanTexts(spans: readonly ReadableSpan[]): string[] {
  const texts: string[] = []
  const add = (attributes: Record<string, unknown> | undefined) => {
    for (const [name, value] of Object.entries(attributes ?? {})) {
      texts.push(name)
      for (const item of Array.isArray(value) ? value : [value]) texts.push(String(item))
    }
  }
  for (const span of spans) {
    texts.push(span.name, span.status.message ?? '')
    add(span.attributes)
    for (const event of span.events) {
      texts.push(event.name)
      add(event.attributes)
    }
  }
  return texts
}

/**
 * What of a key or its hash a span's text gives away: more of the key than its 8-character
 * prefix (any 10 characters of its random part), or its hash in hex, base64 or base64url.
 */
function leaks(spans: readonly ReadableSpan[], keys: readonly string[], others: readonly string[]): string[] {
  const found: string[] = []
  const texts = spanTexts(spans)
  for (const key of keys) {
    const digest = createHash('sha256').update(key).digest()
    const secrets = [digest.toString('hex'), digest.toString('base64'), digest.toString('base64url')]
    for (let i = 3; i + 10 <= key.length; i++) secrets.push(key.slice(i, i + 10))
    for (const secret of secrets) if (texts.some((text) => text.includes(secret))) found.push(secret)
  }
  for (const other of others) if (texts.some((text) => text.includes(other))) found.push(other)
  return found
}

describe('no span carries a key, a hash, metadata or an address', () => {
  it('the check finds each of them when one is planted', async () => {
    const { tracerProvider, spans } = tracing()
    const tracer = tracerProvider.getTracer('test')
    const key = `ak_${'k'.repeat(16)}${'Z'.repeat(16)}`
    const hex = createHash('sha256').update(key).digest('hex')
    const base64url = createHash('sha256').update(key).digest('base64url')
    for (const value of [key, `x${key.slice(5, 17)}`, hex, base64url, ADDRESS, SECRET_METADATA]) {
      tracer.startSpan('planted', { attributes: { value } }).end()
    }
    const withEvent = tracer.startSpan('event')
    withEvent.addEvent('e', { hash: hex })
    withEvent.end()
    const planted = spans()
    expect(planted).toHaveLength(7)
    for (const span of planted) expect(leaks([span], [key], [ADDRESS, SECRET_METADATA])).not.toEqual([])
  })

  it('after verifications of every outcome, credit leases and store calls', async () => {
    const { tracerProvider, spans } = tracing()
    // The memory store traced too, as a database store traces itself.
    const store = traceStoreCalls(
      new MemoryKeyStore(),
      { tracerProvider },
      {
        scope: 'test',
        system: 'other_sql',
        operations: { findKeyByHash: 'api_keys', leaseCredits: 'api_keys', insertKey: 'api_keys' },
      },
    )
    const keyward = createKeyward({ store, cache: {}, telemetry: { tracerProvider } })
    const keys: string[] = []
    const issue = async (make: (k: Keyward) => Promise<{ key: string }>) => {
      const { key } = await make(keyward)
      keys.push(key)
      return key
    }
    const metered = await issue((k) =>
      k.issueProjectKey('p1', { remaining: 5, metadata: { plan: SECRET_METADATA } }),
    )
    const plain = await issue((k) => k.issueProjectKey('p1', { ipAllowlist: ['198.51.100.0/24'] }))
    const developer = await issue((k) => k.issueDeveloperKey('dev-1'))
    const unknown = `ak_${'u'.repeat(32)}`
    keys.push(unknown)
    const guard = projectGuard(keyward, { cost: 1 })
    for (let i = 0; i < 3; i++) {
      await guard(request(metered))
      guard.now?.(request(metered))
      await guard(request(plain))
      await guard(request(unknown))
      await guard(request(developer))
      await guard(request(`${metered.slice(0, 30)}`))
    }
    await refusal(
      keyward.authenticate(
        { developerKey: developer, projectKey: metered },
        { scope: 'elevated', projectId: 'p1' },
      ),
    )
    await refusal(keyward.verifyApiKey({ projectKey: plain, address: ADDRESS }, {}))
    const all = spans()
    expect(new Set(all.map((span) => span.name))).toEqual(
      new Set([
        'keyward.verify',
        'keyward.credits.lease',
        'insertKey api_keys',
        'findKeyByHash api_keys',
        'leaseCredits api_keys',
      ]),
    )
    expect(leaks(all, keys, [ADDRESS, SECRET_METADATA])).toEqual([])
  })
})

describe('the option', () => {
  it('takes the API\u2019s tracer provider, as the host has it', () => {
    expectTypeOf(trace.getTracerProvider()).toExtend<TelemetryTracerProvider>()
    expectTypeOf(new BasicTracerProvider()).toExtend<TelemetryTracerProvider>()
  })

  it('is checked when the service is built, naming what is wrong', () => {
    const store = new MemoryKeyStore()
    const build = (telemetry: unknown) => () => createKeyward({ store, telemetry } as KeywardOptions)
    expect(build({})).toThrow(/option `telemetry` must be \{ tracerProvider \}/)
    expect(build({ tracerProvider: {} })).toThrow(/option `telemetry` must be/)
    expect(build({ tracerProvider: tracing().tracerProvider, recordClientAddress: 'yes' })).toThrow(
      /`telemetry.recordClientAddress` must be a boolean/,
    )
    expect(build({ tracerProvider: tracing().tracerProvider, recordClientAdress: true })).toThrow(
      /recordClientAdress/,
    )
  })
})
