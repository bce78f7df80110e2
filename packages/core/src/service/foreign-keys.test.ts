import { createHash } from 'node:crypto'
import { describe, expect, it } from 'vitest'
import { KeywardError } from '../errors/error.js'
import { apiKeyGuard } from '../http/guards.js'
import type { KeywardRequest } from '../http/types.js'
import { KEY_PREFIX } from '../key/constants.js'
import type { ForeignKeyFormat } from '../key/foreign.js'
import { generateKey } from '../key/generate.js'
import { MemoryKeyStore } from '../store/memory.js'
import type { KeyRecord } from '../store/types.js'
import { createKeyward } from './keyward.js'
import type { KeywardOptions } from './options.js'

const project = { scope: 'project', projectId: 'proj_f' } as const
const sha256 = (text: string) => createHash('sha256').update(text).digest('hex')
const chars = (n: number, from = 'x') => from.repeat(n)
const FORMATS: ForeignKeyFormat[] = [
  { prefix: 'sk_live_', minLength: 40, maxLength: 64 },
  { prefix: 'ba', minLength: 20, maxLength: 80 },
]
const ANY: ForeignKeyFormat[] = [{ minLength: 16, maxLength: 512 }]

// A key of another system, as an import stores it: its SHA-256 and its first 8 characters.
function imported(key: string, fields: Partial<KeyRecord> = {}): KeyRecord {
  return {
    id: crypto.randomUUID(),
    hash: sha256(key),
    keyPrefix: key.slice(0, 8),
    ownerType: 'project',
    ownerId: 'proj_f',
    name: 'imported',
    active: true,
    createdAt: new Date(),
    expiresAt: null,
    lastUsedAt: null,
    replacedBy: null,
    ...fields,
  }
}

async function service(foreignKeys: ForeignKeyFormat[] | undefined, extra: Partial<KeywardOptions> = {}) {
  const store = new MemoryKeyStore()
  const keyward = createKeyward({ store, ...(foreignKeys ? { foreignKeys } : {}), ...extra })
  return { store, keyward }
}

const outcome = (promise: Promise<unknown>) =>
  promise.then(
    () => 'accepted',
    (error: unknown) => (error instanceof KeywardError ? error.type : String(error)),
  )

const live = `sk_live_${chars(40, 'a')}`

