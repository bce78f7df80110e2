import type { KeyKind } from '@keyward/core'
import { CHANGE_CHANNEL } from './schema.js'

/** A statement with the name it is prepared under. */
export interface Statement {
  readonly name: string
  readonly text: string
}

/**
 * The statements of one listing, newest first, a page at a time: its first page, and the page
 * after a cursor whose id is a UUID or not. Parameters: the listing's scope ($1), how many rows
 * ($2), and the cursor's `createdAt` ($3) and `id` ($4).
 */
export interface PageStatements {
  readonly first: Statement
  readonly after: Statement
  readonly afterText: Statement
}

/** The statements of the store, for one schema. */
export interface Statements extends CreditStatements {
  readonly findByHash: Statement
  readonly findByHashes: Statement
  readonly findById: Statement
  readonly ownerOf: Statement
  readonly listByOwner: Readonly<Record<KeyKind, Statement>>
  readonly listPage: Readonly<Record<KeyKind, PageStatements>>
  /** The start of a page of an owner's ($1) keys that a filter keeps: its conditions follow. */
  readonly listPageFiltered: Readonly<Record<KeyKind, string>>
  readonly setExpiry: Statement
  readonly setPolicies: Statement
  readonly listOwners: Readonly<Record<KeyKind, Statement>>
  readonly insert: Readonly<Record<KeyKind, Statement>>
  readonly insertWithinLimit: Readonly<Record<KeyKind, Statement>>
  readonly insertImported: Statement
  readonly lockOwner: Statement
  readonly closeOwner: Statement
  readonly deactivateOwner: Readonly<Record<KeyKind, Statement>>
  readonly deactivate: Statement
  readonly deactivateMany: Statement
  readonly activate: Statement
  readonly activateWithinLimit: Readonly<Record<KeyKind, Statement>>
  readonly roll: Readonly<Record<KeyKind, Statement>>
  readonly recordUse: Statement
  readonly lockCredits: Statement
  readonly writeCredits: Statement
}

const SCHEMA_NAME = /^[a-z_][a-z0-9_]{0,62}$/

/** @internal Checks a schema name once, when a store or migration is set up. */
export function checkSchema(who: string, schema: string): string {
  if (typeof schema !== 'string' || !SCHEMA_NAME.test(schema)) {
    throw new TypeError(
      `${who}: option \`schema\` must be a lower-case SQL identifier (a-z, 0-9, _; at most 63), got ${JSON.stringify(schema)}.`,
    )
  }
  return schema
}

/** The column that holds each kind of owner: the specification's `developer_id` and `project_id`. */
const OWNER_COLUMN: Readonly<Record<KeyKind, string>> = {
  developer: 'developer_id',
  project: 'project_id',
}

/** @internal The columns an insert writes, in the order of its parameters. */
export const INSERTED =
  'id, hash, key_prefix, developer_id, project_id, name, active, created_at, expires_at, last_used_at, replaced_by, ip_allowlist, permissions, metadata, remaining, refill_amount, refill_interval, refill_day, refilled_at, ratelimits, pepper_id, role_ids, credits_low_at'
// The columns of an insert with their types, as a JSON row of an import gives them.
const IMPORTED_TYPES =
  'id uuid, hash text, key_prefix text, developer_id text, project_id text, name text, active boolean, created_at timestamptz, expires_at timestamptz, last_used_at timestamptz, replaced_by uuid, ip_allowlist text[], permissions text[], metadata jsonb, remaining bigint, refill_amount bigint, refill_interval text, refill_day smallint, refilled_at timestamptz, ratelimits jsonb, pepper_id text, role_ids uuid[], credits_low_at jsonb, identity_id uuid'
// The columns a record is read from.
export const KEY_COLUMNS = `${INSERTED}, revoked_reason, identity_id`
const COLUMNS = KEY_COLUMNS

/** @internal A list of columns, each qualified by a table's alias: `k.id, k.hash, ...`. */
export const qualified = (columns: string, alias: string): string =>
  columns
    .split(', ')
    .map((column) => `${alias}.${column}`)
    .join(', ')
/**
 * @internal A record's creation time as text to the microsecond, in UTC: the position of a page's
 * last record, as precise as PostgreSQL compares it.
 */
export const POSITION = `to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') AS position_at`

/**
 * @internal The statements of a listing of `table` where `scope` (a condition on $1), newest
 * first: the keyset after ($3, $4) is one range of an index on (scope, created_at DESC, id DESC),
 * read from where the cursor points. After a cursor whose id is not a UUID (no record of this
 * store has one), the id is compared as text, which orders canonical UUIDs as PostgreSQL does.
 */
