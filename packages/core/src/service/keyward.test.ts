import fc from 'fast-check'
import { beforeEach, describe, expect, it, vi } from 'vitest'
import { KeywardError } from '../errors/error.js'
import { ErrorType } from '../errors/types.js'
import { KEY_ALPHABET } from '../key/constants.js'
import { generateKey } from '../key/generate.js'
import { MemoryKeyStore } from '../store/memory.js'
import { rejection } from '../test/rejection.js'
import type { KeywardEvent } from './events.js'
import { createKeyward } from './keyward.js'
import type { KeywardOptions } from './options.js'

const owners: Record<string, string> = { proj_a: 'dev_a', proj_b: 'dev_b' }

function setup(extra: Partial<KeywardOptions> = {}) {
  const store = new MemoryKeyStore()
  const events: KeywardEvent[] = []
  const keyward = createKeyward({
    store,
    projectOwner: (projectId) => owners[projectId] ?? null,
    onEvent: (event) => events.push(event),
    ...extra,
  })
  return { store, keyward, events }
}

describe('createKeyward', () => {
  it('checks its options once, naming the option', () => {
    expect(() => createKeyward({} as KeywardOptions)).toThrow(/option `store`/)
    const store = new MemoryKeyStore()
    expect(() => createKeyward({ store, developerKeyLimit: 0 })).toThrow(/`developerKeyLimit`/)
    expect(() => createKeyward({ store, developerKeyLimit: 2.5 })).toThrow(/`developerKeyLimit`/)
    expect(() => createKeyward({ store, legacyDeveloperKeys: 'maybe' as 'accept' })).toThrow(
      /`legacyDeveloperKeys`/,
    )
    expect(() => createKeyward({ store, onEvent: 'log' as never })).toThrow(/`onEvent`/)
  })
})

describe('issuing keys', () => {
  it('returns the full key once and stores only its hash and prefix', async () => {
    const { keyward, store } = setup()
    const { key, record } = await keyward.issueDeveloperKey('dev_a', { name: 'laptop' })
    expect(key).toMatch(/^ak_[A-Za-z0-9_-]{32}$/)
    expect(record).toMatchObject({
      ownerType: 'developer',
      ownerId: 'dev_a',
      name: 'laptop',
      active: true,
      keyPrefix: key.slice(0, 8),
    })
    expect(record.hash).toMatch(/^[0-9a-f]{64}$/)
    expect(JSON.stringify(await store.findKeyById(record.id))).not.toContain(key.slice(3))
  })

  it('allows 10 active developer keys, then answers limit_exceeded, and counts only active keys', async () => {
    const { keyward, events } = setup()
    const issued = []
    for (let i = 0; i < 10; i++) issued.push(await keyward.issueDeveloperKey('dev_a'))
    expect(await rejection(keyward.issueDeveloperKey('dev_a'))).toMatchObject({
      type: 'limit_exceeded',
      status: 409,
    })
    expect(events.at(-1)).toEqual({
      type: 'key.limit_exceeded',
      ownerType: 'developer',
      ownerId: 'dev_a',
      activeLimit: 10,
    })
    await keyward.deactivateKey(issued[0]!.record.id)
    await keyward.issueDeveloperKey('dev_a')
    expect(await rejection(keyward.activateKey(issued[0]!.record.id))).toMatchObject({
      type: 'limit_exceeded',
    })
    await keyward.issueDeveloperKey('dev_b')
  })

  it('honours a configured limit and leaves project keys unlimited', async () => {
    const { keyward } = setup({ developerKeyLimit: 2 })
    await keyward.issueDeveloperKey('dev_a')
    await keyward.issueDeveloperKey('dev_a')
    expect(await rejection(keyward.issueDeveloperKey('dev_a'))).toMatchObject({ type: 'limit_exceeded' })
    for (let i = 0; i < 30; i++) await keyward.issueProjectKey('proj_a')
    expect(await keyward.listKeys({ type: 'project', id: 'proj_a' })).toHaveLength(30)
  })

  it('validates names as 1 to 100 characters', async () => {
    const { keyward } = setup()
    expect(await rejection(keyward.issueProjectKey('proj_a', { name: '' }))).toMatchObject({
      type: 'string_too_short',
      status: 422,
      loc: ['body', 'name'],
    })
    expect(await rejection(keyward.issueProjectKey('proj_a', { name: 'x'.repeat(101) }))).toMatchObject({
      type: 'string_too_long',
    })
    expect(await rejection(keyward.issueProjectKey('proj_a', { name: 5 as never }))).toMatchObject({
      type: 'string_type',
    })
    expect((await keyward.issueProjectKey('proj_a', { name: 'x'.repeat(100) })).record.name).toHaveLength(100)
  })
})

