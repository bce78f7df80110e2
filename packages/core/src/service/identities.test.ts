import { describe, expect, it } from 'vitest'
import { MemoryKeyStore } from '../store/memory.js'
import { rejection } from '../test/rejection.js'
import { createKeyward } from './keyward.js'

function setup() {
  const store = new MemoryKeyStore()
  const keyward = createKeyward({
    store,
    projectOwner: (projectId) => ({ proj_a: 'dev_a', proj_b: 'dev_b' })[projectId] ?? null,
  })
  return { store, keyward }
}

const actions = async (keyward: ReturnType<typeof setup>['keyward'], developerId = 'dev_a') =>
  (await keyward.listAudit(developerId)).records.map((row) => `${row.action} ${row.targetType}`)

describe('identities', () => {
  it('are created in a project, found by id and by external id, and listed newest first', async () => {
    const { keyward } = setup()
    const acme = await keyward.createIdentity('proj_a', {
      externalId: 'customer_acme',
      metadata: { plan: 'platinum' },
      ratelimits: [{ name: 'requests', limit: 10, duration: 1000 }],
    })
    expect(acme).toMatchObject({
      projectId: 'proj_a',
      externalId: 'customer_acme',
      metadata: { plan: 'platinum' },
      ratelimits: [{ name: 'requests', limit: 10, duration: 1000 }],
      remaining: null,
      refill: null,
    })
    const globex = await keyward.createIdentity('proj_a', { externalId: 'customer_globex' })
    expect(await keyward.findIdentity(acme.id)).toEqual(acme)
    expect(await keyward.findIdentityByExternalId('proj_a', 'customer_acme')).toEqual(acme)
    expect(await keyward.findIdentityByExternalId('proj_b', 'customer_acme')).toBeNull()
    const first = await keyward.listIdentitiesPage('proj_a', { limit: 1 })
    expect(first.records.map((identity) => identity.id)).toEqual([globex.id])
    const second = await keyward.listIdentitiesPage('proj_a', { limit: 1, after: first.next! })
    expect(second.records.map((identity) => identity.id)).toEqual([acme.id])
    expect(second.next).toBeNull()
  })

  it("start a pool's refill period when they are made, as a key's: its first lease takes from the balance given, the refill comes at the next period", async () => {
    const { store } = setup()
    const made = new Date('2026-03-10T12:00:00Z')
    const keyward = createKeyward({ store, now: () => made, projectOwner: () => 'dev_a' })
    const pool = await keyward.createIdentity('proj_a', {
      externalId: 'customer_pool',
      remaining: 1500,
      refill: { amount: 2000, interval: 'monthly', day: 1 },
    })
    expect(pool.refilledAt).toEqual(new Date('2026-03-01T00:00:00Z'))
    const lease = await store.identities.leaseIdentityCredits(pool.id, 100, 1, made)
    expect(lease).toMatchObject({ granted: 100, remaining: 1400 })
    const april = await store.identities.leaseIdentityCredits(
      pool.id,
      100,
      1,
      new Date('2026-04-01T00:00:01Z'),
    )
    expect(april).toMatchObject({ granted: 100, remaining: 1900 })
  })

  it('have external ids unique within a project: 409 identity_exists, and nothing is written', async () => {
    const { keyward } = setup()
    await keyward.createIdentity('proj_a', { externalId: 'customer_acme' })
    const rowsBefore = (await keyward.listAudit('dev_a')).records.length
    expect(await rejection(keyward.createIdentity('proj_a', { externalId: 'customer_acme' }))).toMatchObject({
      type: 'identity_exists',
      status: 409,
      loc: ['body', 'external_id'],
    })
    expect((await keyward.listAudit('dev_a')).records.length).toBe(rowsBefore)
    expect(await keyward.createIdentity('proj_b', { externalId: 'customer_acme' })).toMatchObject({
      projectId: 'proj_b',
    })
  })

  it('refuse a misspelt option and bad values, creating nothing', async () => {
    const { keyward } = setup()
    const typo = { externalId: 'x', ratelimit: [] } as never
    expect(await rejection(keyward.createIdentity('proj_a', typo))).toMatchObject({
      type: 'extra_forbidden',
      loc: ['options', 'ratelimit'],
    })
    const limits = [{ name: 'r', limit: 10, duration: 500 }]
    expect(
      await rejection(keyward.createIdentity('proj_a', { externalId: 'x', ratelimits: limits })),
    ).toMatchObject({
      type: 'greater_than_equal',
      loc: ['body', 'ratelimits', '0', 'duration'],
    })
    expect((await keyward.listIdentitiesPage('proj_a')).records).toEqual([])
  })

  it('change their metadata and limits, never their external id, each change audited', async () => {
    const { keyward } = setup()
    const acme = await keyward.createIdentity('proj_a', {
      externalId: 'customer_acme',
      metadata: { plan: 'free' },
    })
    const updated = await keyward.updateIdentity(acme.id, {
      metadata: { plan: 'platinum' },
      ratelimits: [{ name: 'requests', limit: 100, duration: 60_000 }],
    })
    expect(updated).toMatchObject({ externalId: 'customer_acme', metadata: { plan: 'platinum' } })
    expect(await rejection(keyward.updateIdentity(acme.id, { external_id: 'other' } as never))).toMatchObject(
      {
        type: 'value_error',
        loc: ['body', 'external_id'],
      },
    )
    expect(await keyward.updateIdentity('0e7d4b3a-6f7e-4c1e-9d5a-2b1c0a9f8e7d', {})).toBeNull()
    // Newest first.
    expect(await actions(keyward)).toEqual(['identity.updated identity', 'identity.created identity'])
    const [change] = (await keyward.listAudit('dev_a')).records
    // Only what changed, and the host's data about its customer never enters the append-only log.
    expect(change).toMatchObject({
      before: { metadata: { redacted: true }, ratelimits: [] },
      after: {
        metadata: { redacted: true },
        ratelimits: [{ name: 'requests', limit: 100, duration: 60_000 }],
      },
    })
    expect(Object.keys(change!.after!)).toEqual(['metadata', 'ratelimits'])
    expect(JSON.stringify(change)).not.toContain('platinum')
  })

  it('take keys of their project, and a key leaves one by null', async () => {
    const { keyward } = setup()
    const acme = await keyward.createIdentity('proj_a', { externalId: 'customer_acme' })
    const other = await keyward.createIdentity('proj_b', { externalId: 'customer_other' })
    const { record } = await keyward.issueProjectKey('proj_a')
    expect(await keyward.setKeyIdentity(record.id, acme.id)).toMatchObject({
      id: record.id,
      identityId: acme.id,
    })
    expect((await keyward.findKey(record.id))?.identityId).toBe(acme.id)
    expect((await keyward.listIdentityKeys(acme.id)).records.map((key) => key.id)).toEqual([record.id])
    // An identity of another project is no identity of this key's.
    expect(await keyward.setKeyIdentity(record.id, other.id)).toBeNull()
    expect((await keyward.findKey(record.id))?.identityId).toBe(acme.id)
    expect(await keyward.setKeyIdentity(record.id, null)).toMatchObject({ identityId: null })
    expect((await keyward.listIdentityKeys(acme.id)).records).toEqual([])
    expect(await actions(keyward)).toContain('key.identity_set key')
  })

  it('with keys are deleted only with revokeKeys, which revokes them in the same step', async () => {
    const { keyward } = setup()
    const acme = await keyward.createIdentity('proj_a', { externalId: 'customer_acme' })
    const one = await keyward.issueProjectKey('proj_a')
    const two = await keyward.issueProjectKey('proj_a')
    await keyward.setKeyIdentity(one.record.id, acme.id)
    await keyward.setKeyIdentity(two.record.id, acme.id)
    expect(await rejection(keyward.deleteIdentity(acme.id))).toMatchObject({
      type: 'identity_has_keys',
      status: 409,
    })
    expect(await keyward.findIdentity(acme.id)).not.toBeNull()
    expect((await keyward.findKey(one.record.id))?.active).toBe(true)

    const deleted = await keyward.deleteIdentity(acme.id, { revokeKeys: true })
    expect(deleted?.revoked.map((key) => key.id).sort()).toEqual([one.record.id, two.record.id].sort())
    expect(await keyward.findIdentity(acme.id)).toBeNull()
    for (const { record } of [one, two]) {
      expect(await keyward.findKey(record.id)).toMatchObject({ active: false, identityId: null })
    }
    const rejected = await rejection(
      keyward.authenticate({ projectKey: one.key }, { scope: 'project', projectId: 'proj_a' }),
    )
    expect(rejected).toMatchObject({ type: 'key_invalid' })
    expect(await actions(keyward)).toEqual(
      expect.arrayContaining(['identity.deleted identity', 'key.revoked key']),
    )
    expect(await keyward.deleteIdentity(acme.id)).toBeNull()
  })

  it('without keys are deleted at once', async () => {
    const { keyward } = setup()
    const acme = await keyward.createIdentity('proj_a', { externalId: 'customer_acme' })
    expect(await keyward.deleteIdentity(acme.id)).toMatchObject({ identity: { id: acme.id }, revoked: [] })
    // Its external id is free again.
    expect(await keyward.createIdentity('proj_a', { externalId: 'customer_acme' })).toMatchObject({
      externalId: 'customer_acme',
    })
  })
})

