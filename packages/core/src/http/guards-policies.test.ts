import { RateLimiterMemory } from 'rate-limiter-flexible'
import { describe, expect, expectTypeOf, it } from 'vitest'
import type { AuditRecord } from '../audit/types.js'
import type { ProtectionOptions } from '../protection/options.js'
import type { KeywardEvent } from '../service/events.js'
import { createKeyward } from '../service/keyward.js'
import type { ProjectAuth } from '../service/requirements.js'
import { MemoryKeyStore } from '../store/memory.js'
import { elevatedGuard, projectGuard } from './guards.js'
import type { KeywardRequest, KeywardResponse } from './types.js'

const PERMISSIONS = ['generations:write', 'generations:delete', 'reports:read']

function request(
  key: string,
  address: string | undefined,
  headers: Record<string, string> = {},
): KeywardRequest {
  const all: Record<string, string> = { 'x-api-key': key, ...headers }
  return { method: 'GET', url: '/', params: { project_id: 'p1' }, address, header: (name) => all[name] }
}

const body = (response: KeywardResponse | undefined) => JSON.parse(response?.body ?? '{}')

async function world(options: { cache?: boolean; protection?: Partial<ProtectionOptions> } = {}) {
  const events: KeywardEvent[] = []
  const keyward = createKeyward({
    store: new MemoryKeyStore(),
    projectOwner: () => 'd1',
    permissions: PERMISSIONS,
    onEvent: (event) => events.push(event),
    ...(options.cache ? { cache: {} } : {}),
    ...(options.protection
      ? { protection: { limiter: (settings) => new RateLimiterMemory(settings), ...options.protection } }
      : {}),
  })
  return { keyward, events }
}

type Outcome = 'ok' | string
async function outcome(guard: ReturnType<typeof projectGuard>, req: KeywardRequest): Promise<Outcome> {
  const result = await guard(req)
  return result.ok ? 'ok' : body(result.response).detail[0].type
}