describe('keys of foreign formats', () => {
  // [case, formats, presented key, stored record (undefined: nothing stored), expected outcome]
  const cases: [string, ForeignKeyFormat[] | undefined, string, Partial<KeyRecord> | undefined, string][] = [
    ['a prefix and a length range: stored and active', FORMATS, live, {}, 'accepted'],
    ['the shortest of the range', FORMATS, `sk_live_${chars(32)}`, {}, 'accepted'],
    ['the longest of the range', FORMATS, `sk_live_${chars(56)}`, {}, 'accepted'],
    ['one character longer than the range', FORMATS, `sk_live_${chars(57)}`, {}, 'key_malformed'],
    ['one character shorter than the range', FORMATS, `sk_live_${chars(31)}`, {}, 'key_malformed'],
    ['a prefix no format declares', FORMATS, `sk_test_${chars(40)}`, {}, 'key_malformed'],
    ['the second format', FORMATS, `ba${chars(30, 'B')}`, {}, 'accepted'],
    ['a space inside', FORMATS, `sk_live_${chars(20)} ${chars(19)}`, {}, 'key_malformed'],
    ['a character outside ASCII', FORMATS, `sk_live_${chars(39)}é`, {}, 'key_malformed'],
    ['of a format, never stored', FORMATS, `sk_live_${chars(40, 'z')}`, undefined, 'key_invalid'],
    ['inactive', FORMATS, live, { active: false, revokedReason: 'revoked' }, 'key_invalid'],
    ['expired', FORMATS, live, { expiresAt: new Date(Date.now() - 1000) }, 'key_invalid'],
    ['of another project', FORMATS, live, { ownerId: 'proj_other' }, 'project_mismatch'],
    [
      'a developer key sent as an API key',
      FORMATS,
      live,
      { ownerType: 'developer', ownerId: 'dev_1' },
      'key_wrong_type',
    ],
    ['no foreign format declared', undefined, live, {}, 'key_malformed'],
    ['any string of 16 to 512: 16 characters', ANY, chars(16, 'q'), {}, 'accepted'],
    ['any string of 16 to 512: 512 characters', ANY, chars(512, 'q'), {}, 'accepted'],
    ['any string of 16 to 512: 15 characters', ANY, chars(15, 'q'), {}, 'key_malformed'],
    ['any string of 16 to 512: 513 characters', ANY, chars(513, 'q'), {}, 'key_malformed'],
    ['ak_ of the wrong length stays malformed', ANY, `${KEY_PREFIX}${chars(40)}`, {}, 'key_malformed'],
    ['dk_ stays under the native rules', ANY, `dk_${chars(20)}`, {}, 'key_malformed'],
  ]

  it.each(cases)('%s', async (_name, formats, key, stored, expected) => {
    const { store, keyward } = await service(formats)
    if (stored) await store.insertKey(imported(key, stored))
    expect(await outcome(keyward.authenticate({ projectKey: key }, project))).toBe(expected)
  })

  it('a dk_ developer key stays under the legacy policy', async () => {
    const { store, keyward } = await service(ANY)
    const key = `dk_${chars(20)}`
    await store.insertKey(imported(key, { ownerType: 'developer', ownerId: 'dev_1' }))
    expect(await outcome(keyward.authenticate({ developerKey: key }, { scope: 'developer' }))).toBe(
      'key_legacy_prefix',
    )
  })

  it('native keys verify beside them', async () => {
    const { keyward } = await service(ANY)
    const { key } = await keyward.issueProjectKey('proj_f')
    expect(await outcome(keyward.authenticate({ projectKey: key }, project))).toBe('accepted')
  })

  it('take the cache and its revocation, credits and policies as native keys do', async () => {
    const { store, keyward } = await service(FORMATS, {
      cache: {},
      permissions: ['reports:read', 'reports:write'],
    })
    const record = await store.insertKey(imported(live, { remaining: 2, permissions: ['reports:read'] }))
    const read = { ...project, permissions: { allOf: ['reports:read'] } } as const
    const write = { ...project, permissions: { allOf: ['reports:write'] } } as const
    for (let i = 0; i < 3; i++) {
      expect(await outcome(keyward.authenticate({ projectKey: live }, read))).toBe('accepted')
    }
    expect(keyward.cacheStats()).toMatchObject({ entries: 1, misses: 1, hits: 2 })
    expect(await outcome(keyward.authenticate({ projectKey: live }, write))).toBe('permission_denied')

    const auth = await keyward.authenticate({ projectKey: live }, read)
    expect(await keyward.spendCredits(auth.projectKey, 1)).toEqual({ 'x-credits-remaining': '1' })
    expect(await keyward.spendCredits(auth.projectKey, 1)).toEqual({ 'x-credits-remaining': '0' })
    expect(await outcome(Promise.resolve(keyward.spendCredits(auth.projectKey, 1)).then(throwIfError))).toBe(
      'usage_exceeded',
    )

    await keyward.deactivateKey(record.id)
    expect(await outcome(keyward.authenticate({ projectKey: live }, read))).toBe('key_invalid')
  })

  it('are due for rotation at once, and rolling one issues a native ak_ key', async () => {
    const { store, keyward } = await service(FORMATS)
    const record = await store.insertKey(imported(live))
    expect(keyward.isRotationDue(record)).toBe(true)
    const native = await keyward.issueProjectKey('proj_f')
    expect(keyward.isRotationDue(native.record)).toBe(false)
    const rolled = await keyward.rollKey(record.id)
    expect(rolled?.key).toMatch(/^ak_[A-Za-z0-9_-]{32}$/)
    expect(keyward.isRotationDue(rolled!.record)).toBe(false)
    // Both work in the grace window; the new key from then on.
    for (const key of [live, rolled!.key]) {
      expect(await outcome(keyward.authenticate({ projectKey: key }, project))).toBe('accepted')
    }
  })

  it('tells the host an imported key is due for rotation when it is used', async () => {
    const events: { type: string }[] = []
    const { store, keyward } = await service(FORMATS, { onEvent: (event) => events.push(event) })
    await store.insertKey(imported(live))
    await keyward.authenticate({ projectKey: live }, project)
    expect(events.map((event) => event.type)).toContain('key.rotation_due')
  })

  it.each([
    [[], 'must be an array of 1 to 16'],
    [[{ prefix: 'ak_x', minLength: 20, maxLength: 40 }], '`foreignKeys`[0].prefix must be'],
    [[{ prefix: 'a', minLength: 20, maxLength: 40 }], '`foreignKeys`[0].prefix must be'],
    [[{ minLength: 8, maxLength: 40 }], '16 <= minLength <= maxLength <= 512'],
    [[{ minLength: 40, maxLength: 20 }], 'got 40 and 20'],
    [[{ minLength: 16, maxLength: 1024 }], 'got 16 and 1024'],
  ])('refuses the option %j, naming it', (foreignKeys, message) => {
    expect(() => createKeyward({ store: new MemoryKeyStore(), foreignKeys: foreignKeys as never })).toThrow(
      message,
    )
  })

  it('pass an API key guard over HTTP, which spends their credits, with a cache', async () => {
    const { store, keyward } = await service(FORMATS, { cache: {} })
    await store.insertKey(imported(live, { remaining: 2 }))
    const guard = apiKeyGuard(keyward, { project: 'proj_f' })
    const request = (key: string): KeywardRequest => ({
      method: 'GET',
      url: '/',
      params: {},
      header: (name) => (name === 'x-api-key' ? key : undefined),
    })
    const answers = []
    for (let i = 0; i < 3; i++) {
      const result = guard.now?.(request(live)) ?? (await guard(request(live)))
      answers.push(result.ok ? 200 : result.response.status)
    }
    expect(answers).toEqual([200, 200, 429])
    const malformed = await guard(request(`sk_test_${chars(40)}`))
    expect(malformed.ok === false && JSON.parse(malformed.response.body).detail[0].type).toBe('key_malformed')
  })

  it('generated keys are never taken for foreign ones', async () => {
    const { keyward } = await service(ANY)
    expect(await outcome(keyward.authenticate({ projectKey: generateKey() }, project))).toBe('key_invalid')
  })
})

function throwIfError<T>(value: T): T {
  if (value instanceof KeywardError) throw value
  return value
}