export function pageStatements(
  named: (name: string, text: string) => Statement,
  label: string,
  table: string,
  columns: string,
  scope: string,
): PageStatements {
  const select = `SELECT ${columns}, ${POSITION} FROM ${table}`
  const order = 'ORDER BY created_at DESC, id DESC LIMIT $2'
  return {
    first: named(`list_page_${label}`, `${select} WHERE ${scope}\n ${order}`),
    after: named(
      `list_page_after_${label}`,
      `${select}\n WHERE ${scope} AND (created_at, id) < ($3::timestamptz, $4::uuid)\n ${order}`,
    ),
    afterText: named(
      `list_page_after_text_${label}`,
      `${select}\n WHERE ${scope} AND created_at <= $3::timestamptz AND (created_at < $3::timestamptz OR id::text < $4)\n ${order}`,
    ),
  }
}

// Where the owner id is among the parameters of the insert (columns in the order of COLUMNS).
const OWNER_PARAM: Readonly<Record<KeyKind, string>> = { developer: '$4', project: '$5' }

const byKind = (make: (kind: KeyKind, column: string) => Statement) => ({
  developer: make('developer', OWNER_COLUMN.developer),
  project: make('project', OWNER_COLUMN.project),
})

/** 32-bit FNV-1a of a string, as 8 hex digits. */
function fnv1a(text: string): string {
  let hash = 0x811c9dc5
  for (let i = 0; i < text.length; i++) hash = Math.imul(hash ^ text.charCodeAt(i), 0x01000193)
  return (hash >>> 0).toString(16).padStart(8, '0')
}

/**
 * @internal The prefix of the names the statements of `schema` are prepared under. A prepared
 * statement's name is per connection and at most 63 characters; a digest of the schema keeps the
 * statements of two stores on one pool apart.
 */
export const statementPrefix = (schema: string) => `keyward_${fnv1a(schema)}`

const cache = new Map<string, Statements>()

/** The statements of a lease and a give-back of credits, on the table of a holder of them. */
export interface CreditStatements {
  readonly leaseCredits: Statement
  readonly returnCredits: Statement
}

/**
 * @internal The lease and the give-back of credits on `table`, whose rows carry `remaining`, the
 * refill columns and `refilled_at`: an API key's own credits, or an identity's pool.
 */
export function creditStatements(
  named: (name: string, text: string) => Statement,
  table: string,
  schema: string,
): CreditStatements {
  return {
    // Leases of credits, in one statement for a batch of distinct ids ($1, with what each asks
    // for, $2, and needs, $3): the rows are locked in the order of their ids (two batches never
    // wait on each other in a cycle) and read as they are once locked (a lease or change that
    // committed meanwhile included), the refill due at $4 applied (once per period: the first
    // lease of a period moves refilled_at to its start), then min(want, balance) taken when the
    // balance holds at least `need`, else nothing. A row without a limit grants `want` and is
    // not written. One row per id found. Named apart from the one-id statement of earlier
    // releases, which a process of the fleet not yet upgraded may still prepare under its name.
    leaseCredits: named(
      'lease_credits_batch',
      `WITH asked AS (
         SELECT * FROM unnest($1::uuid[], $2::bigint[], $3::bigint[]) AS a(id, want, need)
       ), locked AS (
         SELECT id, remaining, refill_amount, refill_interval, refill_day, refilled_at, credits_low_at,
           CASE WHEN remaining IS NOT NULL AND refill_amount IS NOT NULL
             THEN "${schema}".credit_period_start(refill_interval, refill_day, $4::timestamptz) END AS period
         FROM ${table} WHERE id = ANY($1::uuid[]) ORDER BY id FOR UPDATE
       ), refilled AS (
         SELECT id, refill_amount, refill_interval, refill_day, credits_low_at,
           CASE WHEN period > coalesce(refilled_at, '-infinity') THEN greatest(remaining, refill_amount)
             ELSE remaining END AS balance,
           CASE WHEN period > coalesce(refilled_at, '-infinity') THEN period ELSE refilled_at END AS refilled_at
         FROM locked
       ), lease AS (
         SELECT r.*, CASE WHEN r.balance IS NULL THEN a.want WHEN r.balance >= a.need
           THEN least(a.want, r.balance) ELSE 0 END AS granted
         FROM refilled AS r JOIN asked AS a ON a.id = r.id
       ), written AS (
         UPDATE ${table} AS k SET remaining = l.balance - l.granted, refilled_at = l.refilled_at
         FROM lease AS l WHERE k.id = l.id AND l.balance IS NOT NULL RETURNING k.id
       )
       SELECT id, granted, balance - granted AS remaining, refill_amount, refill_interval, refill_day,
         refilled_at, credits_low_at FROM lease`,
    ),
    returnCredits: named(
      'return_credits',
      `UPDATE ${table} SET remaining = remaining + $2::bigint WHERE id = $1 AND remaining IS NOT NULL`,
    ),
  }
}

