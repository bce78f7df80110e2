import { describe, expect, it } from 'vitest'
import { MemoryKeyStore } from '../store/memory.js'
import { rejection } from '../test/rejection.js'
import type { KeywardEvent } from './events.js'
import { createKeyward } from './keyward.js'
import { readExpiryFields } from './lifecycle.js'
import type { KeywardOptions } from './options.js'

const DAY = 86_400_000
const START = new Date('2026-03-01T00:00:00Z')

function setup(extra: Partial<KeywardOptions> = {}) {
  const store = new MemoryKeyStore()
  const events: KeywardEvent[] = []
  const clock = { ms: START.getTime() }
  const keyward = createKeyward({
    store,
    now: () => new Date(clock.ms),
    onEvent: (event) => events.push(event),
    ...extra,
  })
  const asProject = (projectKey: string, projectId = 'proj_a') =>
    keyward.authenticate({ projectKey }, { scope: 'project', projectId })
  return { store, keyward, events, clock, asProject }
}

describe('expiry', () => {
  it('sets an expiry from expiresAt or expiresInDays, and refuses a bad one with 422', async () => {
    const { keyward } = setup()
    const at = new Date(START.getTime() + 5 * DAY)
    expect((await keyward.issueProjectKey('proj_a', { expiresAt: at })).record.expiresAt).toEqual(at)
    expect((await keyward.issueProjectKey('proj_a', { expiresInDays: 90 })).record.expiresAt).toEqual(
      new Date(START.getTime() + 90 * DAY),
    )
    expect((await keyward.issueProjectKey('proj_a')).record.expiresAt).toBeNull()
    const cases: [object, string, string][] = [
      [{ expiresAt: START }, 'datetime_future', 'expires_at'],
      [{ expiresInDays: 0 }, 'greater_than_equal', 'expires_in_days'],
      [{ expiresInDays: 3651 }, 'less_than_equal', 'expires_in_days'],
      [{ expiresInDays: 1.5 }, 'int_type', 'expires_in_days'],
      [{ expiresInDays: '3' }, 'int_type', 'expires_in_days'],
      [{ expiresAt: at, expiresInDays: 3 }, 'value_error', 'expires_in_days'],
    ]
    for (const [options, type, field] of cases) {
      expect(await rejection(keyward.issueDeveloperKey('dev_a', options))).toMatchObject({
        type,
        status: 422,
        loc: ['body', field],
      })
    }
    expect(await keyward.listKeys({ type: 'developer', id: 'dev_a' })).toEqual([])
  })

  it('reads expires_at as ISO 8601 with an offset, and nothing else', () => {
    expect(readExpiryFields({ expires_at: '2027-01-31T10:00:00+02:00' })).toEqual({
      expiresAt: new Date('2027-01-31T08:00:00Z'),
    })
    expect(readExpiryFields({ expires_in_days: 7 })).toEqual({ expiresInDays: 7 })
    expect(readExpiryFields({})).toEqual({})
    for (const value of ['2027-02-30T00:00:00Z', '2027-01-31T00:00:00', '2027-01-31', 'soon', 5, true]) {
      expect(() => readExpiryFields({ expires_at: value })).toThrow(
        expect.objectContaining({ type: 'datetime_parsing', loc: ['body', 'expires_at'] }),
      )
    }
  })

  it('refuses an expired key with key_invalid, as an unknown one, and tells the hook expired_key', async () => {
    const { keyward, events, clock, asProject } = setup()
    const { key, record } = await keyward.issueProjectKey('proj_a', { expiresInDays: 1 })
    await expect(asProject(key)).resolves.toBeTruthy()
    clock.ms += DAY
    const expired = await rejection(asProject(key))
    const unknown = await rejection(asProject(`ak_${'A'.repeat(32)}`))
    expect(expired).toEqual({ ...unknown })
    expect(expired.type).toBe('key_invalid')
    expect(events.at(-2)).toMatchObject({ type: 'auth.failed', reason: 'expired_key', keyId: record.id })
  })

  it('does not count expired keys against the limit, and will not re-activate one', async () => {
    const { keyward, clock } = setup({ developerKeyLimit: 2 })
    const short = await keyward.issueDeveloperKey('dev_a', { expiresInDays: 1 })
    await keyward.issueDeveloperKey('dev_a')
    expect(await rejection(keyward.issueDeveloperKey('dev_a'))).toMatchObject({ type: 'limit_exceeded' })
    clock.ms += DAY
    await keyward.issueDeveloperKey('dev_a')
    await keyward.deactivateKey(short.record.id)
    expect(await rejection(keyward.activateKey(short.record.id))).toMatchObject({
      type: 'key_expired',
      status: 409,
    })
  })
})

