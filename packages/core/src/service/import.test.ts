import { createHash } from 'node:crypto'
import { describe, expect, it } from 'vitest'
import { KeywardError } from '../errors/error.js'
import type { ImportRecord } from '../import/record.js'
import type { ForeignKeyFormat } from '../key/foreign.js'
import { MemoryKeyStore } from '../store/memory.js'
import type { KeyStore } from '../store/types.js'
import type { ImportProgress } from './import.js'
import { createKeyward } from './keyward.js'

const FORMATS: ForeignKeyFormat[] = [{ prefix: 'ba_', minLength: 20, maxLength: 80 }]
const digest = (key: string, encoding: 'hex' | 'base64url' | 'base64') =>
  createHash('sha256').update(key).digest(encoding)
const keyOf = (i: number) => `ba_${String(i).padStart(6, '0')}${'k'.repeat(24)}`
const project = { scope: 'project', projectId: 'proj_i' } as const

function recordOf(i: number, fields: Partial<ImportRecord> = {}): ImportRecord {
  return {
    hash: digest(keyOf(i), 'base64url'),
    hash_format: 'sha256-base64url',
    project_id: 'proj_i',
    prefix: keyOf(i).slice(0, 6),
    name: `key ${i}`,
    ...fields,
  }
}

function service(store: KeyStore = new MemoryKeyStore()) {
  return { store, keyward: createKeyward({ store, foreignKeys: FORMATS }) }
}

const outcome = (promise: Promise<unknown>) =>
  promise.then(
    () => 'accepted',
    (error: unknown) => (error instanceof KeywardError ? error.type : String(error)),
  )

async function* slowly<T>(values: readonly T[]): AsyncIterable<T> {
  for (const value of values) yield value
}

