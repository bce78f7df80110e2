import {
  type CreditStatements,
  creditStatements,
  KEY_COLUMNS,
  type PageStatements,
  POSITION,
  pageStatements,
  qualified,
  type Statement,
  statementPrefix,
} from './statements.js'

/** The statements of the store's identities, for one schema. */
export interface IdentityStatements extends CreditStatements {
  readonly insert: Statement
  readonly findById: Statement
  readonly findByExternalId: Statement
  readonly lock: Statement
  readonly lockShared: Statement
  readonly update: Statement
  readonly countKeys: Statement
  readonly leaveAll: Statement
  readonly delete: Statement
  readonly setKeyIdentity: Statement
  readonly writeCredits: Statement
  readonly listPage: PageStatements
  /** The start of a page of a project's ($1) identities that a search keeps: its conditions follow. */
  readonly listPageWhere: string
  readonly listKeys: PageStatements
}

// The columns an identity is read from and inserted into, in the order of the insert's parameters.
export const IDENTITY_COLUMNS =
  'id, project_id, external_id, metadata, ratelimits, remaining, refill_amount, refill_interval, refill_day, refilled_at, created_at, updated_at, role_ids, credits_low_at'

const cache = new Map<string, IdentityStatements>()

/**
 * @internal The keys of the identity `i` (of a statement's row), for this process to hear of them
 * at once (the trigger tells every process).
 */
export const identityMembers = (keys: string) =>
  `(SELECT coalesce(jsonb_agg(jsonb_build_object('id', k.id, 'hash', k.hash)), '[]'::jsonb)
     FROM ${keys} AS k WHERE k.identity_id = i.id)`

/** @internal The identities' statements for `schema`, built once per schema. */
export function identityStatementsFor(schema: string): IdentityStatements {
  const cached = cache.get(schema)
  if (cached) return cached
  const identities = `"${schema}".identities`
  const keys = `"${schema}".api_keys`
  const prefix = statementPrefix(schema)
  const named = (name: string, text: string): Statement => ({ name: `${prefix}_identity_${name}`, text })
  const keyColumns = (table: string) => qualified(KEY_COLUMNS, table)
  const identityColumns = qualified(IDENTITY_COLUMNS, 'i')
  // The identity's keys, for this process to hear of them at once (the trigger tells every process).
  const members = identityMembers(keys)
  const statements: IdentityStatements = {
    // Nothing back when the project has an identity of this external id: the unique index
    // decides, under races too (a concurrent insert is waited for, then found).
    insert: named(
      'insert',
      `INSERT INTO ${identities} (${IDENTITY_COLUMNS})
       VALUES ($1::uuid, $2::text, $3::text, $4::text::jsonb, $5::text::jsonb, $6::bigint, $7::bigint,
         $8::text, $9::smallint, $10::timestamptz, $11::timestamptz, $12::timestamptz, $13::uuid[],
         $14::text::jsonb)
       ON CONFLICT (project_id, external_id) DO NOTHING
       RETURNING ${IDENTITY_COLUMNS}`,
    ),
    findById: named('find_by_id', `SELECT ${IDENTITY_COLUMNS} FROM ${identities} WHERE id = $1`),
    findByExternalId: named(
      'find_by_external_id',
      `SELECT ${IDENTITY_COLUMNS} FROM ${identities} WHERE project_id = $1 AND external_id = $2`,
    ),
    // A deletion holds the row for the rest of its transaction; a key joining holds it shared,
    // so that neither misses the other, nor a change of the identity (see identities.sql).
    lock: named('lock', `SELECT ${IDENTITY_COLUMNS} FROM ${identities} WHERE id = $1 FOR UPDATE`),
    lockShared: named('lock_shared', `SELECT ${IDENTITY_COLUMNS} FROM ${identities} WHERE id = $1 FOR SHARE`),
    // A field whose flag ($2, $4, $7, $9) is false stays as it is. The identity's keys come back with it,
    // for this process to hear of them at once (the trigger tells every process).
    update: named(
      'update',
      `UPDATE ${identities} AS i SET
         metadata = CASE WHEN $2::boolean THEN $3::text::jsonb ELSE i.metadata END,
         ratelimits = CASE WHEN $4::boolean THEN $5::text::jsonb ELSE i.ratelimits END,
         role_ids = CASE WHEN $7::boolean THEN $8::uuid[] ELSE i.role_ids END,
         credits_low_at = CASE WHEN $9::boolean THEN $10::text::jsonb ELSE i.credits_low_at END,
         updated_at = $6::timestamptz
       WHERE i.id = $1
       RETURNING ${identityColumns}, ${members} AS members`,
    ),
    countKeys: named('count_keys', `SELECT count(*)::int AS keys FROM ${keys} WHERE identity_id = $1`),
    // Every key leaves the identity; the active ones are revoked (`was_active` says which).
    leaveAll: named(
      'leave_all',
      `WITH members AS (SELECT id, active FROM ${keys} WHERE identity_id = $1 FOR UPDATE)
       UPDATE ${keys} AS k SET identity_id = NULL, active = false,
         revoked_reason = CASE WHEN k.active THEN 'revoked' ELSE k.revoked_reason END
       FROM members AS m WHERE k.id = m.id
       RETURNING ${keyColumns('k')}, m.active AS was_active`,
    ),
    delete: named('delete', `DELETE FROM ${identities} WHERE id = $1`),
    // The key's row locked, its identity written; the identity it had comes back too.
    setKeyIdentity: named(
      'set_key_identity',
      `WITH previous AS (SELECT id, identity_id FROM ${keys} WHERE id = $1 FOR UPDATE)
       UPDATE ${keys} AS k SET identity_id = $2::uuid FROM previous AS p WHERE k.id = p.id
       RETURNING ${keyColumns('k')}, p.identity_id AS previous_identity_id`,
    ),
    ...creditStatements(named, identities, schema),
    // A change of the pool, under the row lock its transaction took: the keys come back when
    // $8 says that the change is one of pool or no pool, which verifications read. A set ($9)
    // starts the scheduler's count of refill periods anew; $10 is the threshold the pool keeps.
    writeCredits: named(
      'write_credits',
      `UPDATE ${identities} AS i SET remaining = $2::bigint, refill_amount = $3::bigint,
         refill_interval = $4::text, refill_day = $5::smallint, refilled_at = $6::timestamptz,
         updated_at = $7::timestamptz, refill_due_at = CASE WHEN $9::boolean THEN NULL ELSE i.refill_due_at END,
         credits_low_at = $10::text::jsonb
       WHERE i.id = $1
       RETURNING ${identityColumns}, CASE WHEN $8::boolean THEN ${members} ELSE '[]'::jsonb END AS members`,
    ),
    listPage: pageStatements(named, 'identities', identities, IDENTITY_COLUMNS, 'project_id = $1'),
    listPageWhere: `SELECT ${IDENTITY_COLUMNS}, ${POSITION} FROM ${identities} WHERE project_id = $1`,
    listKeys: pageStatements(named, 'keys', keys, KEY_COLUMNS, 'identity_id = $1::uuid'),
  }
  cache.set(schema, statements)
  return statements
}