describe('authenticate', () => {
  let ctx: ReturnType<typeof setup>
  let devA: string
  let devB: string
  let projA: string
  let projB: string
  beforeEach(async () => {
    ctx = setup()
    devA = (await ctx.keyward.issueDeveloperKey('dev_a')).key
    devB = (await ctx.keyward.issueDeveloperKey('dev_b')).key
    projA = (await ctx.keyward.issueProjectKey('proj_a')).key
    projB = (await ctx.keyward.issueProjectKey('proj_b')).key
    ctx.events.length = 0
  })

  it('refuses unknown and inactive keys with one shared, frozen error per header: a flood allocates no error', async () => {
    const { record } = await ctx.keyward.issueProjectKey('proj_a')
    await ctx.keyward.deactivateKey(record.id)
    const refusal = (
      credentials: Parameters<typeof ctx.keyward.authenticate>[0],
      scope: 'project' | 'developer',
    ) =>
      ctx.keyward.authenticate(credentials, { scope, projectId: 'proj_a' }).then(
        () => expect.unreachable(),
        (error: unknown) => error,
      )
    const unknown = await refusal({ projectKey: generateKey() }, 'project')
    expect(await refusal({ projectKey: generateKey() }, 'project')).toBe(unknown)
    expect(Object.isFrozen(unknown)).toBe(true)
    expect(Object.isFrozen((unknown as { details: object[] }).details[0])).toBe(true)
    expect(unknown).toMatchObject({ type: 'key_invalid', loc: ['header', 'x-api-key'] })
    const developer = await refusal({ developerKey: generateKey() }, 'developer')
    expect(developer).not.toBe(unknown)
    expect(developer).toMatchObject({ type: 'key_invalid', loc: ['header', 'x-developer-key'] })
  })

  it('returns a typed context for each requirement', async () => {
    const dev = await ctx.keyward.authenticate({ developerKey: devA }, { scope: 'developer' })
    expect(dev).toEqual({
      scope: 'developer',
      developerId: 'dev_a',
      developerKey: { id: expect.any(String), keyPrefix: devA.slice(0, 8) },
    })
    const owner = await ctx.keyward.authenticate(
      { developerKey: devA },
      { scope: 'developer', projectId: 'proj_a' },
    )
    expect(owner).toMatchObject({ scope: 'developer', developerId: 'dev_a', projectId: 'proj_a' })
    const project = await ctx.keyward.authenticate(
      { projectKey: projA },
      { scope: 'project', projectId: 'proj_a' },
    )
    expect(project).toMatchObject({
      scope: 'project',
      projectId: 'proj_a',
      projectKey: { keyPrefix: projA.slice(0, 8) },
    })
    const elevated = await ctx.keyward.authenticate(
      { developerKey: devA, projectKey: projA },
      { scope: 'elevated', projectId: 'proj_a' },
    )
    expect(elevated).toMatchObject({ scope: 'elevated', developerId: 'dev_a', projectId: 'proj_a' })
  })

  const cases: [string, () => Promise<unknown>, { type: string; status: number; loc: string[] }][] = [
    [
      'no developer key',
      () => ctx.keyward.authenticate({}, { scope: 'developer' }),
      { type: 'key_missing', status: 401, loc: ['header', 'x-developer-key'] },
    ],
    [
      'no API key',
      () => ctx.keyward.authenticate({ developerKey: devA }, { scope: 'project', projectId: 'proj_a' }),
      { type: 'key_missing', status: 401, loc: ['header', 'x-api-key'] },
    ],
    [
      'a short key',
      () => ctx.keyward.authenticate({ projectKey: 'ak_123' }, { scope: 'project', projectId: 'proj_a' }),
      { type: 'key_malformed', status: 401, loc: ['header', 'x-api-key'] },
    ],
    [
      'a legacy key',
      () => ctx.keyward.authenticate({ developerKey: `dk_${'a'.repeat(32)}` }, { scope: 'developer' }),
      { type: 'key_legacy_prefix', status: 401, loc: ['header', 'x-developer-key'] },
    ],
    [
      'an unknown key',
      () =>
        ctx.keyward.authenticate({ projectKey: generateKey() }, { scope: 'project', projectId: 'proj_a' }),
      { type: 'key_invalid', status: 401, loc: ['header', 'x-api-key'] },
    ],
    [
      'a developer key as API key',
      () => ctx.keyward.authenticate({ projectKey: devA }, { scope: 'project', projectId: 'proj_a' }),
      { type: 'key_wrong_type', status: 401, loc: ['header', 'x-api-key'] },
    ],
    [
      'an API key as developer key',
      () => ctx.keyward.authenticate({ developerKey: projA }, { scope: 'developer' }),
      { type: 'key_wrong_type', status: 401, loc: ['header', 'x-developer-key'] },
    ],
    [
      'a key of another project',
      () => ctx.keyward.authenticate({ projectKey: projB }, { scope: 'project', projectId: 'proj_a' }),
      { type: 'project_mismatch', status: 403, loc: ['header', 'x-api-key'] },
    ],
    [
      'a developer who does not own the project',
      () => ctx.keyward.authenticate({ developerKey: devB }, { scope: 'developer', projectId: 'proj_a' }),
      { type: 'not_project_owner', status: 403, loc: ['header', 'x-developer-key'] },
    ],
    [
      'a project that does not exist',
      () => ctx.keyward.authenticate({ developerKey: devA }, { scope: 'developer', projectId: 'proj_zz' }),
      { type: 'not_found', status: 404, loc: ['path', 'project_id'] },
    ],
    [
      'elevated without the API key',
      () => ctx.keyward.authenticate({ developerKey: devA }, { scope: 'elevated', projectId: 'proj_a' }),
      { type: 'key_missing', status: 401, loc: ['header', 'x-api-key'] },
    ],
    [
      'elevated without the developer key',
      () => ctx.keyward.authenticate({ projectKey: projA }, { scope: 'elevated', projectId: 'proj_a' }),
      { type: 'key_missing', status: 401, loc: ['header', 'x-developer-key'] },
    ],
    [
      'elevated by a non-owner with a key of that project',
      () =>
        ctx.keyward.authenticate(
          { developerKey: devB, projectKey: projA },
          { scope: 'elevated', projectId: 'proj_a' },
        ),
      { type: 'not_project_owner', status: 403, loc: ['header', 'x-developer-key'] },
    ],
    [
      'elevated with a key of another project',
      () =>
        ctx.keyward.authenticate(
          { developerKey: devA, projectKey: projB },
          { scope: 'elevated', projectId: 'proj_a' },
        ),
      { type: 'project_mismatch', status: 403, loc: ['header', 'x-api-key'] },
    ],
  ]
  for (const [name, run, expected] of cases) {
    it(`refuses ${name} with ${expected.type}`, async () => {
      expect(await rejection(run())).toMatchObject(expected)
    })
  }

  it('answers an inactive key exactly as an unknown one, and tells the hook which it was', async () => {
    const issued = await ctx.keyward.issueProjectKey('proj_a')
    await ctx.keyward.deactivateKey(issued.record.id)
    ctx.events.length = 0
    const inactive = await rejection(
      ctx.keyward.authenticate({ projectKey: issued.key }, { scope: 'project', projectId: 'proj_a' }),
    )
    const unknown = await rejection(
      ctx.keyward.authenticate({ projectKey: generateKey() }, { scope: 'project', projectId: 'proj_a' }),
    )
    expect(inactive).toEqual(unknown)
    expect(ctx.events.map((e) => (e.type === 'auth.failed' ? e.reason : e.type))).toEqual([
      'inactive_key',
      'unknown_key',
    ])
    expect(ctx.events[0]).toMatchObject({
      keyId: issued.record.id,
      keyPrefix: issued.key.slice(0, 8),
      header: 'x-api-key',
    })
  })

  it('accepts legacy dk_ developer keys when the policy says so, by the backend rules', async () => {
    const store = new MemoryKeyStore()
    const legacy = `dk_${'Z'.repeat(20)}`
    const { hashKey } = await import('../hash/digest.js')
    await store.insertKey({
      id: crypto.randomUUID(),
      hash: await hashKey(legacy),
      keyPrefix: legacy.slice(0, 8),
      ownerType: 'developer',
      ownerId: 'dev_old',
      name: null,
      active: true,
      createdAt: new Date(),
    })
    const accepting = createKeyward({ store, legacyDeveloperKeys: 'accept' })
    expect(await accepting.authenticate({ developerKey: legacy }, { scope: 'developer' })).toMatchObject({
      developerId: 'dev_old',
    })
    const rejecting = createKeyward({ store })
    expect(
      await rejection(rejecting.authenticate({ developerKey: legacy }, { scope: 'developer' })),
    ).toMatchObject({
      type: 'key_legacy_prefix',
    })
    expect(
      await rejection(
        accepting.authenticate({ developerKey: `dk_${'Y'.repeat(20)}` }, { scope: 'developer' }),
      ),
    ).toMatchObject({
      type: 'key_invalid',
    })
  })

  it('fails closed with store_unavailable when the store throws, and reports it to the hook', async () => {
    class DownStore extends MemoryKeyStore {
      override async findKeyByHash(): Promise<null> {
        throw new Error('ECONNREFUSED')
      }
    }
    const events: KeywardEvent[] = []
    const keyward = createKeyward({ store: new DownStore(), onEvent: (e) => events.push(e) })
    expect(
      await rejection(keyward.authenticate({ projectKey: projA }, { scope: 'project', projectId: 'proj_a' })),
    ).toMatchObject({
      type: 'store_unavailable',
      status: 503,
    })
    expect(events.map((e) => e.type)).toEqual(['store.error', 'auth.failed'])
  })

  it('fails closed when the project owner lookup throws', async () => {
    const keyward = createKeyward({
      store: ctx.store,
      projectOwner: () => Promise.reject(new Error('db down')),
    })
    expect(
      await rejection(
        keyward.authenticate({ developerKey: devA }, { scope: 'developer', projectId: 'proj_a' }),
      ),
    ).toMatchObject({
      type: 'store_unavailable',
    })
  })

  it('keeps working when the event hook throws', async () => {
    const keyward = createKeyward({
      store: ctx.store,
      onEvent: () => {
        throw new Error('hook broke')
      },
    })
    await expect(
      keyward.authenticate({ projectKey: generateKey() }, { scope: 'project', projectId: 'proj_a' }),
    ).rejects.toMatchObject({ type: 'key_invalid' })
    await expect(
      keyward.authenticate({ projectKey: projA }, { scope: 'project', projectId: 'proj_a' }),
    ).resolves.toMatchObject({ projectId: 'proj_a' })
  })

  it('never puts a full key in an event or an error', async () => {
    const presented = [devA, projA, generateKey(), `${projA}x`, projA.slice(0, 30)]
    for (const key of presented) {
      for (const requirement of [
        { scope: 'developer' } as const,
        { scope: 'project', projectId: 'proj_b' } as const,
      ]) {
        const outcome = await ctx.keyward
          .authenticate({ developerKey: key, projectKey: key }, requirement)
          .then(
            (v) => JSON.stringify(v),
            (e: { msg: string; message: string }) => e.msg + e.message,
          )
        expect(outcome).not.toContain(key.slice(0, 9))
      }
    }
    expect(JSON.stringify(ctx.events)).not.toMatch(/ak_[A-Za-z0-9_-]{9}/)
  })

  it('makes no store call for a malformed key', async () => {
    const findKeyByHash = vi.spyOn(ctx.store, 'findKeyByHash')
    const outside = fc.constantFrom(' ', '\t', '\0', 'é', '+', '/', '中')
    const mutation = fc.oneof(
      fc
        .integer({ min: 0, max: 60 })
        .filter((n) => n !== 35)
        .map((n) => `ak_${'a'.repeat(Math.max(0, n - 3))}`.slice(0, n)),
      fc
        .tuple(fc.integer({ min: 3, max: 34 }), outside)
        .map(([at, c]) => projA.slice(0, at) + c + projA.slice(at + 1)),
      fc.constantFrom(`xk_${projA.slice(3)}`, `AK_${projA.slice(3)}`, ` ${projA}`, `${projA} `, `${projA}\0`),
      fc
        .string({ unit: fc.constantFrom(...KEY_ALPHABET), minLength: 35, maxLength: 35 })
        .filter((s) => !s.startsWith('ak_')),
    )
    await fc.assert(
      fc.asyncProperty(mutation, async (value) => {
        const failure = await rejection(
          ctx.keyward.authenticate({ projectKey: value }, { scope: 'project', projectId: 'proj_a' }),
        )
        expect(['key_missing', 'key_malformed']).toContain(failure.type)
        expect(failure.status).toBe(401)
      }),
    )
    expect(findKeyByHash).not.toHaveBeenCalled()
  })
})