/** @internal The store's statements for `schema`, built once per schema. */
export function statementsFor(schema: string): Statements {
  const cached = cache.get(schema)
  if (cached) return cached
  const keys = `"${schema}".api_keys`
  const owners = `"${schema}".api_key_owners`
  const prefix = statementPrefix(schema)
  const named = (name: string, text: string): Statement => ({ name: `${prefix}_${name}`, text })
  // The limit counts active, unexpired keys not in a grace window, at the time `now`.
  const counted = (column: string, owner: string, now: string) =>
    `(SELECT count(*) FROM ${keys} WHERE ${column} = ${owner} AND active AND replaced_by IS NULL
        AND (expires_at IS NULL OR expires_at > ${now}))`
  // Takes the owner's row lock until the transaction ends, creating the row the first time, and
  // returns `closed` for a new row (false) or a closed owner (true), nothing for an open one.
  // A `WHERE` that is false locks the existing row without writing a new version of it; it is
  // evaluated on the latest version, even one committed after the statement's snapshot.
  const ownerLock = (type: string, id: string) =>
    `INSERT INTO ${owners} AS o (owner_type, owner_id) VALUES (${type}, ${id})
     ON CONFLICT (owner_type, owner_id) DO UPDATE SET owner_id = excluded.owner_id WHERE o.closed_at IS NOT NULL
     RETURNING o.closed_at IS NOT NULL AS closed`
  const kindLiteral = (kind: KeyKind) => `'${kind}'::text`
  const values =
    '$1::uuid, $2::text, $3::text, $4::text, $5::text, $6::text, $7::boolean, $8::timestamptz, $9::timestamptz, $10::timestamptz, $11::uuid, $12::text[], $13::text[], $14::text::jsonb, $15::bigint, $16::bigint, $17::text, $18::smallint, $19::timestamptz, $20::text::jsonb, $21::text, $22::uuid[], $23::text::jsonb'
  const statements: Statements = {
    // Always one row, all NULL for an unknown key: an unknown key costs the database, the wire
    // and the driver what a known one does, so the time of the answer tells nothing of it.
    findByHash: named(
      'find_by_hash',
      `SELECT ${COLUMNS.split(', ')
        .map((column) => `k.${column}`)
        .join(', ')}
       FROM (VALUES (1)) AS one LEFT JOIN ${keys} AS k ON k.hash = $1`,
    ),
    findByHashes: named('find_by_hashes', `SELECT ${COLUMNS} FROM ${keys} WHERE hash = ANY($1::text[])`),
    findById: named('find_by_id', `SELECT ${COLUMNS} FROM ${keys} WHERE id = $1`),
    ownerOf: named(
      'owner_of',
      `SELECT CASE WHEN developer_id IS NULL THEN 'project' ELSE 'developer' END AS type,
              coalesce(developer_id, project_id) AS id
       FROM ${keys} WHERE id = $1`,
    ),
    listByOwner: byKind((kind, column) =>
      named(`list_${kind}`, `SELECT ${COLUMNS} FROM ${keys} WHERE ${column} = $1 ORDER BY created_at, id`),
    ),
    // One page of an owner's keys, on the owner's page index.
    listPage: {
      developer: pageStatements(named, 'developer', keys, COLUMNS, `${OWNER_COLUMN.developer} = $1`),
      project: pageStatements(named, 'project', keys, COLUMNS, `${OWNER_COLUMN.project} = $1`),
    },
    listPageFiltered: {
      developer: `SELECT ${COLUMNS}, ${POSITION} FROM ${keys} WHERE ${OWNER_COLUMN.developer} = $1`,
      project: `SELECT ${COLUMNS}, ${POSITION} FROM ${keys} WHERE ${OWNER_COLUMN.project} = $1`,
    },
    listOwners: byKind((kind, column) =>
      named(
        `list_owners_${kind}`,
        `SELECT ${column} AS id, count(*)::int AS keys, (count(*) FILTER (WHERE active))::int AS active_keys,
                min(created_at) AS first_created_at, max(created_at) AS last_created_at
         FROM ${keys} WHERE ${column} IS NOT NULL
         GROUP BY ${column} ORDER BY min(created_at), ${column}`,
      ),
    ),
    // One statement: locks the owner's row first, then inserts unless the owner is closed (no
    // row comes back then). The lock orders it with `closeOwner`: a deletion that comes after
    // it finds the key, one that came before refuses it.
    // The key's identity is the last parameter ($24), after those every insert shares.
    insert: byKind((kind) =>
      named(
        `insert_${kind}`,
        `WITH owner AS (${ownerLock(kindLiteral(kind), `${OWNER_PARAM[kind]}::text`)})
         INSERT INTO ${keys} (${INSERTED}, identity_id)
         SELECT ${values}, $24::uuid WHERE NOT EXISTS (SELECT 1 FROM owner WHERE closed)
         RETURNING ${COLUMNS}`,
      ),
    ),
    // Run with the owner locked: inserts only while the owner has fewer than $25 counted keys
    // at the new key's creation time ($8); the key's identity is $24, as in `insert`.
    insertWithinLimit: byKind((kind, column) =>
      named(
        `insert_within_limit_${kind}`,
        `INSERT INTO ${keys} (${INSERTED}, identity_id)
         SELECT ${values}, $24::uuid
         WHERE ${counted(column, OWNER_PARAM[kind], '$8::timestamptz')} < $25
         RETURNING ${COLUMNS}`,
      ),
    ),
    // Keys imported from another system, a batch in one statement ($1: a JSON array of rows with
    // the columns of an insert): those whose hash is stored already (or repeated in the batch), or
    // whose owner is closed, are left out. No limit applies, and no owner row is made.
    insertImported: named(
      'insert_imported',
      `INSERT INTO ${keys} (${INSERTED}, identity_id)
       SELECT ${INSERTED}, identity_id
       FROM jsonb_to_recordset($1::text::jsonb) AS r (${IMPORTED_TYPES})
       WHERE NOT EXISTS (
         SELECT 1 FROM ${owners} AS o
         WHERE o.closed_at IS NOT NULL AND o.owner_id = coalesce(r.developer_id, r.project_id)
           AND o.owner_type = CASE WHEN r.developer_id IS NULL THEN 'project' ELSE 'developer' END)
       ON CONFLICT (hash) DO NOTHING
       RETURNING ${COLUMNS}`,
    ),
    lockOwner: named('lock_owner', ownerLock('$1::text', '$2::text')),
    // Closes the owner (once: the first time stays), taking its row lock until the transaction
    // ends; `deactivateOwner` then runs with a snapshot that sees every key created before.
    // It also tells every process, through the change feed's channel, that the owner changed
    // (`ownerChangeHash`): a cache drops what it keeps of owners even when no key was active.
    closeOwner: named(
      'close_owner',
      `WITH closed AS (
         INSERT INTO ${owners} AS o (owner_type, owner_id, closed_at) VALUES ($1, $2, now())
         ON CONFLICT (owner_type, owner_id) DO UPDATE SET closed_at = coalesce(o.closed_at, excluded.closed_at)
         RETURNING owner_type, owner_id
       )
       SELECT pg_notify('${CHANGE_CHANNEL}', json_build_object(
         'schema', '${schema}', 'hash', 'owner:' || owner_type || ':' || owner_id,
         'position', pg_current_wal_insert_lsn()::text)::text)
       FROM closed`,
    ),
    deactivateOwner: byKind((kind, column) =>
      named(
        `deactivate_owner_${kind}`,
        `UPDATE ${keys} SET active = false, revoked_reason = 'revoked' WHERE ${column} = $1 AND active RETURNING ${COLUMNS}`,
      ),
    ),
    // A key already inactive keeps the reason it was deactivated for.
    deactivate: named(
      'deactivate',
      `UPDATE ${keys} SET active = false, revoked_reason = CASE WHEN active THEN 'revoked' ELSE revoked_reason END
       WHERE id = $1 RETURNING ${COLUMNS}`,
    ),
    // `AND active` is evaluated again on a row that a concurrent call changed first, so of two
    // calls with the same ids, each row is returned by one only.
    deactivateMany: named(
      'deactivate_many',
      `UPDATE ${keys} SET active = false, revoked_reason = $2 WHERE id = ANY($1::uuid[]) AND active RETURNING ${COLUMNS}`,
    ),
    activate: named(
      'activate',
      `UPDATE ${keys} SET active = true, revoked_reason = NULL WHERE id = $1 RETURNING ${COLUMNS}`,
    ),
    // Run with the owner locked: activates only within the limit at $4 (an active key stays as it is).
    activateWithinLimit: byKind((kind, column) =>
      named(
        `activate_within_limit_${kind}`,
        `UPDATE ${keys} SET active = true, revoked_reason = NULL
         WHERE id = $1 AND (active OR ${counted(column, '$2', '$4::timestamptz')} < $3)
         RETURNING ${COLUMNS}`,
      ),
    ),
    // Only while the key is not in a roll's grace window. The row is locked first, and read as
    // it is once locked (a roll that committed meanwhile included): a rolled key comes back as
    // it is, keeping the end of its grace window.
    setExpiry: named(
      'set_expiry',
      `WITH locked AS (SELECT ${COLUMNS} FROM ${keys} WHERE id = $1 FOR UPDATE), updated AS (
         UPDATE ${keys} SET expires_at = $2::timestamptz
         WHERE id = (SELECT id FROM locked WHERE replaced_by IS NULL) RETURNING ${COLUMNS}
       )
       SELECT ${COLUMNS} FROM updated
       UNION ALL SELECT ${COLUMNS} FROM locked WHERE NOT EXISTS (SELECT 1 FROM updated)`,
    ),
    // A key's policies: a field whose flag ($2, $4, $6, $8, $10) is false stays as it is.
    setPolicies: named(
      'set_policies',
      `UPDATE ${keys} SET
         ip_allowlist = CASE WHEN $2::boolean THEN $3::text[] ELSE ip_allowlist END,
         permissions = CASE WHEN $4::boolean THEN $5::text[] ELSE permissions END,
         metadata = CASE WHEN $6::boolean THEN $7::text::jsonb ELSE metadata END,
         ratelimits = CASE WHEN $8::boolean THEN $9::text::jsonb ELSE ratelimits END,
         role_ids = CASE WHEN $10::boolean THEN $11::uuid[] ELSE role_ids END,
         credits_low_at = CASE WHEN $12::boolean THEN $13::text::jsonb ELSE credits_low_at END
       WHERE id = $1 RETURNING ${COLUMNS}`,
    ),
    // One statement, so atomic without a transaction: locks the owner's row (as `insert` does),
    // marks key $24 replaced by the new key $1 only if the owner is open and the key still
    // counts at $26 and has the new key's owner, then inserts the new key, in the identity of the
    // key it replaces. Concurrent rolls of one key wait on the locks and then find it replaced: one wins.
    roll: byKind((kind) =>
      named(
        `roll_${kind}`,
        `WITH owner AS (${ownerLock(kindLiteral(kind), `${OWNER_PARAM[kind]}::text`)}), previous AS (
         UPDATE ${keys} SET replaced_by = $1::uuid, expires_at = least(expires_at, $25::timestamptz)
         WHERE id = $24::uuid AND active AND replaced_by IS NULL
           AND (expires_at IS NULL OR expires_at > $26::timestamptz)
           AND developer_id IS NOT DISTINCT FROM $4::text AND project_id IS NOT DISTINCT FROM $5::text
           AND NOT EXISTS (SELECT 1 FROM owner WHERE closed)
         RETURNING ${COLUMNS}
       ), replacement AS (
         INSERT INTO ${keys} (${INSERTED}, identity_id) SELECT ${values}, previous.identity_id FROM previous
         RETURNING ${COLUMNS}
       )
       SELECT true AS is_replacement, ${COLUMNS} FROM replacement
       UNION ALL SELECT false, ${COLUMNS} FROM previous`,
      ),
    ),
    ...creditStatements(named, keys, schema),
    // A change of credits runs in a transaction: the row locked, the change computed by the
    // service's rule (refill first), then written with the threshold the key keeps ($8).
    lockCredits: named('lock_credits', `SELECT ${COLUMNS} FROM ${keys} WHERE id = $1 FOR UPDATE`),
    writeCredits: named(
      'write_credits',
      `UPDATE ${keys} SET remaining = $2::bigint, refill_amount = $3::bigint, refill_interval = $4::text,
         refill_day = $5::smallint, refilled_at = $6::timestamptz,
         refill_due_at = CASE WHEN $7::boolean THEN NULL ELSE refill_due_at END,
         credits_low_at = $8::text::jsonb
       WHERE id = $1 RETURNING ${COLUMNS}`,
    ),
    // Batched: one row per use. Only active keys, and last_used_at never goes back.
    recordUse: named(
      'record_use',
      `UPDATE ${keys} AS k SET last_used_at = u.used_at
       FROM unnest($1::uuid[], $2::timestamptz[]) AS u(id, used_at)
       WHERE k.id = u.id AND k.active AND (k.last_used_at IS NULL OR k.last_used_at < u.used_at)`,
    ),
  }
  cache.set(schema, statements)
  return statements
}