describe('guards: permissions', () => {
  it('requires all of allOf, one of anyOf; a key without explicit permissions has them all', async () => {
    const { keyward } = await world()
    const all = (await keyward.issueProjectKey('p1')).key
    const reader = (await keyward.issueProjectKey('p1', { permissions: ['reports:read'] })).key
    const writer = (
      await keyward.issueProjectKey('p1', { permissions: ['generations:write', 'reports:read'] })
    ).key
    const none = (await keyward.issueProjectKey('p1', { permissions: [] })).key
    const writeAndDelete = projectGuard(keyward, {
      permissions: { allOf: ['generations:write', 'generations:delete'] },
    })
    const writeOrRead = projectGuard(keyward, {
      permissions: { anyOf: ['generations:write', 'reports:read'] },
    })
    const open = projectGuard(keyward)
    const at = '203.0.113.1'
    expect(await outcome(writeAndDelete, request(all, at))).toBe('ok')
    expect(await outcome(writeAndDelete, request(writer, at))).toBe('permission_denied')
    expect(await outcome(writeOrRead, request(reader, at))).toBe('ok')
    expect(await outcome(writeOrRead, request(none, at))).toBe('permission_denied')
    expect(await outcome(open, request(none, at))).toBe('ok')
    const denied = await writeAndDelete(request(writer, at))
    expect(denied.ok).toBe(false)
    if (!denied.ok) {
      expect(denied.response.status).toBe(403)
      expect(body(denied.response).detail).toEqual([
        {
          loc: ['header', 'x-api-key'],
          msg: 'The API key lacks the permission generations:delete.',
          type: 'permission_denied',
        },
      ])
    }
    const anyDenied = await writeOrRead(request(none, at))
    if (!anyDenied.ok) {
      expect(body(anyDenied.response).detail[0].msg).toBe(
        'The API key lacks a permission this route requires: one of generations:write, reports:read.',
      )
    }
  })

  it('checks a rule when the guard is built: known names, one form, not empty', async () => {
    const { keyward } = await world()
    expect(() => projectGuard(keyward, { permissions: { allOf: ['admin:all'] } })).toThrow(
      'projectGuard: option `permissions` is refused at .allOf[0], at character 1: the permission "admin:all" is not declared',
    )
    expect(() => elevatedGuard(keyward, { permissions: { anyOf: [] } })).toThrow(
      'elevatedGuard: option `permissions` is refused at .anyOf: anyOf must be a list of at least one query.',
    )
    expect(() =>
      projectGuard(keyward, { permissions: { allOf: ['reports:read'], anyOf: ['reports:read'] } as never }),
    ).toThrow('expected one field, and or or (or a rule\'s allOf or anyOf), found "allOf", "anyOf"')
  })

  it('takes a query, as a string or as objects, and names what the key lacks, cached or not', async () => {
    for (const cache of [false, true]) {
      const { keyward } = await world({ cache })
      const query = 'reports:read and (generations:write or generations:delete)'
      const stringGuard = projectGuard(keyward, { permissions: query })
      const objectGuard = projectGuard(keyward, {
        permissions: { and: ['reports:read', { or: ['generations:write', 'generations:delete'] }] },
      })
      const reader = (await keyward.issueProjectKey('p1', { permissions: ['reports:read'] })).key
      const deleter = (
        await keyward.issueProjectKey('p1', { permissions: ['reports:read', 'generations:delete'] })
      ).key
      for (const guard of [stringGuard, objectGuard]) {
        expect(await outcome(guard, request(deleter, undefined))).toBe('ok')
        const denied = await guard(request(reader, undefined))
        expect(denied.ok).toBe(false)
        if (!denied.ok) {
          expect(denied.response.status).toBe(403)
          expect(body(denied.response).detail).toEqual([
            {
              loc: ['header', 'x-api-key'],
              msg: 'The API key lacks a permission this route requires: one of generations:write, generations:delete.',
              type: 'permission_denied',
            },
          ])
        }
      }
    }
  })

  it('grants wildcards, declared permissions under them included, and never requires one', async () => {
    const { keyward } = await world()
    const generations = (await keyward.issueProjectKey('p1', { permissions: ['generations:*'] })).key
    const everything = (await keyward.issueProjectKey('p1', { permissions: ['*'] })).key
    const guard = projectGuard(keyward, { permissions: 'generations:write and generations:delete' })
    const reports = projectGuard(keyward, { permissions: 'reports:read' })
    expect(await outcome(guard, request(generations, undefined))).toBe('ok')
    expect(await outcome(reports, request(generations, undefined))).toBe('permission_denied')
    expect(await outcome(reports, request(everything, undefined))).toBe('ok')
    expect(() => projectGuard(keyward, { permissions: 'generations:*' })).toThrow(
      'projectGuard: option `permissions` is refused at character 1: "generations:*" is a wildcard',
    )
    await expect(keyward.issueProjectKey('p1', { permissions: ['generations:'] })).rejects.toMatchObject({
      type: 'permission_unknown',
      loc: ['body', 'permissions', '0'],
    })
  })

  it('refuses a malformed query when the guard is built, with its position', async () => {
    const { keyward } = await world()
    expect(() => projectGuard(keyward, { permissions: 'reports:read and (generations:write' })).toThrow(
      'projectGuard: option `permissions` is refused at character 36: expected "and", "or" or ")" to close the "(" at character 18, found the end.',
    )
    expect(() => elevatedGuard(keyward, { permissions: 'reports:read or billing:read' })).toThrow(
      'elevatedGuard: option `permissions` is refused at character 17: the permission "billing:read" is not declared',
    )
  })

  it("hands the key's permissions and metadata to the route, typed by the guard's generic", async () => {
    const { keyward } = await world()
    const { key } = await keyward.issueProjectKey('p1', {
      permissions: ['reports:read'],
      metadata: { customer: 'c_42', seats: 3 },
    })
    const guard = projectGuard<{ customer: string; seats: number }>(keyward)
    expectTypeOf(guard).returns.resolves.toMatchTypeOf<{ ok: boolean }>()
    const result = await guard(request(key, '203.0.113.1'))
    expect(result).toMatchObject({
      ok: true,
      auth: { permissions: ['reports:read'], metadata: { customer: 'c_42', seats: 3 } },
    })
    if (result.ok) expectTypeOf(result.auth).toEqualTypeOf<ProjectAuth<{ customer: string; seats: number }>>()
    if (result.ok)
      expectTypeOf(result.auth.metadata).toEqualTypeOf<{ customer: string; seats: number } | null>()
  })
})

