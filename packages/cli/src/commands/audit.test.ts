import { type AuditActor, auditRowHash } from '@keyward/core'
import { describe, expect, it } from 'vitest'
import { EXIT } from '../exit.js'
import { harness, STORE } from '../test/harness.js'

describe('keyward audit', () => {
  it("records the operator's writes: a registration, a revocation, by the operator KEYWARD_OPERATOR names", async () => {
    const cli = harness({ env: { KEYWARD_OPERATOR: 'alice' } })
    const registered = await cli.run('developers', 'register', 'dev_1', '--json', ...STORE)
    expect(registered.code).toBe(EXIT.ok)
    const { id } = JSON.parse(registered.stdout)
    expect((await cli.run('keys', 'revoke', id, ...STORE)).code).toBe(EXIT.ok)
    const listed = await cli.run('audit', 'list', ...STORE)
    expect(listed.code).toBe(EXIT.ok)
    const lines = listed.stdout.trimEnd().split('\n')
    expect(lines[0]).toMatch(/^SEQ {2}AT {20}ACTION {16}ACTOR {11}TARGET {36}ADDRESS$/)
    expect(lines.slice(1, 4).map((line) => line.split(/ {2,}/).slice(2, 4))).toEqual([
      ['key.revoked', 'operator alice'],
      ['key.issued', 'operator alice'],
      ['developer.registered', 'operator alice'],
    ])
    expect(lines.at(-1)).toBe('3 rows.')
    const json = JSON.parse(
      (await cli.run('audit', 'list', '--developer', 'dev_1', '--json', ...STORE)).stdout,
    )
    expect(json.entries.map((e: { action: string }) => e.action)).toEqual([
      'key.revoked',
      'key.issued',
      'developer.registered',
    ])
    // One run, one request id: the registration's two rows share it, the revocation has its own.
    const [revoked, issued, developer] = json.entries
    expect(issued.request_id).toBe(developer.request_id)
    expect(revoked.request_id).not.toBe(issued.request_id)
    expect(revoked.request_id).toMatch(/^cli-/)
    expect(revoked).toMatchObject({ actor: { type: 'operator', name: 'alice' }, client_address: null })
  })

  it('verify says intact, then finds an edited, a deleted and a reordered row (exit 1)', async () => {
    const cli = harness()
    const keyward = cli.keyward()
    for (const id of ['dev_1', 'dev_2', 'dev_3']) await keyward.registerDeveloper(id)
    const intact = await cli.run('audit', 'verify', ...STORE)
    expect([intact.code, intact.stdout]).toEqual([
      EXIT.ok,
      `The audit log is intact: 6 rows checked, up to row 6 (hash ${cli.auditLog[5]!.hash}).\n`,
    ])
    const rows = [...cli.auditLog]
    cli.auditLog[2] = { ...rows[2]!, targetId: 'dev_9' }
    let broken = await cli.run('audit', 'verify', '--json', ...STORE)
    expect(broken.code).toBe(EXIT.failed)
    expect(JSON.parse(broken.stdout)).toMatchObject({ ok: false, problem: { kind: 'edited', seq: 3 } })
    cli.auditLog[2] = rows[2]!
    cli.auditLog.splice(3, 1)
    broken = await cli.run('audit', 'verify', ...STORE)
    expect([broken.code, broken.stdout]).toEqual([
      EXIT.failed,
      'The audit log is broken: Row 4 is missing: row 5 follows row 3.\n',
    ])
    cli.auditLog.splice(3, 0, { ...rows[4]!, seq: 4 }, { ...rows[3]!, seq: 5 })
    cli.auditLog.splice(5, 1)
    expect(cli.auditLog.map((r) => r.seq)).toEqual([1, 2, 3, 4, 5, 6])
    broken = await cli.run('audit', 'verify', '--json', ...STORE)
    expect(JSON.parse(broken.stdout)).toMatchObject({ ok: false, problem: { seq: 4 } })
  })

  it('verify finds an actor given an extra field, or a type it does not know (exit 1)', async () => {
    const cli = harness()
    await cli.keyward().registerDeveloper('dev_1', {}, { actor: { type: 'operator', name: 'alice' } })
    expect((await cli.run('audit', 'verify', ...STORE)).code).toBe(EXIT.ok)
    const [first] = cli.auditLog
    // Neither is an actor the library writes: edits of the stored row.
    const edited: unknown[] = [
      { type: 'operator', name: 'alice', on_behalf_of: 'mallory' },
      { type: 'intruder' },
    ]
    for (const actor of edited as AuditActor[]) {
      cli.auditLog[0] = { ...first!, actor }
      const broken = await cli.run('audit', 'verify', ...STORE)
      expect([broken.code, broken.stdout]).toEqual([
        EXIT.failed,
        'The audit log is broken: Row 1 was changed: its content does not give its hash.\n',
      ])
    }
  })

  it('export --ndjson writes every row, oldest first, each verifiable by its hash alone', async () => {
    const cli = harness()
    const keyward = cli.keyward()
    const issued = await keyward.registerDeveloper('dev_1')
    await keyward.deactivateKey(issued.record.id)
    const exported = await cli.run('audit', 'export', '--ndjson', ...STORE)
    expect(exported.code).toBe(EXIT.ok)
    const rows = exported.stdout
      .trimEnd()
      .split('\n')
      .map((line) => JSON.parse(line))
    expect(rows.map((row) => row.seq)).toEqual([1, 2, 3])
    for (const row of rows) expect(await auditRowHash(row)).toBe(row.hash)
    expect(rows[1].previous_hash).toBe(rows[0].hash)
    expect(exported.stdout).not.toContain(issued.key.slice(8))
    expect(exported.stdout).not.toContain(issued.record.hash)
    const after = await cli.run('audit', 'export', '--ndjson', '--after', '2', ...STORE)
    expect(after.stdout.trimEnd().split('\n')).toHaveLength(1)
    const usage = await cli.run('audit', 'export', ...STORE)
    expect([usage.code, usage.stderr]).toEqual([
      EXIT.usage,
      'keyward: Give --ndjson: the export is NDJSON, one row per line.\n',
    ])
    const badLimit = await cli.run('audit', 'list', '--limit', '0', ...STORE)
    expect([badLimit.code, badLimit.stderr]).toEqual([
      EXIT.usage,
      'keyward: --limit must be a whole number from 1 to 200.\n',
    ])
  })
})
