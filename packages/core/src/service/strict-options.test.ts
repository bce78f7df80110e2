import { describe, expect, it } from 'vitest'
import { isKeywardError } from '../errors/error.js'
import { apiKeyGuard, developerGuard, elevatedGuard, projectGuard } from '../http/guards.js'
import { generateKey } from '../key/generate.js'
import { MemoryKeyStore } from '../store/memory.js'
import { rejection } from '../test/rejection.js'
import { createKeyward } from './keyward.js'

// Plain JavaScript callers: options the compiler would refuse, passed as `any`.
// biome-ignore lint/suspicious/noExplicitAny: the point is options TypeScript cannot see.
type Loose = any

function setup() {
  const store = new MemoryKeyStore()
  const keyward = createKeyward({
    store,
    projectOwner: (projectId) => (projectId === 'proj_a' ? 'dev_a' : null),
    permissions: ['reports:read'],
  })
  return { store, keyward }
}

const extra = (who: string, loc: string[], option: string, nearest: string) => ({
  type: 'extra_forbidden',
  status: 422,
  loc,
  msg: `${who}: unknown option \`${option}\`: did you mean \`${nearest}\`?`,
})

function thrown(run: () => unknown) {
  try {
    run()
  } catch (error) {
    if (!isKeywardError(error)) throw error
    return { type: error.type, status: error.status, loc: error.loc, msg: error.msg }
  }
  throw new Error('no error')
}

describe('options a plain JavaScript caller misspells fail closed', () => {
  it('issueProjectKey: a typo of a policy is refused and no key is issued', async () => {
    const { keyward } = setup()
    const options: Loose = { name: 'x', remainig: 5, ip_alowlist: ['10.0.0.0/8'] }
    expect(await rejection(keyward.issueProjectKey('proj_a', options))).toEqual(
      extra('issueProjectKey', ['options', 'remainig'], 'remainig', 'remaining'),
    )
    expect(await keyward.listKeys({ type: 'project', id: 'proj_a' })).toEqual([])
  })

  it('issueDeveloperKey and registerDeveloper name themselves', async () => {
    const { keyward } = setup()
    const options: Loose = { expiresInDay: 30 }
    expect(await rejection(keyward.issueDeveloperKey('dev_a', options))).toEqual(
      extra('issueDeveloperKey', ['options', 'expiresInDay'], 'expiresInDay', 'expiresInDays'),
    )
    expect(await rejection(keyward.registerDeveloper('dev_b', { expires_in_days: 30 } as Loose))).toEqual(
      extra('registerDeveloper', ['options', 'expires_in_days'], 'expires_in_days', 'expiresInDays'),
    )
    expect(await keyward.listKeys({ type: 'developer', id: 'dev_b' })).toEqual([])
  })

  it('a refill rule refuses an unknown field at its path', async () => {
    const { keyward } = setup()
    const refill: Loose = { amount: 5, interval: 'monthly', dya: 3 }
    expect(await rejection(keyward.issueProjectKey('proj_a', { remaining: 5, refill }))).toMatchObject({
      type: 'extra_forbidden',
      loc: ['body', 'refill', 'dya'],
      msg: 'Unknown field `dya`: did you mean `day`?',
    })
  })

  it('rollKey, setKeyPolicies, setKeyExpiry and changeCredits refuse and change nothing', async () => {
    const { keyward } = setup()
    const { record } = await keyward.issueProjectKey('proj_a', { remaining: 10 })
    expect(await rejection(keyward.rollKey(record.id, { graceSecond: 0 } as Loose))).toEqual(
      extra('rollKey', ['options', 'graceSecond'], 'graceSecond', 'graceSeconds'),
    )
    expect(
      await rejection(keyward.setKeyPolicies(record.id, { ipAlowlist: ['10.0.0.0/8'] } as Loose)),
    ).toEqual(extra('setKeyPolicies', ['options', 'ipAlowlist'], 'ipAlowlist', 'ipAllowlist'))
    expect(await rejection(keyward.setKeyExpiry(record.id, { expiresInDay: 1 } as Loose))).toEqual(
      extra('setKeyExpiry', ['options', 'expiresInDay'], 'expiresInDay', 'expiresInDays'),
    )
    const change: Loose = { op: 'set', remaining: 5, refil: { amount: 5, interval: 'daily' } }
    expect(await rejection(keyward.changeCredits(record.id, change))).toEqual(
      extra('changeCredits', ['options', 'refil'], 'refil', 'refill'),
    )
    const after = await keyward.findKey(record.id)
    expect(after).toMatchObject({
      active: true,
      ipAllowlist: null,
      remaining: 10,
      refill: null,
      expiresAt: null,
    })
    expect(after?.replacedBy ?? null).toBeNull()
  })

  it('guards refuse a misspelt option when they are built: the route is never left open', () => {
    const { keyward } = setup()
    expect(thrown(() => projectGuard(keyward, { permisions: { allOf: ['reports:read'] } } as Loose))).toEqual(
      extra('projectGuard', ['options', 'permisions'], 'permisions', 'permissions'),
    )
    expect(thrown(() => elevatedGuard(keyward, { cots: 5 } as Loose))).toEqual(
      extra('elevatedGuard', ['options', 'cots'], 'cots', 'cost'),
    )
    expect(thrown(() => apiKeyGuard(keyward, { projet: 'proj_a' } as Loose))).toEqual(
      extra('apiKeyGuard', ['options', 'projet'], 'projet', 'project'),
    )
    expect(thrown(() => developerGuard(keyward, { projectParm: 'project_id' } as Loose))).toEqual(
      extra('developerGuard', ['options', 'projectParm'], 'projectParm', 'projectParam'),
    )
    const rule: Loose = { allOf: ['reports:read'], anyof: ['reports:read'] }
    expect(thrown(() => projectGuard(keyward, { permissions: rule }))).toEqual(
      extra('projectGuard', ['options', 'permissions', 'anyof'], 'anyof', 'anyOf'),
    )
    expect(() => projectGuard(keyward, { permissions: { allOf: ['reports:read'] }, cost: 2 })).not.toThrow()
  })
})

