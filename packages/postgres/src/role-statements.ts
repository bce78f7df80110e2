import { IDENTITY_COLUMNS, identityMembers } from './identity-statements.js'
import {
  KEY_COLUMNS,
  type PageStatements,
  pageStatements,
  qualified,
  type Statement,
  statementPrefix,
} from './statements.js'

/** The statements of the store's roles, for one schema. */
export interface RoleStatements {
  readonly insert: Statement
  readonly findById: Statement
  readonly findByNames: Statement
  readonly findByIds: Statement
  readonly lock: Statement
  readonly update: Statement
  readonly countKeys: Statement
  readonly detachAll: Statement
  readonly detachIdentities: Statement
  readonly delete: Statement
  readonly listPage: PageStatements
}

// The columns a role is read from and inserted into, in the order of the insert's parameters.
export const ROLE_COLUMNS = 'id, project_id, name, permissions, created_at, updated_at'

const cache = new Map<string, RoleStatements>()

/** @internal The roles' statements for `schema`, built once per schema. */
export function roleStatementsFor(schema: string): RoleStatements {
  const cached = cache.get(schema)
  if (cached) return cached
  const roles = `"${schema}".roles`
  const keys = `"${schema}".api_keys`
  const identities = `"${schema}".identities`
  // The identities that hold the role `id` (schema version 16).
  const holdingIdentities = (id: string) => `SELECT id FROM ${identities} WHERE role_ids @> ARRAY[${id}]`
  const prefix = statementPrefix(schema)
  const named = (name: string, text: string): Statement => ({ name: `${prefix}_role_${name}`, text })
  const keyColumns = qualified(KEY_COLUMNS, 'k')
  const roleColumns = qualified(ROLE_COLUMNS, 'r')
  // The role's keys, and those of the identities that hold it, for this process to hear of them
  // at once (the trigger tells every process).
  const holders = `(SELECT coalesce(jsonb_agg(jsonb_build_object('id', k.id, 'hash', k.hash)), '[]'::jsonb)
     FROM ${keys} AS k WHERE k.role_ids @> ARRAY[r.id] OR k.identity_id IN (${holdingIdentities('r.id')}))`
  const statements: RoleStatements = {
    // Nothing back when the project has a role of this name: the unique index decides.
    insert: named(
      'insert',
      `INSERT INTO ${roles} (${ROLE_COLUMNS})
       VALUES ($1::uuid, $2::text, $3::text, $4::text[], $5::timestamptz, $6::timestamptz)
       ON CONFLICT (project_id, name) DO NOTHING
       RETURNING ${ROLE_COLUMNS}`,
    ),
    findById: named('find_by_id', `SELECT ${ROLE_COLUMNS} FROM ${roles} WHERE id = $1`),
    findByNames: named(
      'find_by_names',
      `SELECT ${ROLE_COLUMNS} FROM ${roles} WHERE project_id = $1 AND name = ANY($2::text[])`,
    ),
    findByIds: named('find_by_ids', `SELECT ${ROLE_COLUMNS} FROM ${roles} WHERE id = ANY($1::uuid[])`),
    lock: named('lock', `SELECT ${ROLE_COLUMNS} FROM ${roles} WHERE id = $1 FOR UPDATE`),
    // A field whose flag ($2, $4) is false stays as it is; the name taken by another role of the
    // project leaves the row as it was (nothing back, `taken` says why).
    update: named(
      'update',
      `UPDATE ${roles} AS r SET
         name = CASE WHEN $2::boolean THEN $3::text ELSE r.name END,
         permissions = CASE WHEN $4::boolean THEN $5::text[] ELSE r.permissions END,
         updated_at = $6::timestamptz
       WHERE r.id = $1
         AND NOT EXISTS (SELECT 1 FROM ${roles} AS o WHERE $2::boolean AND o.project_id = r.project_id
           AND o.name = $3::text AND o.id <> r.id)
       RETURNING ${roleColumns}, ${holders} AS holders`,
    ),
    countKeys: named(
      'count_keys',
      `SELECT (SELECT count(*)::int FROM ${keys} WHERE role_ids @> ARRAY[$1::uuid]) AS keys,
         (SELECT count(*)::int FROM (${holdingIdentities('$1::uuid')}) AS i) AS identities`,
    ),
    // The role taken from every key that holds it; a key left with none holds NULL.
    detachAll: named(
      'detach_all',
      `UPDATE ${keys} AS k SET role_ids = nullif(array_remove(k.role_ids, $1::uuid), '{}')
       WHERE k.role_ids @> ARRAY[$1::uuid]
       RETURNING ${keyColumns}`,
    ),
    // The role taken from every identity that holds it, as from the keys; their keys come back.
    detachIdentities: named(
      'detach_identities',
      `UPDATE ${identities} AS i SET role_ids = nullif(array_remove(i.role_ids, $1::uuid), '{}')
       WHERE i.role_ids @> ARRAY[$1::uuid]
       RETURNING ${qualified(IDENTITY_COLUMNS, 'i')}, ${identityMembers(keys)} AS members`,
    ),
    delete: named('delete', `DELETE FROM ${roles} WHERE id = $1`),
    listPage: pageStatements(named, 'roles', roles, ROLE_COLUMNS, 'project_id = $1'),
  }
  cache.set(schema, statements)
  return statements
}
