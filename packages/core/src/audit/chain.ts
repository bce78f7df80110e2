import { sha256Hex } from '../hash/digest.js'
import {
  AUDIT_GENESIS_HASH,
  type AuditActor,
  type AuditChainHead,
  type AuditEntry,
  type AuditRecord,
  type AuditValues,
} from './types.js'

/** An audit row in the API's form (snake_case): what `GET /api/v1/audit` and `keyward audit export` give. */
export interface AuditRowJson {
  readonly seq: number
  readonly at: string
  readonly action: string
  readonly actor: {
    readonly type: string
    readonly developer_id?: string
    readonly key_prefix?: string
    readonly name?: string
  }
  readonly client_address: string | null
  readonly request_id: string | null
  readonly developer_id: string | null
  readonly project_id: string | null
  readonly target: { readonly type: string; readonly id: string }
  readonly before: AuditValues | null
  readonly after: AuditValues | null
  readonly previous_hash: string
  readonly hash: string
}

// An actor's fields as a row may hold them: the library writes only those of `AuditActor`, but a
// row read back keeps whatever was stored, so that its hash covers all of it.
type ActorFields = { readonly type: string; readonly [field: string]: unknown }

/**
 * The actor in the API's form: the fields of a developer renamed (`developer_id`, `key_prefix`),
 * every other field as it is. The exact inverse of {@link actorFromJson}.
 */
function actorToJson(actor: AuditActor): AuditRowJson['actor'] {
  const { developerId, keyPrefix, ...rest } = actor as ActorFields
  return {
    ...rest,
    ...(developerId === undefined ? {} : { developer_id: developerId }),
    ...(keyPrefix === undefined ? {} : { key_prefix: keyPrefix }),
  } as AuditRowJson['actor']
}

/**
 * The actor from its API form, as a store keeps it, with nothing left out: a type the library
 * does not write, or a field it does not know, stays (and is hashed) as it was stored.
 */
function actorFromJson(json: AuditRowJson['actor']): AuditActor {
  const { developer_id: developerId, key_prefix: keyPrefix, ...rest } = json as ActorFields
  return {
    ...rest,
    ...(developerId === undefined ? {} : { developerId }),
    ...(keyPrefix === undefined ? {} : { keyPrefix }),
  } as AuditActor
}

/** The fields of an actor the library writes: what a host passes is stored in this form. */
function writtenActor(actor: AuditActor): AuditActor {
  switch (actor.type) {
    case 'developer':
      return { type: 'developer', developerId: actor.developerId, keyPrefix: actor.keyPrefix }
    case 'operator':
      return actor.name === undefined ? { type: 'operator' } : { type: 'operator', name: actor.name }
    default:
      return { type: actor.type }
  }
}

// The stored `at` of a record read from its API form, when it is finer than the millisecond a
// `Date` holds (the library writes whole milliseconds; a database column may hold microseconds).
const storedAt = new WeakMap<AuditRecord, string>()

/**
 * An audit row in the API's form, the form its hash is computed over. A record read with
 * {@link auditRecordFromJson} gives back exactly what was read: the actor with all its fields, and
 * `at` to the microsecond when it had one.
 *
 * @example
 * ```ts
 * for (const record of page.records) process.stdout.write(`${JSON.stringify(auditRecordToJson(record))}\n`)
 * ```
 */
export function auditRecordToJson(record: AuditRecord): AuditRowJson {
  return {
    seq: record.seq,
    at: storedAt.get(record) ?? record.at.toISOString(),
    action: record.action,
    actor: actorToJson(record.actor),
    client_address: record.clientAddress,
    request_id: record.requestId,
    developer_id: record.developerId,
    project_id: record.projectId,
    target: { type: record.targetType, id: record.targetId },
    before: record.before,
    after: record.after,
    previous_hash: record.previousHash,
    hash: record.hash,
  }
}

/**
 * An audit row from its API form: what a store reads back, or a line of an export. Nothing of it
 * is normalised away: {@link auditRecordToJson} gives the same JSON back, so a row's hash is
 * checked against exactly what was stored or exported.
 *
 * @example
 * ```ts
 * const records = text.trim().split('\n').map((line) => auditRecordFromJson(JSON.parse(line)))
 * ```
 */
export function auditRecordFromJson(row: AuditRowJson): AuditRecord {
  const record: AuditRecord = {
    seq: row.seq,
    at: new Date(row.at),
    action: row.action as AuditRecord['action'],
    actor: actorFromJson(row.actor),
    clientAddress: row.client_address,
    requestId: row.request_id,
    developerId: row.developer_id,
    projectId: row.project_id,
    targetType: row.target.type as AuditRecord['targetType'],
    targetId: row.target.id,
    before: row.before,
    after: row.after,
    previousHash: row.previous_hash,
    hash: row.hash,
  }
  if (Number.isNaN(record.at.getTime()) || record.at.toISOString() !== row.at) storedAt.set(record, row.at)
  return record
}