describe('names holding a key', () => {
  it('are refused through the library (422 key_shaped_value at ["body", "name"]), unrepeated, unstored, unaudited', async () => {
    const { keyward } = setup()
    const { key } = await keyward.issueProjectKey('proj_a', { name: 'web' })
    const audited = async (developerId: string) => (await keyward.listAudit(developerId)).records.length
    const auditedBefore = await audited('dev_a')
    expect(auditedBefore).toBeGreaterThan(0)
    const refused = await rejection(keyward.issueProjectKey('proj_a', { name: `copy of ${key}` }))
    expect(refused).toMatchObject({ type: 'key_shaped_value', status: 422, loc: ['body', 'name'] })
    expect(refused.msg).not.toContain(key.slice(3, 12))
    const legacy = `dk_${generateKey().slice(3, 20)}`
    expect(await rejection(keyward.registerDeveloper('dev_c', { name: legacy }))).toMatchObject({
      type: 'key_shaped_value',
    })
    const names = (await keyward.listKeys({ type: 'project', id: 'proj_a' })).map((record) => record.name)
    expect(names).toEqual(['web'])
    expect(await audited('dev_a')).toBe(auditedBefore)
    expect(await audited('dev_c')).toBe(0)
  })
})

describe("createKeyward's own options", () => {
  const store = new MemoryKeyStore()
  const built = (options: Loose) => thrown(() => createKeyward({ store, ...options }))

  it('refuse a misspelt name at the top, naming the nearest', () => {
    expect(built({ auditSucesses: true })).toEqual(
      extra('createKeyward', ['options', 'auditSucesses'], 'auditSucesses', 'auditSuccesses'),
    )
    expect(built({ projetOwner: () => null })).toEqual(
      extra('createKeyward', ['options', 'projetOwner'], 'projetOwner', 'projectOwner'),
    )
  })

  it('refuse a misspelt name at any depth, at its path', () => {
    expect(built({ usage: { retention: { hourDay: 30 } } })).toEqual(
      extra('createKeyward', ['options', 'usage', 'retention', 'hourDay'], 'hourDay', 'hourDays'),
    )
    expect(built({ credits: { leaseSecond: 1 } })).toEqual(
      extra('createKeyward', ['options', 'credits', 'leaseSecond'], 'leaseSecond', 'leaseSeconds'),
    )
    expect(built({ keyPolicies: { project: { maxLifetimeDay: 90 } } })).toEqual(
      extra(
        'createKeyward',
        ['options', 'keyPolicies', 'project', 'maxLifetimeDay'],
        'maxLifetimeDay',
        'maxLifetimeDays',
      ),
    )
    expect(built({ keyPolicies: { projects: { maxLifetimeDays: 90 } } })).toEqual(
      extra('createKeyward', ['options', 'keyPolicies', 'projects'], 'projects', 'project'),
    )
    const limiter = () => ({})
    expect(built({ protection: { limiter, failedAuthLimt: 5 } })).toEqual(
      extra(
        'createKeyward',
        ['options', 'protection', 'failedAuthLimt'],
        'failedAuthLimt',
        'failedAuthLimit',
      ),
    )
    expect(
      built({ protection: { limiter, keyRateLimits: { project: { limit: 5, window: 60 } } } }),
    ).toMatchObject({
      type: 'extra_forbidden',
      loc: ['options', 'protection', 'keyRateLimits', 'project', 'window'],
    })
    expect(built({ protection: { limiter, trustedProxy: { header: 'x-forwarded-for', hop: 2 } } })).toEqual(
      extra('createKeyward', ['options', 'protection', 'trustedProxy', 'hop'], 'hop', 'hops'),
    )
    expect(
      thrown(() => createKeyward({ store: new MemoryKeyStore(), cache: { maxEntry: 5 } } as Loose)),
    ).toMatchObject({
      type: 'extra_forbidden',
      loc: ['options', 'cache', 'maxEntry'],
    })
  })

  it('take every option the type declares', () => {
    expect(() =>
      createKeyward({
        store,
        developerKeyLimit: 5,
        credits: { leaseSeconds: 1 },
        usage: { retention: { hourDays: 30 } },
        keyPolicies: { project: { maxLifetimeDays: 90 } },
        auditSuccesses: true,
      }),
    ).not.toThrow()
  })
})
