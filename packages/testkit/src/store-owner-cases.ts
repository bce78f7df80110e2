import { createKeyward, ErrorType, type KeyRecord } from '@keyward/core'
import { expect, it } from 'vitest'
import type { StoreHarness } from './store-conformance.js'
import { byId, recordFor } from './store-record.js'

let counter = 0
const uniqueOwner = (label: string) =>
  `${label}-closed-${Date.now().toString(36)}-${(counter++).toString(36)}`

const newRecord = (ownerType: 'developer' | 'project', ownerId: string): Promise<KeyRecord> =>
  recordFor(undefined, ownerType, ownerId)

/**
 * @internal The conformance cases of `deactivateOwnerKeys` (closing a deleted owner), registered
 * inside the suite's `describe`; each is skipped, with the reason, for a store without the method.
 */
export function ownerCases(make: () => Promise<StoreHarness>, repeats: number): void {
  const skipReason = 'the store has no deactivateOwnerKeys (it is optional)'

  it('closes an owner: its active keys are deactivated once, other owners keep theirs (when it has deactivateOwnerKeys)', async (context) => {
    const { store } = await make()
    if (!store.deactivateOwnerKeys) return context.skip(skipReason)
    const project = uniqueOwner('proj')
    const records = [
      await store.insertKey(await newRecord('project', project)),
      await store.insertKey(await newRecord('project', project)),
      await store.insertKey({ ...(await newRecord('project', project)), active: false }),
    ]
    const other = await store.insertKey(await newRecord('project', uniqueOwner('proj')))
    // The same id for the other kind of owner is another owner.
    const developer = await store.insertKey(await newRecord('developer', project), 10)

    const deactivated = await store.deactivateOwnerKeys({ type: 'project', id: project })
    expect(byId(deactivated)).toEqual(byId(records.slice(0, 2).map((r) => ({ ...r, active: false }))))
    expect(await store.deactivateOwnerKeys({ type: 'project', id: project })).toEqual([])
    const listed = await store.listKeysByOwner({ type: 'project', id: project })
    expect(listed.map((r) => r.active)).toEqual([false, false, false])
    expect((await store.findKeyByHash(records[0]!.hash))?.active).toBe(false)
    expect((await store.findKeyById(other.id))?.active).toBe(true)
    expect((await store.findKeyById(developer.id))?.active).toBe(true)
    // An owner that never had a key can be closed too.
    expect(await store.deactivateOwnerKeys({ type: 'developer', id: uniqueOwner('dev') })).toEqual([])
  })

  it('refuses, after the deletion, a creation (404 not_found), a re-activation and a roll of the owner’s keys (when it has deactivateOwnerKeys)', async (context) => {
    const { store } = await make()
    if (!store.deactivateOwnerKeys) return context.skip(skipReason)
    for (const type of ['project', 'developer'] as const) {
      const owner = uniqueOwner(type)
      const limit = type === 'developer' ? 10 : undefined
      const old = await store.insertKey(await newRecord(type, owner), limit)
      await store.deactivateOwnerKeys({ type, id: owner })

      const refused = await newRecord(type, owner)
      for (const attempt of [
        () => store.insertKey(refused, limit),
        () => store.insertKey({ ...refused, active: false }),
        () => store.setKeyActive(old.id, true, limit),
      ]) {
        await expect(attempt()).rejects.toMatchObject({ type: ErrorType.notFound, status: 404 })
      }
      expect(await store.findKeyByHash(refused.hash)).toBeNull()
      const replacement = await newRecord(type, owner)
      const now = new Date()
      expect(await store.rollKey(old.id, replacement, new Date(now.getTime() + 60_000), now)).toBeNull()
      expect(await store.findKeyByHash(replacement.hash)).toBeNull()
      expect((await store.findKeyById(old.id))?.active).toBe(false)
      // Through the service: the spec's project-not-found error.
      const keyward = createKeyward({ store })
      const issue = type === 'project' ? keyward.issueProjectKey(owner) : keyward.issueDeveloperKey(owner)
      await expect(issue).rejects.toMatchObject({
        type: ErrorType.notFound,
        status: 404,
        loc: type === 'project' ? ['path', 'project_id'] : [],
      })
      expect((await store.listKeysByOwner({ type, id: owner })).filter((r) => r.active)).toEqual([])
    }
  })

  it('concurrent creations, re-activations and rolls racing one deletion leave no active key, every time (when it has deactivateOwnerKeys)', async (context) => {
    const harness = await make()
    const { store } = harness
    if (!store.deactivateOwnerKeys) return context.skip(skipReason)
    const keyward = createKeyward({ store, trackLastUsed: false })
    let issued = 0
    let refused = 0
    for (let round = 0; round < repeats; round++) {
      const project = uniqueOwner('race')
      const developer = uniqueOwner('race')
      const existing = [
        await keyward.issueProjectKey(project),
        await keyward.issueProjectKey(project),
        await keyward.issueDeveloperKey(developer),
      ]
      const inactive = await keyward.issueProjectKey(project)
      await keyward.deactivateKey(inactive.record.id)
      // Each outcome is caught at once: a refusal that comes before the deletions is no unhandled rejection.
      const outcome = (call: Promise<unknown>) =>
        call.then(
          () => null,
          (error: { type?: string }) => error.type ?? String(error),
        )
      const creations = (count: number) => [
        ...Array.from({ length: count }, () => outcome(keyward.issueProjectKey(project))),
        ...Array.from({ length: count }, () => outcome(keyward.issueDeveloperKey(developer))),
      ]
      const racing = [
        ...creations(6),
        outcome(keyward.activateKey(inactive.record.id)),
        outcome(keyward.rollKey(existing[0]!.record.id, { graceSeconds: 60 })),
        outcome(keyward.rollKey(existing[2]!.record.id, { graceSeconds: 60 })),
      ]
      // The deletions start while the first creations are under way, the last ones after them.
      await new Promise((resolve) => setTimeout(resolve, 0))
      const deletions = [
        keyward.deactivateOwnerKeys({ type: 'project', id: project }),
        keyward.deactivateOwnerKeys({ type: 'developer', id: developer }),
      ]
      racing.push(...creations(6))
      await Promise.all(deletions)
      for (const type of await Promise.all(racing)) {
        if (type === null) {
          issued++
          continue
        }
        // Refused because the owner is closed (404); a roll or an activation may find its key
        // deactivated (409), and the developer may reach its limit first (409).
        expect([ErrorType.notFound, ErrorType.keyInactive, ErrorType.limitExceeded]).toContain(type)
        if (type === ErrorType.notFound) refused++
      }
      for (const owner of [
        { type: 'project', id: project },
        { type: 'developer', id: developer },
      ] as const) {
        const active = (await store.listKeysByOwner(owner)).filter((r) => r.active)
        expect(active, `active keys of ${owner.type} ${owner.id} after its deletion`).toEqual([])
        const raw = await harness.readRaw()
        const rows = raw.filter((row) => Object.values(row).includes(owner.id))
        expect(rows.filter((row) => row.active === true || row.active === 1)).toEqual([])
      }
      await expect(keyward.issueProjectKey(project)).rejects.toMatchObject({ type: ErrorType.notFound })
    }
    // Both outcomes happened: the race was real.
    expect(issued).toBeGreaterThan(0)
    expect(refused).toBeGreaterThan(0)
  })
}