describe('importKeys', () => {
  it('writes the records in batches, reports the cursor after each, and the keys verify', async () => {
    const { keyward } = service()
    const batches: ImportProgress[] = []
    const records = Array.from({ length: 7 }, (_, i) => recordOf(i))
    const report = await keyward.importKeys(slowly(records), {
      batchSize: 3,
      onBatch: (p) => void batches.push(p),
    })
    expect(report).toMatchObject({
      cursor: 7,
      written: 7,
      present: 0,
      invalid: 0,
      stopped: false,
      problems: [],
    })
    expect(batches.map((p) => [p.cursor, p.written])).toEqual([
      [3, 3],
      [6, 6],
      [7, 7],
    ])
    for (let i = 0; i < 7; i++) {
      expect(await outcome(keyward.authenticate({ projectKey: keyOf(i) }, project))).toBe('accepted')
    }
    const [listed] = (await keyward.listKeys({ type: 'project', id: 'proj_i' })).filter(
      (r) => r.name === 'key 0',
    )
    expect(listed).toMatchObject({ keyPrefix: 'ba_000**', active: true })
  })

  it('keeps limits, expiry and state: credits are spent, disabled and expired keys stay refused', async () => {
    const { keyward } = service()
    const later = new Date(Date.now() + 86_400_000).toISOString()
    await keyward.importKeys([
      recordOf(1, { remaining: '2', refill_amount: 10, refill_interval: 'daily', expires_at: later }),
      recordOf(2, { active: 'false' }),
      recordOf(3, { expires_at: '2020-01-01T00:00:00Z' }),
      recordOf(4, { permissions: 'files:read files:write', metadata: '{"plan":"pro"}' }),
    ])
    const record = await keyward.verifyApiKey({ projectKey: keyOf(1) }, { projectId: 'proj_i' })
    expect(record).toMatchObject({ remaining: 2, refill: { amount: 10, interval: 'daily' } })
    expect(record.expiresAt?.toISOString()).toBe(later)
    const auth = await keyward.authenticate({ projectKey: keyOf(1) }, project)
    expect(await keyward.spendCredits(auth.projectKey, 2)).toEqual({ 'x-credits-remaining': '0' })
    expect(await keyward.spendCredits(auth.projectKey, 1)).toMatchObject({ type: 'usage_exceeded' })
    expect(await outcome(keyward.authenticate({ projectKey: keyOf(2) }, project))).toBe('key_invalid')
    expect(await outcome(keyward.authenticate({ projectKey: keyOf(3) }, project))).toBe('key_invalid')
    const four = await keyward.verifyApiKey({ projectKey: keyOf(4) }, { projectId: 'proj_i' })
    expect(four).toMatchObject({ permissions: ['files:read', 'files:write'], metadata: { plan: 'pro' } })
  })

  it('reports each bad record with its number and field, and writes the good ones', async () => {
    const { keyward } = service()
    const seen: number[] = []
    const report = await keyward.importKeys(
      [
        recordOf(1),
        recordOf(2, { hash: 'short' }),
        recordOf(3, { expires_at: '2027-01-31' }),
        { ...recordOf(4), owner: 'x' },
        recordOf(5, { project_id: undefined }),
        recordOf(6),
        'not an object',
      ],
      { batchSize: 2, onProblem: (problem) => seen.push(problem.record) },
    )
    expect(report).toMatchObject({ cursor: 7, written: 2, invalid: 5, stopped: false })
    expect(report.problems.map((p) => [p.record, p.loc.join('.'), p.type])).toEqual([
      [2, 'hash', 'value_error'],
      [3, 'expires_at', 'datetime_parsing'],
      [4, 'owner', 'extra_forbidden'],
      [5, 'project_id', 'missing'],
      [7, '', 'dict_type'],
    ])
    expect(seen).toEqual([2, 3, 4, 5, 7])
    expect(JSON.stringify(report.problems)).not.toContain(digest(keyOf(1), 'base64url'))
  })

  it('strict: stops at the first bad record, before writing its batch', async () => {
    const { store, keyward } = service()
    const records = [recordOf(1), recordOf(2), recordOf(3), recordOf(4, { remaining: -1 }), recordOf(5)]
    const report = await keyward.importKeys(records, { batchSize: 2, strict: true })
    expect(report).toMatchObject({ cursor: 2, written: 2, invalid: 1, stopped: true })
    expect(report.problems).toEqual([expect.objectContaining({ record: 4, loc: ['remaining'] })])
    expect(await store.listKeysByOwner({ type: 'project', id: 'proj_i' })).toHaveLength(2)
  })

  it('is idempotent on the hash, and resumes from a cursor', async () => {
    const { store, keyward } = service()
    const records = Array.from({ length: 10 }, (_, i) => recordOf(i))
    const first = await keyward.importKeys(records.slice(0, 4), { batchSize: 3 })
    expect(first).toMatchObject({ cursor: 4, written: 4 })
    const before = await store.listKeysByOwner({ type: 'project', id: 'proj_i' })
    // The whole source again, from the cursor: the first 4 are passed over, the rest written.
    const resumed = await keyward.importKeys(records, { batchSize: 3, cursor: first.cursor })
    expect(resumed).toMatchObject({ cursor: 10, written: 6, present: 0 })
    // Once more from the start: nothing changes.
    const again = await keyward.importKeys(records, { batchSize: 3 })
    expect(again).toMatchObject({ cursor: 10, written: 0, present: 10 })
    const after = await store.listKeysByOwner({ type: 'project', id: 'proj_i' })
    expect(after).toHaveLength(10)
    expect(after.slice(0, 4)).toEqual(before)
  })

  it('takes a repeated hash in one source once', async () => {
    const { keyward } = service()
    const report = await keyward.importKeys([recordOf(1), recordOf(1, { name: 'again' })])
    expect(report).toMatchObject({ written: 1, present: 1 })
  })

  it('reads the three hash formats as one digest', async () => {
    const { keyward } = service()
    const key = keyOf(9)
    const report = await keyward.importKeys([
      recordOf(9, { hash: digest(key, 'hex').toUpperCase(), hash_format: 'sha256-hex' }),
      recordOf(9, { hash: digest(key, 'base64'), hash_format: 'sha256-base64' }),
      recordOf(9, { hash: digest(key, 'base64').replace('=', ''), hash_format: 'sha256-base64' }),
      recordOf(9),
    ])
    expect(report).toMatchObject({ written: 1, present: 3, invalid: 0 })
    expect(await outcome(keyward.authenticate({ projectKey: key }, project))).toBe('accepted')
  })

  it('dry run: checks everything, counts what it would write, and writes nothing', async () => {
    const { store, keyward } = service()
    await keyward.importKeys([recordOf(1)])
    const report = await keyward.importKeys(
      [recordOf(1), recordOf(2), recordOf(2), recordOf(3, { active: 'yes' })],
      {
        dryRun: true,
      },
    )
    expect(report).toMatchObject({ dryRun: true, cursor: 4, written: 1, present: 2, invalid: 1 })
    expect(report.problems[0]).toMatchObject({ record: 4, loc: ['active'] })
    expect(await store.listKeysByOwner({ type: 'project', id: 'proj_i' })).toHaveLength(1)
  })

  it('writes one audit row per key, issued and marked imported, in the batch', async () => {
    const store = new MemoryKeyStore()
    const { keyward } = service(store)
    await keyward.importKeys([recordOf(1), recordOf(2)], {
      audit: { actor: { type: 'operator', name: 'ops' } },
    })
    const rows = await store.readAuditLog(0, 10)
    expect(
      rows.map((row) => [row.action, row.actor.type, row.after?.imported, row.after?.key_prefix]),
    ).toEqual([
      ['key.issued', 'operator', true, 'ba_000**'],
      ['key.issued', 'operator', true, 'ba_000**'],
    ])
    expect(JSON.stringify(rows)).not.toContain(digest(keyOf(1), 'hex'))
  })

  it("joins keys to identities by external id (made once) or by id, and refuses another project's", async () => {
    const { store, keyward } = service()
    const report = await keyward.importKeys([
      recordOf(1, { external_id: 'cust_1' }),
      recordOf(2, { external_id: 'cust_1' }),
      recordOf(3, { identity_id: crypto.randomUUID() }),
    ])
    expect(report).toMatchObject({ written: 2, invalid: 1 })
    expect(report.problems[0]).toMatchObject({ record: 3, loc: ['identity_id'] })
    const identity = await store.identities!.findIdentityByExternalId('proj_i', 'cust_1')
    const keys = await store.listKeysByOwner({ type: 'project', id: 'proj_i' })
    expect(keys.map((k) => k.identityId)).toEqual([identity!.id, identity!.id])
    const other = await keyward.importKeys([
      recordOf(4, { project_id: 'proj_other', identity_id: identity!.id }),
    ])
    expect(other.problems[0]).toMatchObject({ record: 1, loc: ['identity_id'] })
  })

  it('refuses bad options, naming them', async () => {
    const { keyward } = service()
    await expect(keyward.importKeys([], { batchSize: 0 })).rejects.toThrow('`batchSize`')
    await expect(keyward.importKeys([], { cursor: -1 })).rejects.toThrow('`cursor`')
  })
})

describe('importKeys against a failing store', () => {
  it('stops at a store outage (503), with the cursor of the last batch written', async () => {
    class Failing extends MemoryKeyStore {
      calls = 0
      override async insertImportedKeys(...args: Parameters<MemoryKeyStore['insertImportedKeys']>) {
        if (++this.calls === 2) throw new Error('connection refused')
        return super.insertImportedKeys(...args)
      }
    }
    const store = new Failing()
    const keyward = createKeyward({ store, foreignKeys: FORMATS })
    let cursor = 0
    const records = Array.from({ length: 6 }, (_, i) => recordOf(i))
    await expect(
      keyward.importKeys(records, {
        batchSize: 2,
        onBatch: (p) => {
          cursor = p.cursor
        },
      }),
    ).rejects.toMatchObject({ type: 'store_unavailable' })
    expect(cursor).toBe(2)
    const resumed = await keyward.importKeys(records, { batchSize: 2, cursor })
    expect(resumed).toMatchObject({ cursor: 6, written: 4, present: 0 })
  })
})