describe('rolling', () => {
  it('issues a new key of the same owner and name; the old one works through the grace window', async () => {
    const { keyward, events, clock, asProject } = setup()
    const old = await keyward.issueProjectKey('proj_a', { name: 'ci' })
    const rolled = await keyward.rollKey(old.record.id, { graceSeconds: 3600 })
    expect(rolled?.key).toMatch(/^ak_/)
    expect(rolled?.record).toMatchObject({
      ownerType: 'project',
      ownerId: 'proj_a',
      name: 'ci',
      expiresAt: null,
    })
    expect(rolled?.previous).toMatchObject({
      id: old.record.id,
      replacedBy: rolled?.record.id,
      expiresAt: new Date(START.getTime() + 3_600_000),
    })
    expect(events.at(-1)).toMatchObject({
      type: 'key.rolled',
      keyId: rolled?.record.id,
      previousKeyId: old.record.id,
    })
    await expect(asProject(old.key)).resolves.toBeTruthy()
    await expect(asProject(rolled!.key)).resolves.toBeTruthy()
    clock.ms += 3_600_000
    expect(await rejection(asProject(old.key))).toMatchObject({ type: 'key_invalid' })
    await expect(asProject(rolled!.key)).resolves.toBeTruthy()
  })

  it('stops the old key at once with 0 seconds of grace, and defaults to a day', async () => {
    const { keyward, asProject } = setup()
    const first = await keyward.issueProjectKey('proj_a')
    const second = await keyward.issueProjectKey('proj_a')
    await keyward.rollKey(first.record.id, { graceSeconds: 0 })
    expect(await rejection(asProject(first.key))).toMatchObject({ type: 'key_invalid' })
    expect((await keyward.rollKey(second.record.id))?.previous.expiresAt).toEqual(
      new Date(START.getTime() + DAY),
    )
  })

  it('gives the new key the lifetime of the old one', async () => {
    const { keyward, clock } = setup()
    const old = await keyward.issueProjectKey('proj_a', { expiresInDays: 30 })
    clock.ms += 20 * DAY
    const rolled = await keyward.rollKey(old.record.id, { graceSeconds: 60 })
    expect(rolled?.record.expiresAt).toEqual(new Date(clock.ms + 30 * DAY))
  })

  it('refuses to roll a rolled, expired or inactive key, and to re-activate a rolled one', async () => {
    const { keyward, clock } = setup()
    const a = await keyward.issueProjectKey('proj_a')
    await keyward.rollKey(a.record.id)
    expect(await rejection(keyward.rollKey(a.record.id))).toMatchObject({ type: 'key_rolled', status: 409 })
    await keyward.deactivateKey(a.record.id)
    expect(await rejection(keyward.activateKey(a.record.id))).toMatchObject({ type: 'key_rolled' })
    const b = await keyward.issueProjectKey('proj_a')
    await keyward.deactivateKey(b.record.id)
    expect(await rejection(keyward.rollKey(b.record.id))).toMatchObject({ type: 'key_inactive', status: 409 })
    const c = await keyward.issueProjectKey('proj_a', { expiresInDays: 1 })
    clock.ms += DAY
    expect(await rejection(keyward.rollKey(c.record.id))).toMatchObject({ type: 'key_expired', status: 409 })
    expect(await keyward.rollKey(crypto.randomUUID())).toBeNull()
    for (const graceSeconds of [-1, 604_801, 1.5]) {
      expect(await rejection(keyward.rollKey(b.record.id, { graceSeconds }))).toMatchObject({
        status: 422,
        loc: ['body', 'grace_seconds'],
      })
    }
  })

  it('keeps a developer at the limit able to roll: the old key stops counting', async () => {
    const { keyward } = setup({ developerKeyLimit: 1 })
    const only = await keyward.issueDeveloperKey('dev_a')
    const rolled = await keyward.rollKey(only.record.id)
    expect(rolled?.record.active).toBe(true)
    expect(await rejection(keyward.issueDeveloperKey('dev_a'))).toMatchObject({ type: 'limit_exceeded' })
  })
})

describe('keyUsable', () => {
  it('gives a key read by id the guards’ verdict on its state, on the service’s clock', async () => {
    const { keyward, clock, asProject } = setup()
    const usable = async (id: string, kind: 'project' | 'developer' = 'project') =>
      keyward.keyUsable(await keyward.findKey(id), kind)
    const live = await keyward.issueProjectKey('proj_a', { expiresInDays: 1 })
    const revoked = await keyward.issueProjectKey('proj_a')
    const rolledNow = await keyward.issueProjectKey('proj_a')
    const rolledLater = await keyward.issueProjectKey('proj_a')
    await keyward.deactivateKey(revoked.record.id)
    await keyward.rollKey(rolledNow.record.id, { graceSeconds: 0 })
    await keyward.rollKey(rolledLater.record.id, { graceSeconds: 60 })

    const verdicts = async () => {
      const keys = [live, revoked, rolledNow, rolledLater]
      const guard = await Promise.all(
        keys.map(({ key }) =>
          asProject(key).then(
            () => true,
            () => false,
          ),
        ),
      )
      const byId = await Promise.all(keys.map(({ record }) => usable(record.id)))
      expect(byId).toEqual(guard)
      return byId
    }
    expect(await verdicts()).toEqual([true, false, false, true])
    clock.ms += 60_000
    expect(await verdicts()).toEqual([true, false, false, false])
    clock.ms += DAY
    expect(await verdicts()).toEqual([false, false, false, false])

    const developer = await keyward.issueDeveloperKey('dev_a')
    expect([await usable(developer.record.id, 'developer'), await usable(developer.record.id)]).toEqual([
      true,
      false,
    ])
    expect(keyward.keyUsable(null, 'project')).toBe(false)
  })
})

