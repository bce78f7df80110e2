// The test harness of the MySQL store: a store on fresh tables of its own, dropped when it closes.
import type { KeyChangeFeed } from '@keyward/core'
import { mysqlDialect, SqlKeyStore } from '@keyward/sql'
import mysql from 'mysql2/promise'
import { mysqlDatabase } from '../database.js'
import { mysqlChangeFeed } from '../feed.js'
import { createMysqlKeyStore } from '../index.js'

/** The server of the tests, when named: skipped (and said so) without; a named server that is down fails. */
export const MYSQL_URL = process.env.KEYWARD_MYSQL_URL

let stores = 0

// The tables a store that failed to open left behind.
async function dropTables(prefix: string) {
  const connection = await mysql.createConnection(MYSQL_URL as string)
  try {
    const [rows] = await connection.query('SHOW TABLES LIKE ?', [`${prefix.replaceAll('_', '\\_')}%`])
    for (const row of rows as Record<string, string>[])
      await connection.query(`DROP TABLE ${Object.values(row)[0]}`)
  } finally {
    await connection.end()
  }
}

/**
 * A store on fresh tables of its own (a unique prefix), dropped when it closes. With `feed`, its
 * `changes` is a change feed that polls the change log and takes no publication of the store's
 * own: what it reports, it read from the log (as another process would).
 */
export async function mysqlHarness(options: { feed?: boolean } = {}) {
  const tablePrefix = `kwt_${process.pid}_${Date.now().toString(36)}_${stores++}_`
  const opened = await createMysqlKeyStore(
    { connectionString: MYSQL_URL as string },
    { tablePrefix, queryTimeoutMs: 120_000 },
  ).catch(async (error: unknown) => {
    await dropTables(tablePrefix)
    throw error
  })
  let store = opened
  if (options.feed) {
    const feed = mysqlChangeFeed(
      { connectionString: MYSQL_URL as string },
      // A wide bound: a cache that refuses a key here heard why, not a late poll on a loaded machine.
      { tablePrefix, pollIntervalMs: 20, freshnessBoundMs: 10_000, queryTimeoutMs: 30_000 },
    )
    await feed.start()
    const heard: KeyChangeFeed & { close(): Promise<void> } = {
      get connected() {
        return feed.connected
      },
      subscribe: (listener) => feed.subscribe(listener),
      close: () => feed.close(),
    }
    const db = mysqlDatabase(mysql.createPool(MYSQL_URL as string), {
      ownsPool: true,
      queryTimeoutMs: 120_000,
    })
    await opened.close()
    store = new SqlKeyStore(db, mysqlDialect, { tablePrefix, changes: heard })
  }
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
