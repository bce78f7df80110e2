import {
  type AuditChainHead,
  type AuditEntry,
  type AuditQuery,
  type AuditRecord,
  type AuditRowJson,
  auditRecordFromJson,
  auditRecordToJson,
  type WebhookEvent,
  webhookEventsOf,
} from '@keyward/core'
import { type AuditLog, auditPageOf, type ChainRow, chainAfter, chainHeadOf } from '@keyward/sql'
import type { SqlQueryable } from './driver.js'
import { statementParams } from './sql-params.js'
import type { Statement } from './statements.js'

/** The statements of the audit log, for one schema. */
export interface AuditStatements {
  readonly lockChain: Statement
  readonly append: Statement
  readonly chainHead: Statement
  /** The start of a listing of a developer's ($1) rows: the conditions of its query follow. */
  readonly list: string
  readonly read: Statement
}

type AuditRow = Omit<AuditRowJson, 'seq' | 'at' | 'target'> & {
  seq: string | number
  at: Date
  /** The microseconds of `at` past its millisecond, which a `Date` cannot hold. */
  at_us: number
  target_type: string
  target_id: string
}

const NO_HEAD = 'The audit log has no chain head: run migrate() (schema version 9).'

const COLUMNS =
  'seq, at, action, actor, client_address, request_id, developer_id, project_id, target_type, target_id, before, after, previous_hash, hash'
// What a row is read with: `at` to the microsecond, so that its hash covers all of it.
const READ_COLUMNS = `${COLUMNS}, (extract(microseconds FROM at)::bigint % 1000)::int AS at_us`

/** @internal The audit log's statements for `schema`, named under `prefix`. */
export function auditStatements(schema: string, prefix: string): AuditStatements {
  const log = `"${schema}".audit_log`
  const chain = `"${schema}".audit_chain`
  const outbox = `"${schema}".webhook_events`
  const named = (name: string, text: string): Statement => ({ name: `${prefix}_${name}`, text })
  return {
    lockChain: named('audit_lock', `SELECT seq, hash FROM ${chain} WHERE id = 1 FOR UPDATE`),
    // The rows as one JSON array (their API form), their webhook events into the outbox, then the
    // chain's new head, in one statement: an event commits exactly when its row does.
    append: named(
      'audit_append',
      `WITH added AS (
         INSERT INTO ${log} (${COLUMNS})
         SELECT r.seq, r.at, r.action, r.actor, r.client_address, r.request_id, r.developer_id, r.project_id,
           r.target->>'type', r.target->>'id', r.before, r.after, r.previous_hash, r.hash
         FROM jsonb_to_recordset($1::text::jsonb) AS r (seq bigint, at timestamptz, action text, actor jsonb,
           client_address text, request_id text, developer_id text, project_id text, target jsonb,
           before jsonb, after jsonb, previous_hash text, hash text)
         RETURNING seq
       ), events AS (
         INSERT INTO ${outbox} (id, type, developer_id, project_id, data, created_at)
         SELECT e.id, e.type, e.developer_id, e.project_id, e.data, e.created_at
         FROM jsonb_to_recordset($4::text::jsonb) AS e (id text, type text, developer_id text, project_id text,
           data jsonb, created_at timestamptz)
         ON CONFLICT (id) DO NOTHING
       )
       UPDATE ${chain} SET seq = $2::bigint, hash = $3::text
       WHERE id = 1 AND (SELECT count(*) FROM added) > 0`,
    ),
    chainHead: named('audit_head', `SELECT seq, hash, start_seq, start_hash FROM ${chain} WHERE id = 1`),
    list: `SELECT ${READ_COLUMNS} FROM ${log} WHERE developer_id = $1::text`,
    read: named(
      'audit_read',
      `SELECT ${READ_COLUMNS} FROM ${log} WHERE seq > $1::bigint ORDER BY seq LIMIT $2`,
    ),
  }
}

// A row as the API's form has it (the target as one object; seq a number, at a time), exactly as
// stored: `at` in ISO 8601 with milliseconds, as the library writes it, or with microseconds when
// the column holds a time finer than that.
const toAuditRecord = ({ seq, at, at_us, target_type, target_id, ...rest }: AuditRow): AuditRecord =>
  auditRecordFromJson({
    ...rest,
    seq: Number(seq),
    at:
      Number(at_us) === 0
        ? at.toISOString()
        : `${at.toISOString().slice(0, -1)}${String(at_us).padStart(3, '0')}Z`,
    target: { type: target_type, id: target_id },
  })