describe('last used', () => {
  it('writes a use at most once per key per interval, in batches, off the hot path', async () => {
    const { keyward, store, clock, asProject } = setup({ lastUsedIntervalSeconds: 60 })
    const calls: number[] = []
    const record = store.recordKeyUse.bind(store)
    store.recordKeyUse = async (uses) => {
      calls.push(uses.length)
      return record(uses)
    }
    const a = await keyward.issueProjectKey('proj_a')
    const b = await keyward.issueProjectKey('proj_a')
    for (let i = 0; i < 5; i++) await asProject(a.key)
    await asProject(b.key)
    expect(calls).toEqual([])
    await keyward.flushLastUsed()
    expect(calls).toEqual([2])
    expect((await store.findKeyById(a.record.id))?.lastUsedAt).toEqual(START)
    clock.ms += 59_000
    await keyward.flushLastUsed()
    await asProject(a.key)
    await keyward.flushLastUsed()
    expect(calls).toEqual([2])
    clock.ms += 1000
    await keyward.flushLastUsed() // the sweep that runs every quarter interval
    await asProject(a.key)
    await keyward.flushLastUsed()
    expect(calls).toEqual([2, 1])
    expect((await store.findKeyById(a.record.id))?.lastUsedAt).toEqual(new Date(clock.ms))
  })

  it('writes the first use within 10 seconds on its own timer', async () => {
    const { keyward, store, asProject } = setup({ now: undefined })
    const { key, record } = await keyward.issueProjectKey('proj_a')
    await asProject(key)
    const deadline = Date.now() + 11_000
    while ((await store.findKeyById(record.id))?.lastUsedAt == null && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 250))
    }
    expect((await store.findKeyById(record.id))?.lastUsedAt).toBeInstanceOf(Date)
  }, 15_000)

  it('never writes a revoked key, and a failed write changes no verification', async () => {
    const { keyward, store, events, asProject } = setup()
    const { key, record } = await keyward.issueProjectKey('proj_a')
    await asProject(key)
    await keyward.deactivateKey(record.id)
    await keyward.flushLastUsed()
    expect((await store.findKeyById(record.id))?.lastUsedAt).toBeNull()

    class FailingStore extends MemoryKeyStore {
      override recordKeyUse(): Promise<void> {
        return Promise.reject(new Error('disk full'))
      }
    }
    const broken = setup({ store: new FailingStore() })
    const other = await broken.keyward.issueProjectKey('proj_a')
    await expect(broken.asProject(other.key)).resolves.toBeTruthy()
    await broken.keyward.flushLastUsed()
    expect(broken.events.at(-1)).toMatchObject({ type: 'store.error', operation: 'recordKeyUse' })
    await expect(broken.asProject(other.key)).resolves.toBeTruthy()
    expect(events.some((e) => e.type === 'store.error')).toBe(false)
  })

  it('can be turned off', async () => {
    const { keyward, store, asProject } = setup({ trackLastUsed: false })
    const { key, record } = await keyward.issueProjectKey('proj_a')
    await asProject(key)
    await keyward.flushLastUsed()
    expect((await store.findKeyById(record.id))?.lastUsedAt).toBeNull()
  })
})

describe('rotation and audit events', () => {
  it('marks keys older than the rotation period as due, and reports a due key used once a day', async () => {
    const { keyward, events, clock, asProject } = setup({ rotationPeriodDays: 30 })
    const { key, record } = await keyward.issueProjectKey('proj_a')
    expect(keyward.isRotationDue(record)).toBe(false)
    clock.ms += 30 * DAY
    expect(keyward.isRotationDue(record)).toBe(true)
    await asProject(key)
    await asProject(key)
    const due = () => events.filter((e) => e.type === 'key.rotation_due')
    expect(due()).toEqual([
      expect.objectContaining({ type: 'key.rotation_due', keyId: record.id, createdAt: START }),
    ])
    clock.ms += DAY
    await asProject(key)
    expect(due()).toHaveLength(2)
    const rolled = await keyward.rollKey(record.id)
    expect(keyward.isRotationDue(rolled!.previous)).toBe(false)
    expect(keyward.isRotationDue(rolled!.record)).toBe(false)
  })

  it('reports auth.succeeded with key id, prefix and owner when asked to, and only then', async () => {
    const quiet = setup()
    await quiet.asProject((await quiet.keyward.issueProjectKey('proj_a')).key)
    expect(quiet.events.map((e) => e.type)).toEqual(['key.issued'])
    const { keyward, events, asProject } = setup({ auditSuccesses: true })
    const { key, record } = await keyward.issueProjectKey('proj_a')
    await asProject(key)
    expect(events.at(-1)).toEqual({
      type: 'auth.succeeded',
      keyId: record.id,
      keyPrefix: record.keyPrefix,
      ownerType: 'project',
      ownerId: 'proj_a',
    })
  })
})