describe('a new API key joins an identity', () => {
  it('by its id, one of the project’s', async () => {
    const { keyward } = setup()
    const acme = await keyward.createIdentity('proj_a', { externalId: 'customer_acme' })
    const { record } = await keyward.issueProjectKey('proj_a', { name: 'production', identityId: acme.id })
    expect(record.identityId).toBe(acme.id)
    expect((await keyward.listIdentityKeys(acme.id)).records.map((key) => key.id)).toEqual([record.id])
    const other = await keyward.createIdentity('proj_b', { externalId: 'customer_other' })
    expect(await rejection(keyward.issueProjectKey('proj_a', { identityId: other.id }))).toMatchObject({
      type: 'value_error',
      loc: ['body', 'identity_id'],
    })
    expect((await keyward.listKeys({ type: 'project', id: 'proj_a' })).map((key) => key.id)).toEqual([
      record.id,
    ])
  })

  it('by its external id, created on first use and found after', async () => {
    const { keyward } = setup()
    const first = await keyward.issueProjectKey('proj_a', { externalId: 'customer_acme' })
    const identity = await keyward.findIdentityByExternalId('proj_a', 'customer_acme')
    expect(first.record.identityId).toBe(identity?.id)
    const second = await keyward.issueProjectKey('proj_a', { externalId: 'customer_acme' })
    expect(second.record.identityId).toBe(identity?.id)
    expect((await keyward.listIdentitiesPage('proj_a')).records).toHaveLength(1)
    expect(await actions(keyward)).toContain('identity.created identity')
  })

  it('is refused, creating nothing, for both at once, for a developer key, or with a key-shaped external id', async () => {
    const { keyward } = setup()
    const acme = await keyward.createIdentity('proj_a', { externalId: 'customer_acme' })
    expect(
      await rejection(
        keyward.issueProjectKey('proj_a', { identityId: acme.id, externalId: 'customer_acme' }),
      ),
    ).toMatchObject({ type: 'value_error', loc: ['body', 'identity_id'] })
    expect(
      await rejection(keyward.issueDeveloperKey('dev_a', { externalId: 'customer_acme' })),
    ).toMatchObject({
      type: 'value_error',
      loc: ['body', 'external_id'],
    })
    const { key } = await keyward.issueProjectKey('proj_b')
    expect(await rejection(keyward.issueProjectKey('proj_a', { externalId: `x ${key}` }))).toMatchObject({
      type: 'key_shaped_value',
    })
    expect((await keyward.listKeys({ type: 'project', id: 'proj_a' })).length).toBe(0)
    expect((await keyward.listIdentitiesPage('proj_a')).records).toHaveLength(1)
  })
})