/**
 * @internal Appends rows in the caller's transaction: locks the chain's head until the
 * transaction ends (appends run one after the other), chains the rows after it, writes them,
 * their webhook events (the outbox) and the new head.
 */
export async function appendAuditIn(
  tx: SqlQueryable,
  sql: AuditStatements,
  entries: readonly AuditEntry[],
): Promise<AuditRecord[]> {
  if (entries.length === 0) return []
  const [head] = await tx.query<ChainRow>(sql.lockChain.text, [], { name: sql.lockChain.name })
  const records = await chainAfter(head, entries, NO_HEAD)
  const last = records.at(-1)!
  await tx.query(
    sql.append.text,
    [
      JSON.stringify(records.map(auditRecordToJson)),
      last.seq,
      last.hash,
      outboxRows(webhookEventsOf(records)),
    ],
    { name: sql.append.name },
  )
  return records
}

/** @internal Events as the outbox's rows, in JSON for `jsonb_to_recordset`. */
export const outboxRows = (events: readonly WebhookEvent[]): string =>
  JSON.stringify(
    events.map((event) => ({
      id: event.id,
      type: event.type,
      developer_id: event.developerId,
      project_id: event.projectId,
      data: event.data,
      created_at: event.createdAt.toISOString(),
    })),
  )

/**
 * @internal One developer's rows, newest first: only the conditions the query has are in the
 * statement, and it is not prepared, so that PostgreSQL plans each with its values (one key's rows
 * on the index of a key's rows, schema version 12; a developer's on the developer's index).
 */
export async function listAuditIn(db: SqlQueryable, sql: AuditStatements, query: AuditQuery) {
  const { developerId, projectId, limit, beforeSeq, keyId, identityId, action, from, to } = query
  const { values, add } = statementParams([developerId, limit + 1])
  const conditions = [sql.list]
  if (projectId !== undefined) conditions.push(`project_id = ${add(projectId, 'text')}`)
  if (beforeSeq !== undefined) conditions.push(`seq < ${add(beforeSeq, 'bigint')}`)
  if (keyId !== undefined) conditions.push(`target_type = 'key' AND target_id = ${add(keyId, 'text')}`)
  if (identityId !== undefined) {
    // Its own rows, and those of a key that names it before or after (issued into it, joining or
    // leaving it, revoked with it).
    const id = add(identityId, 'text')
    conditions.push(
      `((target_type = 'identity' AND target_id = ${id}) OR (target_type = 'key' AND ${id} IN (before->>'identity_id', after->>'identity_id')))`,
    )
  }
  if (action !== undefined) conditions.push(`action = ${add(action, 'text')}`)
  if (from !== undefined) conditions.push(`at >= ${add(from, 'timestamptz')}`)
  if (to !== undefined) conditions.push(`at < ${add(to, 'timestamptz')}`)
  const rows = await db.query<AuditRow>(`${conditions.join('\n AND ')}\n ORDER BY seq DESC LIMIT $2`, values)
  return auditPageOf(rows, limit, toAuditRecord)
}

/** @internal Rows after `afterSeq`, oldest first. */
export async function readAuditIn(db: SqlQueryable, sql: AuditStatements, afterSeq: number, limit: number) {
  const rows = await db.query<AuditRow>(sql.read.text, [afterSeq, limit], { name: sql.read.name })
  return rows.map(toAuditRecord)
}

/** @internal The chain's head. */
export async function auditHeadIn(db: SqlQueryable, sql: AuditStatements): Promise<AuditChainHead> {
  const [row] = await db.query<ChainRow>(sql.chainHead.text, [], { name: sql.chainHead.name })
  return chainHeadOf(row, NO_HEAD)
}

/** @internal The audit log of `sql`'s schema, as the store's shared part calls it. */
export const auditLog = (sql: AuditStatements): AuditLog<SqlQueryable> => ({
  append: (tx, entries) => appendAuditIn(tx, sql, entries),
  list: (db, query) => listAuditIn(db, sql, query),
  read: (db, afterSeq, limit) => readAuditIn(db, sql, afterSeq, limit),
  head: (db) => auditHeadIn(db, sql),
})
