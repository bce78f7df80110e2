// The change log of a SQL key store: what each write published, written in the write's own
// transaction, for the change feeds of other processes (MySQL has no LISTEN/NOTIFY). The ids come
// from a one-row counter that the transaction updates, so its row lock orders the writers.
import type { SqlExecutor } from './dialect.js'
import type { SqlTables } from './schema.js'
import type { KeyChange } from './store-base.js'

/** Rows per insert: 4 parameters each, well under every dialect's limit of parameters. */
const ROWS_PER_INSERT = 200

/**
 * @internal Appends `changes` to the change log in the caller's transaction, just before it
 * commits: the counter's row is updated first (its lock is held until the commit or rollback),
 * then read back, and the rows take the ids after the counter's previous value. A writer that
 * comes next waits for the lock, so it takes its ids after this transaction has ended: ids are
 * dense (a rollback gives its ids back with the counter) and in commit order.
 */
export async function appendChanges(
  tx: SqlExecutor,
  tables: SqlTables,
  changes: readonly KeyChange[],
  now: number = Date.now(),
): Promise<void> {
  const unique = new Map<string, KeyChange>()
  for (const change of changes) unique.set(`${change.hash}\u0000${change.id ?? ''}`, change)
  const rows = [...unique.values()]
  if (rows.length === 0) return
  const { changeLog, changeCounter } = tables
  await tx.run(`UPDATE ${changeCounter} SET seq = seq + ? WHERE id = 1`, [rows.length])
  const [counter] = await tx.query<{ seq: number | string }>(`SELECT seq FROM ${changeCounter} WHERE id = 1`)
  if (!counter) throw new Error(`The change log's counter (${changeCounter}) has no row: run the migrations.`)
  let id = Number(counter.seq) - rows.length
  for (let i = 0; i < rows.length; i += ROWS_PER_INSERT) {
    const chunk = rows.slice(i, i + ROWS_PER_INSERT)
    const values = chunk.flatMap((change) => [++id, now, change.hash, change.id ?? null])
    await tx.run(
      `INSERT INTO ${changeLog} (id, at, hash, key_id) VALUES ${chunk.map(() => '(?, ?, ?, ?)').join(', ')}`,
      values,
    )
  }
}
