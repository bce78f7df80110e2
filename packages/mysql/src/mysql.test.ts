import { runStoreConformance } from '@keyward/testkit'
import { describe } from 'vitest'
import { createMysqlKeyStore } from './index.js'

/** The server of the tests, when named: skipped (and said so) without; a named server that is down fails. */
export const MYSQL_URL = process.env.KEYWARD_MYSQL_URL

let stores = 0

/** A store on fresh tables of its own (a unique prefix), dropped when it closes. */
export async function mysqlHarness() {
  const tablePrefix = `kwt_${process.pid}_${Date.now().toString(36)}_${stores++}_`
  const store = await createMysqlKeyStore(
    { connectionString: MYSQL_URL as string },
    { tablePrefix, queryTimeoutMs: 120_000 },
  )
  return {
    store,
    readRaw: () => store.query(`SELECT * FROM ${store.tables.keys}`),
    readRawAudit: () => store.query(`SELECT * FROM ${store.tables.auditLog}`),
    close: async () => {
      for (const table of Object.values(store.tables)) await store.query(`DROP TABLE IF EXISTS ${table}`)
      await store.close()
    },
  }
}

describe.skipIf(!MYSQL_URL)('on MariaDB or MySQL (set KEYWARD_MYSQL_URL to run)', () => {
  runStoreConformance({ name: 'SqlKeyStore on MySQL (pool)', makeStore: mysqlHarness })
})