describe('guards: IP allowlists', () => {
  it('refuses an address outside the list with 403 ip_not_allowed, on the first lookup and from the cache', async () => {
    const { keyward, events } = await world({ cache: true })
    const { key } = await keyward.issueProjectKey('p1', { ipAllowlist: ['203.0.113.0/24', '2001:db8::/32'] })
    const guard = projectGuard(keyward)
    expect(await outcome(guard, request(key, '198.51.100.1'))).toBe('ip_not_allowed')
    expect(await outcome(guard, request(key, '::ffff:203.0.113.200'))).toBe('ok')
    // Now cached: the synchronous answer checks the list too.
    const refused = guard.now?.(request(key, '198.51.100.1'))
    expect(refused?.ok === false && refused.response.status).toBe(403)
    expect(guard.now?.(request(key, '2001:db8:ffff::1'))?.ok).toBe(true)
    // No address known (a runtime without one): closed.
    expect(guard.now?.(request(key, undefined))?.ok).toBe(false)
    expect(events).toContainEqual(
      expect.objectContaining({ type: 'auth.failed', reason: 'ip_not_allowed', errorType: 'ip_not_allowed' }),
    )
  })

  it('reads the address through the trusted proxy, as the throttle does', async () => {
    const { keyward } = await world({ protection: { trustedProxy: { header: 'x-forwarded-for', hops: 1 } } })
    const { key } = await keyward.issueProjectKey('p1', { ipAllowlist: ['203.0.113.7'] })
    const guard = projectGuard(keyward)
    const via = (forwarded: string) => request(key, '10.0.0.1', { 'x-forwarded-for': forwarded })
    expect(await outcome(guard, via('203.0.113.7'))).toBe('ok')
    expect(await outcome(guard, via('203.0.113.7, 198.51.100.1'))).toBe('ip_not_allowed')
  })

  it('costs no failed-verification count and no rate limit', async () => {
    const { keyward } = await world({
      protection: { failedAuthLimit: 2, keyRateLimits: { project: { limit: 1, windowSeconds: 60 } } },
    })
    const { key } = await keyward.issueProjectKey('p1', { ipAllowlist: ['203.0.113.0/24'] })
    const limited = (await keyward.issueProjectKey('p1', { permissions: [] })).key
    const guard = projectGuard(keyward, { permissions: { allOf: ['reports:read'] } })
    for (let i = 0; i < 5; i++) {
      expect(await outcome(guard, request(key, '198.51.100.1'))).toBe('ip_not_allowed')
      expect(await outcome(guard, request(limited, '198.51.100.1'))).toBe('permission_denied')
    }
    // The address is not throttled, and the key's one request of the window is still there.
    expect(await outcome(guard, request(key, '203.0.113.1'))).toBe('ok')
    expect(await outcome(guard, request(key, '203.0.113.1'))).toBe('rate_limited')
  })

  it('refuses every request of a key whose stored list cannot be read (fail closed)', async () => {
    const records = new Map()
    const store = new MemoryKeyStore({ records })
    const keyward = createKeyward({ store, projectOwner: () => 'd1' })
    const { key, record } = await keyward.issueProjectKey('p1')
    await store.setKeyPolicies(record.id, { ipAllowlist: ['203.0.113.0/24', 'garbage'] })
    const result = await projectGuard(keyward)(request(key, '203.0.113.1'))
    expect(result.ok).toBe(false)
    if (!result.ok)
      expect(body(result.response).detail[0]).toMatchObject({
        type: 'ip_not_allowed',
        msg: expect.stringContaining('cannot be read'),
      })
  })

  it('applies to the API key of an elevated operation', async () => {
    const { keyward } = await world()
    const developer = (await keyward.issueDeveloperKey('d1')).key
    const { key } = await keyward.issueProjectKey('p1', { ipAllowlist: ['::1'], permissions: [] })
    const guard = elevatedGuard(keyward, { permissions: { allOf: ['reports:read'] } })
    const req = (address: string) => ({
      ...request(key, address),
      header: (name: string) => ({ 'x-api-key': key, 'x-developer-key': developer })[name],
    })
    expect(await outcome(guard as never, req('127.0.0.1'))).toBe('ip_not_allowed')
    expect(await outcome(guard as never, req('::1'))).toBe('permission_denied')
  })
})

