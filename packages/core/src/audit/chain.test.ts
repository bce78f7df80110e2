import { describe, expect, it } from 'vitest'
import { auditRecordFromJson, auditRecordToJson, chainAuditEntries, verifyAuditChain } from './chain.js'
import type { AuditActor, AuditChainHead, AuditRecord } from './types.js'

const AT = new Date('2026-03-01T12:34:56.789Z')
const ACTORS: AuditActor[] = [
  { type: 'developer', developerId: 'dev_1', keyPrefix: 'ak_Ab3xY' },
  { type: 'operator', name: 'alice' },
  { type: 'operator' },
  { type: 'secret_scanning' },
  { type: 'system' },
]
// The hashes these rows were given before rows were hashed exactly as stored (one per actor type
// the library writes): a chain written then verifies as it did.
const EARLIER_HASHES = [
  '454e9775b58226a78fc026ff60c0ebf019336302cf02c7359b812479c09911ef',
  'e809725aad033af6df4ea9c7464fa97c79a1b6bf6b6ae57daace583632b8fcb6',
  '35f620cf60eb8940869e9324daba67c1138039475129790d2a1c72b6b6602164',
  'd5457d3ae4147e89cb0314e10243c4bfe653a0af7ecea20a3c77cb312dd4a9c7',
  'ececa8bcc7827643f117fcab884a871a8975d8cd153e517e203663aa5f0b21a2',
]

const rows = () =>
  chainAuditEntries(
    null,
    ACTORS.map((actor, i) => ({
      at: AT,
      action: i === 0 ? 'key.revoked' : 'key.activated',
      actor,
      clientAddress: '203.0.113.7',
      requestId: 'req-1',
      developerId: 'dev_1',
      projectId: 'p1',
      targetType: 'key',
      targetId: 'k1',
      before: { active: true },
      after: { active: false },
    })),
  )

const headOf = (records: readonly AuditRecord[]): AuditChainHead => ({
  seq: records.length,
  hash: records.at(-1)!.hash,
  startSeq: 0,
  startHash: '0'.repeat(64),
})

// The rows as a store reads them back: through their JSON form, as stored.
const stored = (records: readonly AuditRecord[]) =>
  records.map((record) => JSON.parse(JSON.stringify(auditRecordToJson(record))))

describe('the audit chain', () => {
  it('gives the rows the library writes the hashes they had before, and verifies them read back', async () => {
    const records = await rows()
    expect(records.map((r) => r.hash)).toEqual(EARLIER_HASHES)
    const readBack = stored(records).map(auditRecordFromJson)
    expect(await verifyAuditChain(readBack, headOf(records))).toEqual({ ok: true, checked: 5, lastSeq: 5 })
  })

  it('hashes a row exactly as stored: an extra actor field, an unknown actor type, a finer time', async () => {
    const records = await rows()
    const edits: Array<[number, (row: Record<string, unknown>) => void]> = [
      [1, (row) => Object.assign(row.actor as object, { name_override: 'mallory' })],
      [5, (row) => Object.assign(row, { actor: { type: 'intruder' } })],
      [4, (row) => Object.assign(row, { at: '2026-03-01T12:34:56.789500Z' })],
    ]
    for (const [seq, edit] of edits) {
      const json = stored(records)
      edit(json[seq - 1])
      const readBack = json.map(auditRecordFromJson)
      // Given back as it was read, for the API and exports.
      expect(auditRecordToJson(readBack[seq - 1]!)).toEqual(json[seq - 1])
      expect(await verifyAuditChain(readBack, headOf(records))).toEqual({
        ok: false,
        checked: seq - 1,
        lastSeq: seq - 1,
        problem: {
          kind: 'edited',
          seq,
          message: `Row ${seq} was changed: its content does not give its hash.`,
        },
      })
    }
  })

  it('stores only the actor fields the library knows, whatever a host passes', async () => {
    const [record] = await chainAuditEntries(null, [
      {
        at: AT,
        action: 'key.revoked',
        actor: { type: 'operator', name: 'alice', extra: 'dropped' } as AuditActor,
        clientAddress: null,
        requestId: null,
        developerId: null,
        projectId: null,
        targetType: 'key',
        targetId: 'k1',
        before: null,
        after: null,
      },
    ])
    expect(auditRecordToJson(record!).actor).toEqual({ type: 'operator', name: 'alice' })
  })
})