/**
 * JSON with the keys of every object sorted and no white space: one text for one value, however
 * a database reordered the keys of its JSON columns. `undefined` members are left out.
 *
 * @example
 * ```ts
 * canonicalJson({ b: 1, a: [true, null] }) // '{"a":[true,null],"b":1}'
 * ```
 */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null'
  if (value instanceof Date) return JSON.stringify(value.toISOString())
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`
  const members = Object.keys(value)
    .filter((name) => (value as Record<string, unknown>)[name] !== undefined)
    .sort()
    .map((name) => `${JSON.stringify(name)}:${canonicalJson((value as Record<string, unknown>)[name])}`)
  return `{${members.join(',')}}`
}

/**
 * The hash of an audit row: SHA-256 (lower-case hex) of the canonical JSON of its API form
 * without `hash` (`previous_hash` included, which chains it to the row before). Anyone can
 * recompute it from an export.
 *
 * @example
 * ```ts
 * const { hash, ...rest } = row // a line of `keyward audit export --ndjson`
 * (await auditRowHash(rest)) === hash // true for an untouched row
 * ```
 */
export async function auditRowHash(
  row: Omit<AuditRowJson, 'hash'> & { readonly hash?: string },
): Promise<string> {
  const { hash: _hash, ...rest } = row
  return sha256Hex(canonicalJson(rest))
}

/**
 * Chains entries after `head` (`{ seq, hash }` of the last row; `null` for an empty log): gives
 * each its `seq`, `previousHash` and `hash`. A store calls it while it holds the chain's lock.
 *
 * @example
 * ```ts
 * const records = await chainAuditEntries(head, entries)
 * ```
 */
export async function chainAuditEntries(
  head: Pick<AuditChainHead, 'seq' | 'hash'> | null,
  entries: readonly AuditEntry[],
): Promise<AuditRecord[]> {
  let seq = head?.seq ?? 0
  let previousHash = head?.hash ?? AUDIT_GENESIS_HASH
  const records: AuditRecord[] = []
  for (const entry of entries) {
    seq += 1
    const unhashed = { ...entry, actor: writtenActor(entry.actor), seq, previousHash, hash: '' }
    const hash = await auditRowHash(auditRecordToJson(unhashed))
    records.push({ ...unhashed, hash })
    previousHash = hash
  }
  return records
}

/** What {@link verifyAuditChain} found. */
export interface AuditVerification {
  /** Whether every row is intact, in order, with none missing, up to the chain's head. */
  readonly ok: boolean
  /** How many rows were checked. */
  readonly checked: number
  /** The `seq` of the last row checked, 0 for none. */
  readonly lastSeq: number
  /** The first problem, when not `ok`. */
  readonly problem?: AuditProblem
}

/**
 * What is wrong with a log: a row whose content no longer gives its hash (`edited`), a row whose
 * `previous_hash` is not the hash of the row before (`broken_link`: a row edited with its hash
 * recomputed, or rows reordered), a `seq` that does not follow the one before (`missing`: a row
 * deleted), or a chain that ends before its head (`truncated`: the last rows deleted).
 */
export interface AuditProblem {
  readonly kind: 'edited' | 'broken_link' | 'missing' | 'truncated'
  /** The `seq` of the row where it shows. */
  readonly seq: number
  readonly message: string
}

/**
 * Checks a log, oldest row first, against the chain's head: every row's hash, every link, no
 * gap, and the last row is the head. Stops at the first problem.
 *
 * @example
 * ```ts
 * const result = await verifyAuditChain(rowsInOrder, await store.auditChainHead())
 * if (!result.ok) console.error(result.problem.message)
 * ```
 */
export async function verifyAuditChain(
  rows: AsyncIterable<AuditRecord> | Iterable<AuditRecord>,
  head: AuditChainHead,
): Promise<AuditVerification> {
  let seq = head.startSeq
  let previousHash = head.startHash
  let checked = 0
  const failed = (kind: AuditProblem['kind'], at: number, message: string): AuditVerification => ({
    ok: false,
    checked,
    lastSeq: seq,
    problem: { kind, seq: at, message },
  })
  for await (const row of rows) {
    if (row.seq !== seq + 1) {
      return failed(
        'missing',
        row.seq,
        row.seq > seq + 1
          ? `Row ${seq + 1}${row.seq > seq + 2 ? ` to ${row.seq - 1}` : ''} is missing: row ${row.seq} follows row ${seq}.`
          : `Row ${row.seq} is out of order: it follows row ${seq}.`,
      )
    }
    if ((await auditRowHash(auditRecordToJson(row))) !== row.hash) {
      return failed('edited', row.seq, `Row ${row.seq} was changed: its content does not give its hash.`)
    }
    if (row.previousHash !== previousHash) {
      return failed(
        'broken_link',
        row.seq,
        `Row ${row.seq} does not follow row ${seq}: its previous_hash is not that row's hash (rows edited or reordered).`,
      )
    }
    seq = row.seq
    previousHash = row.hash
    checked += 1
  }
  if (seq !== head.seq || previousHash !== head.hash) {
    return failed(
      'truncated',
      seq + 1,
      seq < head.seq
        ? `The log ends at row ${seq}, but its head is row ${head.seq}: the last rows were deleted.`
        : `The log's last row ${seq} is not its head (row ${head.seq}).`,
    )
  }
  return { ok: true, checked, lastSeq: seq }
}
