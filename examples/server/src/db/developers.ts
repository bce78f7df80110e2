import type { Keyward } from '@keyward/core'
import { dialectOf, type ServerStore, type ServerTransaction, type Sql, sqlOf, transaction } from './sql.js'

/** The developer registered on first start, with the only copy of their key. */
export interface FirstDeveloper {
  readonly developerId: string
  readonly key: string
}

// The row that processes starting together on MySQL lock in turn (it has no table lock that
// lives within a transaction). Not a secret: its value is empty.
const REGISTRATION = 'first_start'

/**
 * Takes the lock that processes registering on one database wait for, until the transaction
 * ends: a table lock on PostgreSQL, a settings row's on MySQL (made beforehand, outside the
 * transaction, so that two first inserts do not deadlock). SQLite's transaction holds the
 * database already.
 */
async function lockRegistration(store: ServerStore, tx: Sql): Promise<void> {
  const { name, table } = dialectOf(store)
  if (name === 'postgres') await tx.execute(`LOCK TABLE ${table('developers')} IN SHARE ROW EXCLUSIVE MODE`)
  if (name !== 'mysql') return
  await tx.query(`SELECT name FROM ${table('settings')} WHERE name = ? FOR UPDATE`, [REGISTRATION])
}

/**
 * On empty storage (no developer in the server's table, no developer key in Keyward's),
 * registers one developer and issues their key, in one transaction; otherwise `null`.
 * Processes starting together on one database take turns on a lock: one registers.
 */
export async function registerFirstDeveloper(
  store: ServerStore,
  keywardOver: (tx: ServerTransaction) => Keyward,
): Promise<FirstDeveloper | null> {
  const dialect = dialectOf(store)
  if (dialect.name === 'mysql') {
    await sqlOf(store).run(
      `INSERT INTO ${dialect.table('settings')} (name, value) VALUES (?, '') ON DUPLICATE KEY UPDATE name = name`,
      [REGISTRATION],
    )
  }
  return transaction(store, async (tx) => {
    await lockRegistration(store, tx)
    const developers = await tx.query(`SELECT 1 AS found FROM ${dialect.table('developers')} LIMIT 1`)
    const keys = await tx.query(
      `SELECT 1 AS found FROM ${dialect.keysTable} WHERE developer_id IS NOT NULL LIMIT 1`,
    )
    if (developers.length > 0 || keys.length > 0) return null
    const developerId = `dev_${crypto.randomUUID().slice(0, 8)}`
    await tx.run(`INSERT INTO ${dialect.table('developers')} (id, created_at) VALUES (?, ?)`, [
      developerId,
      dialect.timeParam(new Date()),
    ])
    // The audit log records the registration and the key, by the system, in this transaction.
    const { key } = await keywardOver(tx).registerDeveloper(developerId, { name: 'first start' })
    return { developerId, key }
  })
}
