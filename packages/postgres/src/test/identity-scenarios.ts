// Identities on every driver, beyond the conformance suite: a deletion racing keys that join the
// identity (real concurrency on a pool), and a write whose audit row fails in the database.
import { createKeyward, ErrorType } from '@keyward/core'
import { describe, expect, it } from 'vitest'
import type { Harness } from './harness.js'

/** @internal Registers the cases inside a describe of the caller's, on harnesses of its `make`. */
export function identityScenarios(make: () => Promise<Harness>): void {
  describe('identities', () => {
    it('a deletion racing keys that join: every key that joined is revoked with it, none is left in it', async () => {
      const { store, sql, schema } = await make()
      const keyward = createKeyward({ store })
      for (let round = 0; round < 5; round++) {
        const project = `p-race-${round}`
        const acme = await keyward.createIdentity(project, { externalId: 'customer_acme' })
        const keys = await Promise.all(
          Array.from({ length: 12 }, async () => (await keyward.issueProjectKey(project)).record),
        )
        const joins = keys.map((key) => store.identities.setKeyIdentity(key.id, acme.id))
        const deletion = store.identities.deleteIdentity(acme.id, true)
        const joined = (await Promise.all(joins)).flatMap((key) => (key ? [key.id] : []))
        const deleted = await deletion
        expect(deleted && 'deleted' in deleted).toBe(true)
        const revoked = deleted && 'deleted' in deleted ? deleted.revoked.map((key) => key.id) : []
        // A join that came first was revoked by the deletion; one that came after found no identity.
        expect(revoked.sort()).toEqual(joined.sort())
        expect(
          await sql(`SELECT id FROM "${schema}".api_keys WHERE identity_id IS NOT NULL AND project_id = $1`, [
            project,
          ]),
        ).toEqual([])
        expect(await store.identities.findIdentity(acme.id)).toBeNull()
      }
    })

    it('an identity write whose audit row fails in the database is rolled back with it', async () => {
      const { store, sql, schema } = await make()
      const projects = new Map([['p1', 'dev-1']])
      const keyward = createKeyward({ store, projectOwner: (id) => projects.get(id) ?? null })
      const acme = await keyward.createIdentity('p1', {
        externalId: 'customer_acme',
        metadata: { plan: 'pro' },
      })
      const { record } = await keyward.issueProjectKey('p1')
      await keyward.setKeyIdentity(record.id, acme.id)
      const head = await store.auditChainHead()
      expect(head.seq).toBe(3)
      await sql(`CREATE FUNCTION "${schema}".fail_audit() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN RAISE EXCEPTION 'injected: audit insert fails'; END $$`)
      await sql(`CREATE TRIGGER fail_audit BEFORE INSERT ON "${schema}".audit_log
        FOR EACH ROW EXECUTE FUNCTION "${schema}".fail_audit()`)
      const unavailable = { type: ErrorType.storeUnavailable, status: 503 }
      await expect(keyward.createIdentity('p1', { externalId: 'customer_globex' })).rejects.toMatchObject(
        unavailable,
      )
      await expect(keyward.updateIdentity(acme.id, { metadata: null })).rejects.toMatchObject(unavailable)
      await expect(keyward.setKeyIdentity(record.id, null)).rejects.toMatchObject(unavailable)
      await expect(keyward.deleteIdentity(acme.id, { revokeKeys: true })).rejects.toMatchObject(unavailable)
      // Nothing changed: the identity as it was, its key active in it, no new identity, no row.
      expect(await keyward.findIdentityByExternalId('p1', 'customer_globex')).toBeNull()
      expect(await keyward.findIdentity(acme.id)).toEqual(acme)
      expect(await store.findKeyById(record.id)).toMatchObject({ active: true, identityId: acme.id })
      expect(await store.auditChainHead()).toEqual(head)
      await sql(`DROP TRIGGER fail_audit ON "${schema}".audit_log`)
      await keyward.deleteIdentity(acme.id, { revokeKeys: true })
      const rows = await sql<{ action: string }>(
        `SELECT action FROM "${schema}".audit_log WHERE seq > $1 ORDER BY seq`,
        [head.seq],
      )
      expect(rows.map((row) => row.action)).toEqual(['identity.deleted', 'key.revoked'])
      expect(await keyward.verifyAudit()).toMatchObject({ ok: true })
    })
  })
}