describe('a verification of a key of an identity', () => {
  it('answers the identity in the guard context, and a change of it at once, cached or not', async () => {
    for (const cache of [false, {}] as const) {
      const store = new MemoryKeyStore()
      const keyward = createKeyward({ store, cache })
      const acme = await keyward.createIdentity('proj_a', {
        externalId: 'customer_acme',
        metadata: { plan: 'pro' },
      })
      const { key } = await keyward.issueProjectKey('proj_a', { identityId: acme.id })
      const plain = await keyward.issueProjectKey('proj_a')
      const requirement = { scope: 'project', projectId: 'proj_a' } as const
      const verify = async (presented: string) =>
        (await keyward.authenticate({ projectKey: presented }, requirement)) as { identity: unknown }
      expect((await verify(key)).identity).toEqual({
        id: acme.id,
        externalId: 'customer_acme',
        metadata: { plan: 'pro' },
      })
      expect((await verify(plain.key)).identity).toBeNull()
      await keyward.updateIdentity(acme.id, { metadata: { plan: 'enterprise' } })
      expect((await verify(key)).identity).toMatchObject({ metadata: { plan: 'enterprise' } })
      // The guards' synchronous path answers the same once the key is cached.
      if (cache) {
        expect(keyward.authenticateNow({ projectKey: key }, requirement)).toMatchObject({
          identity: { metadata: { plan: 'enterprise' } },
        })
      }
      await keyward.close()
    }
  })
})

describe('a rolled key of an identity', () => {
  it('is replaced by a key of the same identity', async () => {
    const { keyward } = setup()
    const acme = await keyward.createIdentity('proj_a', { externalId: 'customer_acme' })
    const { record } = await keyward.issueProjectKey('proj_a', { identityId: acme.id })
    const rolled = await keyward.rollKey(record.id, { graceSeconds: 0 })
    expect(rolled?.record.identityId).toBe(acme.id)
    expect((await keyward.listIdentityKeys(acme.id)).records.map((key) => key.id)).toContain(
      rolled?.record.id,
    )
  })
})
