// The audit log on every driver: append-only, written with its change or not at all (a fault
// injected in the database), and a chain that `verifyAudit` finds broken when a row is touched.
import { auditRecordToJson, auditRowHash, createKeyward, ErrorType, type Keyward } from '@keyward/core'
import { afterEach, describe, expect, it } from 'vitest'
import type { Harness } from './harness.js'

export function runAuditScenarios(name: string, makeHarness: () => Promise<Harness>): void {
  describe(`the audit log on ${name}`, () => {
    const open: Harness[] = []
    const make = async () => {
      const harness = await makeHarness()
      open.push(harness)
      return harness
    }
    afterEach(async () => {
      for (const harness of open.splice(0)) await harness.close()
    })

    // Five rows: a developer registered (2 rows), a project key issued, revoked, re-activated.
    async function fiveRows() {
      const harness = await make()
      const projects = new Map([['p1', 'dev-1']])
      const keyward = createKeyward({ store: harness.store, projectOwner: (id) => projects.get(id) ?? null })
      await keyward.registerDeveloper('dev-1', {}, { actor: { type: 'operator' } })
      const { record } = await keyward.issueProjectKey('p1', { name: 'ci' })
      await keyward.deactivateKey(record.id)
      await keyward.activateKey(record.id)
      expect(await keyward.verifyAudit()).toEqual({ ok: true, checked: 5, lastSeq: 5 })
      // What an attacker with the owner's rights does first: the append-only trigger is in the way.
      await harness.sql(`ALTER TABLE "${harness.schema}".audit_log DISABLE TRIGGER audit_log_append_only`)
      return { ...harness, keyward, log: `"${harness.schema}".audit_log` }
    }
    const problem = async (keyward: Keyward) => (await keyward.verifyAudit()).problem

    it('refuses UPDATE, DELETE and TRUNCATE of its rows, for the owner of the table too', async () => {
      const { sql, schema, store } = await make()
      await createKeyward({ store }).registerDeveloper('dev-1')
      const log = `"${schema}".audit_log`
      const before = await sql(`SELECT * FROM ${log} ORDER BY seq`)
      expect(before).toHaveLength(2)
      for (const statement of [
        `UPDATE ${log} SET action = 'key.revoked' WHERE seq = 1`,
        `DELETE FROM ${log} WHERE seq = 2`,
        `TRUNCATE ${log}`,
      ]) {
        await expect(sql(statement)).rejects.toThrow(/the audit log is append-only/)
      }
      expect(await sql(`SELECT * FROM ${log} ORDER BY seq`)).toEqual(before)
    })

    it('a change whose audit row fails in the database is rolled back with it (fault injected by a trigger)', async () => {
      const { store, sql, schema } = await make()
      const projects = new Map([['p1', 'dev-1']])
      const keyward = createKeyward({ store, projectOwner: (id) => projects.get(id) ?? null })
      const { record } = await keyward.issueProjectKey('p1')
      const head = await store.auditChainHead()
      // Between the change and its row: every insert into the audit log fails.
      await sql(`CREATE FUNCTION "${schema}".fail_audit() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN RAISE EXCEPTION 'injected: audit insert fails'; END $$`)
      await sql(`CREATE TRIGGER fail_audit BEFORE INSERT ON "${schema}".audit_log
        FOR EACH ROW EXECUTE FUNCTION "${schema}".fail_audit()`)
      const unavailable = { type: ErrorType.storeUnavailable, status: 503 }
      await expect(keyward.deactivateKey(record.id)).rejects.toMatchObject(unavailable)
      await expect(keyward.issueProjectKey('p1', { name: 'lost' })).rejects.toMatchObject(unavailable)
      await expect(keyward.setKeyPolicies(record.id, { permissions: [] })).rejects.toMatchObject(unavailable)
      await expect(keyward.rollKey(record.id)).rejects.toMatchObject(unavailable)
      await expect(keyward.deactivateOwnerKeys({ type: 'project', id: 'p1' })).rejects.toMatchObject(
        unavailable,
      )
      // A host's own change and its row, in one transaction: neither commits.
      await sql(`CREATE TABLE "${schema}".projects (id text PRIMARY KEY)`)
      await sql(`INSERT INTO "${schema}".projects VALUES ('p1')`)
      await expect(
        store.transaction(async (tx) => {
          await tx.query(`DELETE FROM "${schema}".projects WHERE id = 'p1'`)
          await createKeyward({ store: tx.store }).recordAudit({
            action: 'project.deleted',
            targetType: 'project',
            targetId: 'p1',
            developerId: 'dev-1',
            projectId: 'p1',
          })
        }),
      ).rejects.toMatchObject(unavailable)
      expect(await sql(`SELECT id FROM "${schema}".projects`)).toEqual([{ id: 'p1' }])
      // Nothing changed: the key is active, as it was, with no new key beside it.
      expect(await store.findKeyById(record.id)).toEqual(record)
      expect(await store.listKeysByOwner({ type: 'project', id: 'p1' })).toEqual([record])
      expect(await store.auditChainHead()).toEqual(head)
      await sql(`DROP TRIGGER fail_audit ON "${schema}".audit_log`)
      expect((await keyward.deactivateKey(record.id))?.active).toBe(false)
      expect(await keyward.verifyAudit()).toMatchObject({ ok: true, checked: 2 })
    })

    it('verify finds an edited row', async () => {
      const { keyward, sql, log } = await fiveRows()
      await sql(`UPDATE ${log} SET after = jsonb_set(after, '{name}', '"renamed"') WHERE seq = 3`)
      expect(await problem(keyward)).toMatchObject({ kind: 'edited', seq: 3 })
    })

    // What reads back the same as before, but is not what was stored: the hash covers the row as stored.
    it('verify finds an extra field in an actor, an actor type it does not know, a time moved by microseconds', async () => {
      const edits: Array<[string, number]> = [
        // An operator's row (seq 1) names someone else, in a field the library never writes.
        [`UPDATE %s SET actor = actor || '{"name_override": "mallory"}' WHERE seq = 1`, 1],
        // A system row (seq 3) made the act of an actor type the library does not know.
        [`UPDATE %s SET actor = '{"type": "intruder"}' WHERE seq = 3`, 3],
        // A row moved by half a millisecond: no Date holds the difference.
        [`UPDATE %s SET at = at + interval '500 microseconds' WHERE seq = 4`, 4],
      ]
      for (const [edit, seq] of edits) {
        const { keyward, sql, log } = await fiveRows()
        const [row] = await sql(`SELECT actor FROM ${log} WHERE seq = 3`)
        expect(row).toEqual({ actor: { type: 'system' } })
        await sql(edit.replace('%s', log))
        expect(await problem(keyward)).toEqual({
          kind: 'edited',
          seq,
          message: `Row ${seq} was changed: its content does not give its hash.`,
        })
      }
    })

    it('reads a row back exactly as stored, microseconds and unknown actor fields included', async () => {
      const { sql, log, store } = await fiveRows()
      await sql(
        `UPDATE ${log} SET at = '2026-03-01T12:00:00.123456Z', actor = '{"type": "intruder", "via": 1}' WHERE seq = 2`,
      )
      const [row] = await store.readAuditLog(1, 1)
      expect(auditRecordToJson(row!)).toMatchObject({
        at: '2026-03-01T12:00:00.123456Z',
        actor: { type: 'intruder', via: 1 },
      })
    })

    it('verify finds a row edited with its hash recomputed: the next row no longer links to it', async () => {
      const { keyward, sql, log, store } = await fiveRows()
      const [row] = await store.readAuditLog(2, 1)
      const edited = { ...auditRecordToJson(row!), client_address: '198.51.100.1' }
      await sql(`UPDATE ${log} SET client_address = $1, hash = $2 WHERE seq = 3`, [
        edited.client_address,
        await auditRowHash(edited),
      ])
      expect(await problem(keyward)).toMatchObject({ kind: 'broken_link', seq: 4 })
    })

    it('verify finds a deleted row, reordered rows and deleted last rows', async () => {
      const { keyward, sql, log } = await fiveRows()
      await sql(`UPDATE ${log} SET seq = 100 WHERE seq = 2`)
      await sql(`UPDATE ${log} SET seq = 2 WHERE seq = 3`)
      await sql(`UPDATE ${log} SET seq = 3 WHERE seq = 100`)
      expect((await keyward.verifyAudit()).ok).toBe(false)
      expect(await problem(keyward)).toMatchObject({ seq: 2 })
      await sql(`UPDATE ${log} SET seq = 100 WHERE seq = 2`)
      await sql(`UPDATE ${log} SET seq = 2 WHERE seq = 3`)
      await sql(`UPDATE ${log} SET seq = 3 WHERE seq = 100`)
      expect((await keyward.verifyAudit()).ok).toBe(true)
      await sql(`DELETE FROM ${log} WHERE seq = 5`)
      expect(await problem(keyward)).toMatchObject({ kind: 'truncated', seq: 5 })
      await sql(`DELETE FROM ${log} WHERE seq = 3`)
      expect(await problem(keyward)).toMatchObject({ kind: 'missing', seq: 4 })
    })
  })
}
