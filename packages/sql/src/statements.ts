// The shared statements of the key store, in SQL that SQLite, MySQL 8 and MariaDB 10.11 all run,
// with `?` parameters. A dialect adds only its locking read's tail and its insert-or-skip.
import type { KeyKind } from '@keyward/core'
import { placeholders, type SqlDialect } from './dialect.js'
import { INSERTED_COLUMNS, KEY_COLUMNS } from './key-rows.js'
import { pageStatements } from './pages.js'
import type { SqlTables } from './schema.js'

/** The column that holds each kind of owner: the specification's `developer_id` and `project_id`. */
export const OWNER_COLUMN: Readonly<Record<KeyKind, string>> = {
  developer: 'developer_id',
  project: 'project_id',
}

/** @internal The statements of the store, for one dialect and one set of tables. */
export function keyStatements(dialect: SqlDialect, tables: SqlTables) {
  const keys = tables.keys
  const lock = dialect.forUpdate
  const byKind = <T = string>(make: (column: string) => T): Readonly<Record<KeyKind, T>> => ({
    developer: make(OWNER_COLUMN.developer),
    project: make(OWNER_COLUMN.project),
  })
  return {
    insert: `INSERT INTO ${keys} (${INSERTED_COLUMNS}) VALUES (${INSERTED_COLUMNS.split(',')
      .map(() => '?')
      .join(', ')})`,
    findByHash: `SELECT ${KEY_COLUMNS} FROM ${keys} WHERE hash = ?`,
    findById: `SELECT ${KEY_COLUMNS} FROM ${keys} WHERE id = ?`,
    lockById: `SELECT ${KEY_COLUMNS} FROM ${keys} WHERE id = ?${lock}`,
    listByOwner: byKind(
      (column) => `SELECT ${KEY_COLUMNS} FROM ${keys} WHERE ${column} = ? ORDER BY created_at, id`,
    ),
    // Newest first, one range of the index on (owner, created_at, id).
    page: byKind((column) => pageStatements(KEY_COLUMNS, keys, column)),
    // What counts against the limit at `now` (`countsAgainstLimit` of core).
    countActive: byKind(
      (column) =>
        `SELECT COUNT(*) AS n FROM ${keys}
         WHERE ${column} = ? AND active = 1 AND replaced_by IS NULL AND (expires_at IS NULL OR expires_at > ?)`,
    ),
    listOwners: byKind(
      (column) =>
        `SELECT ${column} AS id, COUNT(*) AS key_count, SUM(active) AS active_count,
           MIN(created_at) AS first_created_at, MAX(created_at) AS last_created_at
         FROM ${keys} WHERE ${column} IS NOT NULL GROUP BY ${column} ORDER BY MIN(created_at), ${column}`,
    ),
    ensureOwner: `${dialect.insertIgnore} INTO ${tables.owners} (owner_type, owner_id) VALUES (?, ?)`,
    lockOwner: `SELECT closed_at FROM ${tables.owners} WHERE owner_type = ? AND owner_id = ?${lock}`,
    closeOwner: `UPDATE ${tables.owners} SET closed_at = ? WHERE owner_type = ? AND owner_id = ? AND closed_at IS NULL`,
    activeOfOwner: byKind(
      (column) => `SELECT ${KEY_COLUMNS} FROM ${keys} WHERE ${column} = ? AND active = 1${lock}`,
    ),
    deactivate: `UPDATE ${keys} SET active = 0, revoked_reason = ? WHERE id = ? AND active = 1`,
    activate: `UPDATE ${keys} SET active = 1, revoked_reason = NULL WHERE id = ? AND active = 0`,
    setExpiry: `UPDATE ${keys} SET expires_at = ? WHERE id = ?`,
    // A key's policies: a field whose flag is 0 stays as it is.
    setPolicies: `UPDATE ${keys} SET
       ip_allowlist = CASE WHEN ? = 1 THEN ? ELSE ip_allowlist END,
       permissions = CASE WHEN ? = 1 THEN ? ELSE permissions END,
       metadata = CASE WHEN ? = 1 THEN ? ELSE metadata END,
       ratelimits = CASE WHEN ? = 1 THEN ? ELSE ratelimits END,
       role_ids = CASE WHEN ? = 1 THEN ? ELSE role_ids END,
       credits_low_at = CASE WHEN ? = 1 THEN ? ELSE credits_low_at END
     WHERE id = ?`,
    markReplaced: `UPDATE ${keys} SET replaced_by = ?, expires_at = ? WHERE id = ?`,
    recordUse: `UPDATE ${keys} SET last_used_at = ?
      WHERE id = ? AND active = 1 AND (last_used_at IS NULL OR last_used_at < ?)`,
    writeCredits: `UPDATE ${keys} SET remaining = ?, refill_amount = ?, refill_interval = ?, refill_day = ?, refilled_at = ?,
      credits_low_at = ? WHERE id = ?`,
    returnCredits: `UPDATE ${keys} SET remaining = remaining + ? WHERE id = ? AND remaining IS NOT NULL`,
    // The credits of the ids in `list`, in the order of their ids: the locking reads of two
    // batches take the rows in one order, and never wait on each other in a cycle.
    lockCredits: (list: string) =>
      `SELECT id, remaining, refill_amount, refill_interval, refill_day, refilled_at FROM ${keys}
       WHERE id IN (${list}) ORDER BY id${lock}`,
    // The balances and refill times of `count` keys in one statement: parameters (id, remaining)
    // per key, then (id, refilled_at) per key, then the ids.
    writeLeases: (count: number) => {
      const cases = 'WHEN ? THEN ? '.repeat(count)
      return `UPDATE ${keys} SET remaining = CASE id ${cases}END, refilled_at = CASE id ${cases}END
       WHERE id IN (${placeholders(count)})`
    },
  }
}

/** @internal The statements of {@link keyStatements}. */
export type KeyStatements = ReturnType<typeof keyStatements>