describe('deactivate and activate', () => {
  it('turns a key off and on, reports it, and answers null for an unknown id', async () => {
    const { keyward, events } = setup()
    const { key, record } = await keyward.issueProjectKey('proj_a')
    expect((await keyward.deactivateKey(record.id))?.active).toBe(false)
    await expect(
      keyward.authenticate({ projectKey: key }, { scope: 'project', projectId: 'proj_a' }),
    ).rejects.toMatchObject({ type: 'key_invalid' })
    expect((await keyward.activateKey(record.id))?.active).toBe(true)
    await expect(
      keyward.authenticate({ projectKey: key }, { scope: 'project', projectId: 'proj_a' }),
    ).resolves.toBeTruthy()
    expect(events.map((e) => e.type)).toEqual([
      'key.issued',
      'key.deactivated',
      'auth.failed',
      'key.activated',
    ])
    expect(await keyward.deactivateKey(crypto.randomUUID())).toBeNull()
  })

  it('answers a revocation committed but not confirmed with its own error, and reports it', async () => {
    const { store, keyward, events } = setup()
    const { key, record } = await keyward.issueProjectKey('proj_a')
    const unconfirmed = new KeywardError(ErrorType.revocationUnconfirmed, 'Committed, not confirmed.', [])
    const setKeyActive = store.setKeyActive.bind(store)
    // The store commits the revocation, then cannot confirm it (a strict store's late feed).
    vi.spyOn(store, 'setKeyActive').mockImplementationOnce(async (...args) => {
      await setKeyActive(...args)
      throw unconfirmed
    })
    const failure = await keyward.deactivateKey(record.id).catch((error: unknown) => error)
    expect(failure).toBe(unconfirmed)
    expect(failure).toMatchObject({ type: 'revocation_unconfirmed', status: 503 })
    expect(events.at(-1)).toEqual({ type: 'store.error', operation: 'setKeyActive', error: unconfirmed })
    await expect(
      keyward.authenticate({ projectKey: key }, { scope: 'project', projectId: 'proj_a' }),
    ).rejects.toMatchObject({ type: 'key_invalid' })
  })
})

describe('names', () => {
  it('refuses control characters, which no PostgreSQL text column holds', async () => {
    const { keyward } = setup()
    for (const [name, code, at] of [
      ['a\u0000b', '0000', 2],
      ['\tx', '0009', 1],
      ['é\u007f', '007F', 2],
    ] as const) {
      expect(await rejection(keyward.issueDeveloperKey('dev_a', { name }))).toMatchObject({
        type: 'string_pattern_mismatch',
        status: 422,
        loc: ['body', 'name'],
        msg: `Names cannot contain control characters: U+${code} at character ${at}.`,
      })
    }
    expect((await keyward.issueDeveloperKey('dev_a', { name: 'CI runner – prod ✓' })).record.name).toBe(
      'CI runner – prod ✓',
    )
  })
})
