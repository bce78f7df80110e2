// The audit chain on any dialect: the head row locked (a locking read, or SQLite's one writer)
// until the transaction ends, the rows chained by core's `chainAuditEntries`, each stored as its
// API form (JSON text) beside the columns a listing filters on.
import {
  type AuditChainHead,
  type AuditEntry,
  type AuditPage,
  type AuditQuery,
  type AuditRecord,
  type AuditRowJson,
  auditRecordFromJson,
  auditRecordToJson,
  chainAuditEntries,
} from '@keyward/core'
import { placeholders, type SqlDialect, type SqlExecutor } from './dialect.js'
import type { SqlTables } from './schema.js'

/** @internal The chain's head as a driver returns its row. */
export type ChainRow = { seq: number | string; hash: string; start_seq: number | string; start_hash: string }

/** @internal Chains `entries` after the head (locked by the caller); throws `missing` when there is none. */
export function chainAfter(
  head: Pick<ChainRow, 'seq' | 'hash'> | undefined,
  entries: readonly AuditEntry[],
  missing: string,
): Promise<AuditRecord[]> {
  if (!head) throw new Error(missing)
  return chainAuditEntries({ seq: Number(head.seq), hash: head.hash }, entries)
}

/** @internal The chain's head of its row; throws `missing` when there is none. */
export function chainHeadOf(row: ChainRow | undefined, missing: string): AuditChainHead {
  if (!row) throw new Error(missing)
  return {
    seq: Number(row.seq),
    hash: row.hash,
    startSeq: Number(row.start_seq),
    startHash: row.start_hash,
  }
}

/** @internal A page of a listing newest first, read with one more row than `limit`. */
export function auditPageOf<R>(
  rows: readonly R[],
  limit: number,
  record: (row: R) => AuditRecord,
): AuditPage {
  const records = rows.slice(0, limit).map(record)
  return { records, next: rows.length > limit ? records.at(-1)!.seq : null }
}

const NO_HEAD = 'The audit log has no chain head: run migrate().'

/** @internal The audit log of one set of tables. */
export class SqlAudit {
  readonly #tables: SqlTables
  readonly #lock: string
  readonly #aboutIdentity: string

  constructor(dialect: SqlDialect, tables: SqlTables) {
    this.#tables = tables
    this.#lock = dialect.forUpdate
    // Core's `matchesAuditFilter`: the identity's own rows, and those of a key whose `identity_id`,
    // before or after, is the identity.
    const [before, after] = ['$.before.identity_id', '$.after.identity_id'].map((path) =>
      dialect.jsonText('row_json', path),
    )
    this.#aboutIdentity = `((target_type = 'identity' AND target_id = ?) OR (target_type = 'key' AND ? IN (${before}, ${after})))`
  }

  /** Appends rows in the caller's transaction, after the head it locks until the transaction ends. */
  async append(tx: SqlExecutor, entries: readonly AuditEntry[]): Promise<AuditRecord[]> {
    if (entries.length === 0) return []
    const { auditLog, auditChain } = this.#tables
    const [head] = await tx.query<ChainRow>(`SELECT seq, hash FROM ${auditChain} WHERE id = 1${this.#lock}`)
    const records = await chainAfter(head, entries, NO_HEAD)
    const params = records.flatMap((record) => {
      const json = auditRecordToJson(record)
      return [
        record.seq,
        record.at.getTime(),
        record.action,
        record.developerId ?? null,
        record.projectId ?? null,
        record.targetType,
        record.targetId,
        JSON.stringify(json),
      ]
    })
    const rows = records.map(() => `(${placeholders(8)})`).join(', ')
    await tx.run(
      `INSERT INTO ${auditLog} (seq, at, action, developer_id, project_id, target_type, target_id, row_json) VALUES ${rows}`,
      params,
    )
    const last = records.at(-1)!
    await tx.run(`UPDATE ${auditChain} SET seq = ?, hash = ? WHERE id = 1`, [last.seq, last.hash])
    return records
  }

  /** One developer's rows, newest first. */
  async list(db: SqlExecutor, query: AuditQuery): Promise<AuditPage> {
    const { developerId, projectId, limit, beforeSeq, keyId, identityId, action, from, to } = query
    const where = ['developer_id = ?']
    const params: unknown[] = [developerId]
    const add = (condition: string, ...values: unknown[]) => {
      where.push(condition)
      params.push(...values)
    }
    if (projectId !== undefined) add('project_id = ?', projectId)
    if (beforeSeq !== undefined) add('seq < ?', beforeSeq)
    if (keyId !== undefined) add("target_type = 'key' AND target_id = ?", keyId)
    if (identityId !== undefined) add(this.#aboutIdentity, identityId, identityId)
    if (action !== undefined) add('action = ?', action)
    if (from !== undefined) add('at >= ?', from.getTime())
    if (to !== undefined) add('at < ?', to.getTime())
    const rows = await db.query<{ row_json: string }>(
      `SELECT row_json FROM ${this.#tables.auditLog} WHERE ${where.join(' AND ')} ORDER BY seq DESC LIMIT ${limit + 1}`,
      params,
    )
    return auditPageOf(rows, limit, toAuditRecord)
  }

  /** Rows after `afterSeq`, oldest first. */
  async read(db: SqlExecutor, afterSeq: number, limit: number): Promise<AuditRecord[]> {
    const rows = await db.query<{ row_json: string }>(
      `SELECT row_json FROM ${this.#tables.auditLog} WHERE seq > ? ORDER BY seq LIMIT ${Math.trunc(limit)}`,
      [afterSeq],
    )
    return rows.map(toAuditRecord)
  }

  /** The chain's head. */
  async head(db: SqlExecutor): Promise<AuditChainHead> {
    const [row] = await db.query<ChainRow>(
      `SELECT seq, hash, start_seq, start_hash FROM ${this.#tables.auditChain} WHERE id = 1`,
    )
    return chainHeadOf(row, NO_HEAD)
  }
}

const toAuditRecord = (row: { row_json: string }): AuditRecord =>
  auditRecordFromJson(JSON.parse(row.row_json) as AuditRowJson)