describe('key service: policies', () => {
  it('gives a key the maximum lifetime when none is given, and refuses a roll beyond it', async () => {
    const now = new Date('2026-01-01T00:00:00Z')
    const store = new MemoryKeyStore()
    const loose = createKeyward({ store, now: () => now })
    const old = await loose.issueProjectKey('p1', { expiresInDays: 400 })
    const strict = createKeyward({ store, now: () => now, keyPolicies: { project: { maxLifetimeDays: 30 } } })
    const fresh = await strict.issueProjectKey('p1')
    expect(fresh.record.expiresAt).toEqual(new Date('2026-01-31T00:00:00Z'))
    await expect(
      strict.issueProjectKey('p1', { expiresAt: new Date('2026-02-01T00:00:00Z') }),
    ).rejects.toMatchObject({
      status: 422,
      type: 'lifetime_exceeded',
      loc: ['body', 'expires_at'],
    })
    await expect(strict.rollKey(old.record.id)).rejects.toMatchObject({
      status: 422,
      type: 'lifetime_exceeded',
    })
    // A key that never expired rolls into one of the maximum lifetime.
    const forever = await loose.issueProjectKey('p1')
    expect((await strict.rollKey(forever.record.id))?.record.expiresAt).toEqual(
      new Date('2026-01-31T00:00:00Z'),
    )
    // Developer keys are not bound by the project policy.
    expect((await strict.issueDeveloperKey('d1')).record.expiresAt).toBeNull()
  })

  it('gives developer keys no policies, and checks its options when built', async () => {
    const { keyward } = await world()
    await expect(keyward.issueDeveloperKey('d1', { metadata: { a: 1 } })).rejects.toMatchObject({
      status: 422,
      type: 'value_error',
    })
    const store = new MemoryKeyStore()
    expect(() => createKeyward({ store, permissions: ['ok', 'not ok'] })).toThrow('option `permissions`')
    expect(() => createKeyward({ store, keyPolicies: { project: { maxLifetimeDays: 0 } } })).toThrow(
      'keyPolicies.project.maxLifetimeDays',
    )
  })

  it('sets policies through the store and reports it, never with the metadata', async () => {
    const { keyward, events } = await world()
    const { record } = await keyward.issueProjectKey('p1', { metadata: { secret: 'do-not-log' } })
    const updated = await keyward.setKeyPolicies(record.id, { permissions: ['reports:read'] })
    expect(updated).toMatchObject({ permissions: ['reports:read'], metadata: { secret: 'do-not-log' } })
    expect(events.at(-1)).toEqual({
      type: 'key.policies_set',
      keyId: record.id,
      keyPrefix: record.keyPrefix,
      ownerType: 'project',
      ownerId: 'p1',
    })
    expect(JSON.stringify(events)).not.toContain('do-not-log')
    expect(await keyward.setKeyPolicies(crypto.randomUUID(), { metadata: null })).toBeNull()
  })

  it('records in the audit log that metadata was set or changed, and its size, never its content', async () => {
    const auditLog: AuditRecord[] = []
    const keyward = createKeyward({ store: new MemoryKeyStore({ auditLog }), permissions: PERMISSIONS })
    const { record } = await keyward.issueProjectKey('p1', { metadata: { secret: 'do-not-log' } })
    await keyward.setKeyPolicies(record.id, { metadata: { secret: 'do-not-lxg' } })
    await keyward.setKeyPolicies(record.id, { permissions: ['reports:read'] })
    const rolled = await keyward.rollKey(record.id)
    await keyward.setKeyPolicies(rolled!.record.id, { metadata: null })

    expect(JSON.stringify(auditLog)).not.toContain('do-not-l')
    const rows = auditLog.map((row) => [row.action, row.before?.metadata, row.after?.metadata])
    expect(rows).toEqual([
      ['key.issued', undefined, { redacted: true, bytes: 23 }],
      // A change of content is a row of the log, though of the same size.
      ['key.policies_set', { redacted: true, bytes: 23 }, { redacted: true, bytes: 23 }],
      ['key.policies_set', undefined, undefined],
      ...rows.slice(3, -1),
      ['key.policies_set', { redacted: true, bytes: 23 }, null],
    ])
    expect(rows.slice(3, -1).some(([action]) => action === 'key.rolled')).toBe(true)
    for (const [, before, after] of rows.slice(3, -1)) {
      for (const value of [before, after]) {
        if (value !== undefined) expect(value).toEqual({ redacted: true, bytes: 23 })
      }
    }
  })
})
