import type { KeyKind } from '@keyward/core'

/** A statement with the name it is prepared under. */
export interface Statement {
  readonly name: string
  readonly text: string
}

/** The statements of the store, for one schema. */
export interface Statements {
  readonly findByHash: Statement
  readonly findById: Statement
  readonly ownerOf: Statement
  readonly listByOwner: Readonly<Record<KeyKind, Statement>>
  readonly listOwners: Readonly<Record<KeyKind, Statement>>
  readonly insert: Statement
  readonly insertWithinLimit: Readonly<Record<KeyKind, Statement>>
  readonly lockOwner: Statement
  readonly deactivate: Statement
  readonly activate: Statement
  readonly activateWithinLimit: Readonly<Record<KeyKind, Statement>>
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

const COLUMNS = 'id, hash, key_prefix, developer_id, project_id, name, active, created_at'

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

const cache = new Map<string, Statements>()

/** @internal The store's statements for `schema`, built once per schema. */
export function statementsFor(schema: string): Statements {
  const cached = cache.get(schema)
  if (cached) return cached
  const keys = `"${schema}".api_keys`
  const owners = `"${schema}".api_key_owners`
  // A prepared statement's name is per connection and at most 63 characters; a digest of the
  // schema keeps the statements of two stores on one pool apart.
  const prefix = `keyward_${fnv1a(schema)}`
  const named = (name: string, text: string): Statement => ({ name: `${prefix}_${name}`, text })
  const statements: Statements = {
    findByHash: named('find_by_hash', `SELECT ${COLUMNS} FROM ${keys} WHERE hash = $1`),
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
    listOwners: byKind((kind, column) =>
      named(
        `list_owners_${kind}`,
        `SELECT ${column} AS id, count(*)::int AS keys, (count(*) FILTER (WHERE active))::int AS active_keys,
                min(created_at) AS first_created_at, max(created_at) AS last_created_at
         FROM ${keys} WHERE ${column} IS NOT NULL
         GROUP BY ${column} ORDER BY min(created_at), ${column}`,
      ),
    ),
    insert: named(
      'insert',
      `INSERT INTO ${keys} (${COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6, $7, $8) RETURNING ${COLUMNS}`,
    ),
    // Run with the owner locked: inserts only while the owner has fewer than $9 active keys.
    insertWithinLimit: byKind((kind, column) =>
      named(
        `insert_within_limit_${kind}`,
        `INSERT INTO ${keys} (${COLUMNS})
         SELECT $1::uuid, $2::text, $3::text, $4::text, $5::text, $6::text, $7::boolean, $8::timestamptz
         WHERE (SELECT count(*) FROM ${keys} WHERE ${column} = ${OWNER_PARAM[kind]} AND active) < $9
         RETURNING ${COLUMNS}`,
      ),
    ),
    // Takes the owner's row lock until the transaction ends, creating the row the first time.
    // `WHERE false` locks the existing row without writing a new version of it.
    lockOwner: named(
      'lock_owner',
      `INSERT INTO ${owners} (owner_type, owner_id) VALUES ($1, $2)
       ON CONFLICT (owner_type, owner_id) DO UPDATE SET owner_id = excluded.owner_id WHERE false`,
    ),
    deactivate: named('deactivate', `UPDATE ${keys} SET active = false WHERE id = $1 RETURNING ${COLUMNS}`),
    activate: named('activate', `UPDATE ${keys} SET active = true WHERE id = $1 RETURNING ${COLUMNS}`),
    // Run with the owner locked: activates only within the limit (an active key stays as it is).
    activateWithinLimit: byKind((kind, column) =>
      named(
        `activate_within_limit_${kind}`,
        `UPDATE ${keys} SET active = true
         WHERE id = $1 AND (active OR (SELECT count(*) FROM ${keys} WHERE ${column} = $2 AND active) < $3)
         RETURNING ${COLUMNS}`,
      ),
    ),
  }
  cache.set(schema, statements)
  return statements
}
