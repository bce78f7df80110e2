import {
  type AuditContext,
  type AuditFilter,
  type AuditWrite,
  type CreditAuditWrite,
  createKeyward,
  matchesAuditFilter,
} from '@keyward/core'
import { expect, it } from 'vitest'
import type { StoreHarness } from './store-conformance.js'
import { recordFor } from './store-record.js'

let counter = 0
const uniqueOwner = (label: string) => `${label}-audit-${Date.now().toString(36)}-${(counter++).toString(36)}`

const NOT_AUDITING = 'the store keeps no audit log (appendAudit is optional)'

// An audit that cannot be written: the fault between a change and its audit row.
const failing: AuditWrite = () => {
  throw new Error('injected: the audit row cannot be written')
}
const failingCredits: CreditAuditWrite = () => {
  throw new Error('injected: the audit row cannot be written')
}

/**
 * @internal The conformance cases of the audit log (`appendAudit`, `listAudit`, `readAuditLog`,
 * `auditChainHead`, and the `audit` argument of every write), registered inside the suite's
 * `describe`. A store without `appendAudit` skips them.
 */
export function auditCases(make: () => Promise<StoreHarness>): void {
  it('records every change through the service, with its actor, address, request id and changed fields, newest first, never key material', async (context) => {
    const harness = await make()
    const { store } = harness
    if (!store.appendAudit) return context.skip(NOT_AUDITING)
    const developerId = uniqueOwner('dev')
    const projectId = uniqueOwner('proj')
    const keyward = createKeyward({
      store,
      projectOwner: (id) => (id === projectId ? developerId : null),
    })
    const operator: AuditContext = { actor: { type: 'operator', name: 'ops' } }
    const registered = await keyward.registerDeveloper(developerId, {}, operator)
    const by: AuditContext = {
      actor: { type: 'developer', developerId, keyPrefix: registered.record.keyPrefix },
      clientAddress: '203.0.113.9',
      requestId: 'req-audit-1',
    }
    const issued = await keyward.issueProjectKey(projectId, { name: 'ci' }, by)
    const id = issued.record.id
    await keyward.deactivateKey(id, by)
    await keyward.activateKey(id, by)
    const expiresAt = new Date(Date.now() + 30 * 86_400_000)
    if (store.setKeyExpiry) await keyward.setKeyExpiry(id, { expiresAt }, by)
    await keyward.rollKey(id, { graceSeconds: 60 }, by)
    const other = await keyward.issueProjectKey(projectId, {}, by)
    const [leak] = await keyward.revokeLeakedKeys([
      { hash: other.record.hash, url: 'https://github.com/o/r/blob/main/.env', source: 'content' },
    ])
    expect(leak?.revoked).toBe(true)
    await keyward.deactivateOwnerKeys({ type: 'project', id: projectId }, by)
    await keyward.recordAudit(
      { action: 'project.deleted', targetType: 'project', targetId: projectId, developerId, projectId },
      by,
    )

    const rows = []
    let page = await keyward.listAudit(developerId, { limit: 3 })
    rows.push(...page.records)
    while (page.next !== null) {
      page = await keyward.listAudit(developerId, { limit: 3, beforeSeq: page.next })
      rows.push(...page.records)
    }
    const actions = rows.map((row) => row.action).reverse()
    expect(actions).toEqual([
      'developer.registered',
      'key.issued',
      'key.issued',
      'key.revoked',
      'key.activated',
      ...(store.setKeyExpiry ? ['key.expiry_set'] : []),
      'key.rolled',
      'key.issued',
      'key.issued',
      'key.revoked_leaked',
      // The owner's deletion ends the rolled key (in its grace window) and its replacement.
      'key.revoked',
      'key.revoked',
      'project.deleted',
    ])
    // Newest first, seq without a gap.
    expect(rows.map((row) => row.seq)).toEqual([...rows.map((row) => row.seq)].sort((a, b) => b - a))
    const [first] = rows.slice(-1)
    expect(first).toMatchObject({
      actor: { type: 'operator', name: 'ops' },
      targetType: 'developer',
      targetId: developerId,
      developerId,
      clientAddress: null,
    })
    const revoked = rows.find((row) => row.action === 'key.revoked' && row.targetId === id)
    expect(revoked).toMatchObject({
      actor: by.actor,
      clientAddress: '203.0.113.9',
      requestId: 'req-audit-1',
      developerId,
      projectId,
      before: { key_prefix: issued.record.keyPrefix, active: true, revoked_reason: null },
      after: { key_prefix: issued.record.keyPrefix, active: false, revoked_reason: 'revoked' },
    })
    expect(rows.find((row) => row.action === 'key.revoked_leaked')).toMatchObject({
      actor: { type: 'secret_scanning' },
      targetId: other.record.id,
      after: { active: false, revoked_reason: 'leaked', leak_url: 'https://github.com/o/r/blob/main/.env' },
    })
    const rolled = rows.find((row) => row.action === 'key.rolled')
    expect(rolled?.after).toMatchObject({ replaced_by: expect.any(String) })
    // Only this project's rows with projectId; none of another developer's.
    const ofProject = await keyward.listAudit(developerId, { projectId })
    expect(ofProject.records.every((row) => row.projectId === projectId)).toBe(true)
    expect(ofProject.records).toHaveLength(rows.filter((row) => row.projectId === projectId).length)
    expect((await keyward.listAudit(uniqueOwner('dev'))).records).toEqual([])
    // A filter keeps the rows its rule keeps (one key, one action, a range of time), in order,
    // page after page.
    const oldest = rows.at(-1)!.at
    const filters: AuditFilter[] = [
      { keyId: id },
      { keyId: id, action: 'key.issued' },
      { action: 'key.revoked' },
      { from: rows[2]!.at },
      { to: rows[2]!.at },
      { keyId: id, from: oldest, to: new Date(Date.now() + 60_000) },
      { keyId: crypto.randomUUID() },
    ]
    for (const filter of filters) {
      const kept: number[] = []
      let page = await keyward.listAudit(developerId, { limit: 2, filter })
      kept.push(...page.records.map((row) => row.seq))
      while (page.next) {
        page = await keyward.listAudit(developerId, { limit: 2, beforeSeq: page.next, filter })
        kept.push(...page.records.map((row) => row.seq))
      }
      const expected = rows.filter((row) => matchesAuditFilter(row, filter)).map((row) => row.seq)
      expect({ filter, kept }).toEqual({ filter, kept: expected })
    }
    expect(rows.filter((row) => matchesAuditFilter(row, { keyId: id })).length).toBeGreaterThan(3)
    // No key and no hash anywhere, as the store returns the rows and as it keeps them.
    const text = JSON.stringify([rows, (await harness.readRawAudit?.()) ?? []])
    for (const key of [registered.key, issued.key, other.key]) expect(text).not.toContain(key.slice(8))
    for (const record of [registered.record, issued.record, other.record]) {
      expect(text).not.toContain(record.hash)
    }
    expect(await keyward.verifyAudit()).toMatchObject({ ok: true })
  })

  it("filters the rows about one identity: its own, and its keys' joining or leaving it, not another's (when it keeps identities)", async (context) => {
    const { store } = await make()
    if (!store.appendAudit) return context.skip(NOT_AUDITING)
    if (!store.identities) return context.skip('the store keeps no identities (store.identities is optional)')
    const developerId = uniqueOwner('dev')
    const projectId = uniqueOwner('proj')
    const keyward = createKeyward({ store, projectOwner: (id) => (id === projectId ? developerId : null) })
    const acme = await keyward.createIdentity(projectId, { externalId: 'customer_acme' })
    const other = await keyward.createIdentity(projectId, { externalId: 'customer_other' })
    const { record: key } = await keyward.issueProjectKey(projectId, { name: 'ci' })
    await keyward.setKeyIdentity(key.id, acme.id)
    await keyward.updateIdentity(acme.id, { metadata: { plan: 'pro' } })
    await keyward.setKeyIdentity(key.id, other.id) // leaves acme for the other: about both
    await keyward.updateIdentity(other.id, { metadata: { plan: 'free' } })
    await keyward.issueProjectKey(projectId, { name: 'born in it', identityId: other.id })
    await keyward.issueProjectKey(projectId, { name: 'of none' })
    const about = async (identityId: string) =>
      (await keyward.listAudit(developerId, { filter: { identityId } })).records.map((row) => row.action)
    expect(await about(acme.id)).toEqual([
      'key.identity_set',
      'identity.updated',
      'key.identity_set',
      'identity.created',
    ])
    expect(await about(other.id)).toEqual([
      'key.issued',
      'identity.updated',
      'key.identity_set',
      'identity.created',
    ])
    expect(await about(crypto.randomUUID())).toEqual([])
    // The store's rule is the one `matchesAuditFilter` states.
    const all = (await keyward.listAudit(developerId)).records
    expect(
      all.filter((row) => matchesAuditFilter(row, { identityId: acme.id })).map((row) => row.action),
    ).toEqual(await about(acme.id))
  })

  it('a write whose audit rows fail is not made: nothing changes, no row is appended', async (context) => {
    const { store } = await make()
    if (!store.appendAudit || !store.auditChainHead) return context.skip(NOT_AUDITING)
    const owner = uniqueOwner('proj')
    const kept = await store.insertKey(await recordFor(undefined, 'project', owner))
    const head = await store.auditChainHead()
    const refused = async (write: () => Promise<unknown>) => {
      await expect(write()).rejects.toThrow('injected')
    }
    const fresh = await recordFor(undefined, 'project', owner)
    await refused(() => store.insertKey(fresh, undefined, failing))
    await refused(() => store.insertKey(fresh, 10, failing))
    expect(await store.findKeyById(fresh.id)).toBeNull()
    await refused(() => store.setKeyActive(kept.id, false, undefined, new Date(), failing))
    if (store.setKeyExpiry)
      await refused(() => store.setKeyExpiry!(kept.id, new Date(Date.now() + 1e9), failing))
    if (store.setKeyPolicies)
      await refused(() => store.setKeyPolicies!(kept.id, { permissions: [] }, failing))
    const replacement = await recordFor(undefined, 'project', owner)
    await refused(() =>
      store.rollKey(kept.id, replacement, new Date(Date.now() + 60_000), new Date(), failing),
    )
    if (store.changeCredits) {
      await refused(() =>
        store.changeCredits!(kept.id, { op: 'set', remaining: 5 }, new Date(), failingCredits),
      )
      const metered = await store.insertKey({
        ...(await recordFor(undefined, 'project', owner)),
        remaining: 10,
        refill: null,
        refilledAt: null,
      })
      await refused(() =>
        store.changeCredits!(metered.id, { op: 'add', amount: 5 }, new Date(), failingCredits),
      )
      expect(await store.findKeyById(metered.id)).toEqual(metered)
    }
    await refused(() => store.deactivateKeys([kept.id], 'leaked', failing))
    if (store.deactivateOwnerKeys) {
      await refused(() => store.deactivateOwnerKeys!({ type: 'project', id: owner }, failing))
    }
    expect(await store.findKeyById(kept.id)).toEqual(kept)
    expect(await store.findKeyById(replacement.id)).toBeNull()
    // The owner was not closed: it still gets keys.
    await store.insertKey(await recordFor(undefined, 'project', owner))
    expect(await store.auditChainHead()).toEqual(head)
  })

  it("records each change of a key's credits: the actor, the balance before and after, the refill when it changed", async (context) => {
    const harness = await make()
    const { store } = harness
    if (!store.appendAudit || !store.changeCredits) return context.skip(NOT_AUDITING)
    const developerId = uniqueOwner('dev')
    const projectId = uniqueOwner('proj')
    const keyward = createKeyward({ store, projectOwner: (id) => (id === projectId ? developerId : null) })
    const by: AuditContext = {
      actor: { type: 'developer', developerId, keyPrefix: 'ak_Cr3d1' },
      clientAddress: '198.51.100.7',
      requestId: 'req-credits-1',
    }
    const issued = await keyward.issueProjectKey(projectId, { remaining: 10 }, by)
    const id = issued.record.id
    const prefix = issued.record.keyPrefix
    const monthly = { amount: 500, interval: 'monthly', day: 1 } as const
    await keyward.changeCredits(id, { op: 'add', amount: 5 }, by)
    await keyward.changeCredits(id, { op: 'subtract', amount: 3 }, by)
    await keyward.changeCredits(id, { op: 'set', remaining: 100, refill: monthly }, by)
    await keyward.changeCredits(id, { op: 'set', remaining: null }) // by the system
    // A refused change (below zero) appends nothing.
    const head = await store.auditChainHead!()
    await keyward.changeCredits(id, { op: 'set', remaining: 1 }, by)
    await expect(keyward.changeCredits(id, { op: 'subtract', amount: 2 }, by)).rejects.toMatchObject({
      status: 422,
    })
    expect((await store.auditChainHead!()).seq).toBe(head.seq + 1)

    const { records } = await keyward.listAudit(developerId, { projectId, limit: 20 })
    const rows = records.filter((row) => row.action === 'key.credits_changed').reverse()
    const common = { targetType: 'key', targetId: id, developerId, projectId }
    expect(rows.map(({ actor, before, after }) => ({ actor, before, after }))).toEqual([
      {
        actor: by.actor,
        before: { key_prefix: prefix, remaining: 10 },
        after: { key_prefix: prefix, remaining: 15, op: 'add', amount: 5 },
      },
      {
        actor: by.actor,
        before: { key_prefix: prefix, remaining: 15 },
        after: { key_prefix: prefix, remaining: 12, op: 'subtract', amount: 3 },
      },
      {
        actor: by.actor,
        before: { key_prefix: prefix, remaining: 12, refill: null },
        after: { key_prefix: prefix, remaining: 100, refill: monthly, op: 'set', amount: 100 },
      },
      {
        actor: { type: 'system' },
        before: { key_prefix: prefix, remaining: 100, refill: monthly },
        after: { key_prefix: prefix, remaining: null, refill: null, op: 'set', amount: null },
      },
      {
        actor: by.actor,
        before: { key_prefix: prefix, remaining: null },
        after: { key_prefix: prefix, remaining: 1, op: 'set', amount: 1 },
      },
    ])
    for (const row of rows) expect(row).toMatchObject(common)
    expect(rows[0]).toMatchObject({ clientAddress: '198.51.100.7', requestId: 'req-credits-1' })
    const text = JSON.stringify([rows, (await harness.readRawAudit?.()) ?? []])
    expect(text).not.toContain(issued.key.slice(8))
    expect(text).not.toContain(issued.record.hash)
    expect(await keyward.verifyAudit()).toMatchObject({ ok: true })
  })

  it('concurrent writes append one chain: every seq once, in order, each row linked to the one before', async (context) => {
    const { store } = await make()
    if (!store.appendAudit) return context.skip(NOT_AUDITING)
    const keyward = createKeyward({ store })
    const developers = Array.from({ length: 12 }, () => uniqueOwner('dev'))
    const before = await store.auditChainHead!()
    await Promise.all([
      ...developers.map((developerId) => keyward.registerDeveloper(developerId)),
      ...developers.map((developerId) =>
        keyward.recordAudit({
          action: 'console.signed_in',
          targetType: 'developer',
          targetId: developerId,
          developerId,
        }),
      ),
    ])
    const head = await store.auditChainHead!()
    expect(head.seq - before.seq).toBe(developers.length * 3)
    const rows = await store.readAuditLog!(before.seq, 1000)
    expect(rows.map((row) => row.seq)).toEqual(Array.from(rows, (_, i) => before.seq + i + 1))
    for (let i = 1; i < rows.length; i++) expect(rows[i]!.previousHash).toBe(rows[i - 1]!.hash)
    expect(rows.at(-1)?.hash).toBe(head.hash)
    expect(await keyward.verifyAudit()).toEqual({
      ok: true,
      checked: head.seq - head.startSeq,
      lastSeq: head.seq,
    })
  })

  it('a write that changes nothing, or is refused, appends no row', async (context) => {
    const { store } = await make()
    if (!store.appendAudit) return context.skip(NOT_AUDITING)
    const keyward = createKeyward({ store, developerKeyLimit: 1 })
    const developerId = uniqueOwner('dev')
    const first = await keyward.issueDeveloperKey(developerId)
    const head = await store.auditChainHead!()
    await expect(keyward.issueDeveloperKey(developerId)).rejects.toMatchObject({ type: 'limit_exceeded' })
    await expect(keyward.registerDeveloper(developerId)).rejects.toMatchObject({ type: 'limit_exceeded' })
    await keyward.deactivateKey(first.record.id)
    const after = await store.auditChainHead!()
    expect(after.seq).toBe(head.seq + 1)
    await keyward.deactivateKey(first.record.id) // already inactive
    expect(await keyward.revokeLeakedKeys([{ hash: first.record.hash }])).toMatchObject([{ revoked: false }])
    expect(await store.auditChainHead!()).toEqual(after)
  })
}
