import type { Keyward } from '@keyward/core'
import type { PostgresKeyStore, PostgresTransaction } from '@keyward/postgres'
import { APP_SCHEMA } from './schema.js'

/** The developer registered on first start, with the only copy of their key. */
export interface FirstDeveloper {
  readonly developerId: string
  readonly key: string
}

/**
 * On empty storage (no developer in the server's table, no developer key in Keyward's),
 * registers one developer and issues their key, in one transaction; otherwise `null`.
 * Processes starting together on one database take turns on a table lock: one registers.
 */
export function registerFirstDeveloper(
  store: PostgresKeyStore,
  keywardOver: (tx: PostgresTransaction) => Keyward,
): Promise<FirstDeveloper | null> {
  return store.transaction(async (tx) => {
    await tx.query(`LOCK TABLE ${APP_SCHEMA}.developers IN SHARE ROW EXCLUSIVE MODE`)
    const [found] = await tx.query<{ registered: boolean }>(
      `SELECT EXISTS (SELECT 1 FROM ${APP_SCHEMA}.developers)
           OR EXISTS (SELECT 1 FROM "${store.schema}".api_keys WHERE developer_id IS NOT NULL) AS registered`,
    )
    if (found?.registered) return null
    const developerId = `dev_${crypto.randomUUID().slice(0, 8)}`
    await tx.query(`INSERT INTO ${APP_SCHEMA}.developers (id) VALUES ($1)`, [developerId])
    // The audit log records the registration and the key, by the system, in this transaction.
    const { key } = await keywardOver(tx).registerDeveloper(developerId, { name: 'first start' })
    return { developerId, key }
  })
}
