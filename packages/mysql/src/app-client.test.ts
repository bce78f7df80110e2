// The store on the application's Drizzle (mysql2) and Kysely (MysqlDialect), in a database of
// the test's own, dropped after.
import { mysqlDialect } from '@keyward/sql'
import { mysqlTable, varchar } from 'drizzle-orm/mysql-core'
import { drizzle } from 'drizzle-orm/mysql2'
import { Kysely, MysqlDialect } from 'kysely'
import mysql from 'mysql2/promise'
import { afterAll, beforeAll, describe } from 'vitest'
import { describeAppClients } from '../../sql/src/test/app-clients.js'
import { drizzleDatabase } from './drizzle.js'
import { kyselyDatabase } from './kysely.js'
import { MYSQL_URL } from './test/harness.js'

const tablePrefix = 'kwapp_'
const projects = mysqlTable(`${tablePrefix}projects`, {
  id: varchar('id', { length: 64 }).primaryKey(),
  name: varchar('name', { length: 64 }).notNull(),
})
const database = `kw_app_${process.pid}_${Date.now().toString(36)}`

describe.skipIf(!MYSQL_URL)(
  "the store on the application's client, on MariaDB or MySQL (set KEYWARD_MYSQL_URL to run)",
  () => {
    const url = () => {
      const address = new URL(MYSQL_URL as string)
      address.pathname = `/${database}`
      return address.toString()
    }
    beforeAll(async () => {
      const admin = await mysql.createConnection(MYSQL_URL as string)
      await admin.query(`CREATE DATABASE ${database}`)
      await admin.end()
    })
    afterAll(async () => {
      const admin = await mysql.createConnection(MYSQL_URL as string)
      await admin.query(`DROP DATABASE IF EXISTS ${database}`)
      await admin.end()
    })

    describeAppClients({
      dialect: mysqlDialect,
      tablePrefix,
      clients: {
        'Drizzle on mysql2': async () => {
          const pool = mysql.createPool({ uri: url(), connectionLimit: 4 })
          const db = drizzle(pool)
          return {
            db: drizzleDatabase(db),
            inTransaction: (body) =>
              db.transaction(
                (tx) => body(drizzleDatabase(tx), (id) => tx.insert(projects).values({ id, name: 'Demo' })),
                { isolationLevel: 'read committed' },
              ),
            close: () => pool.end(),
          }
        },
        'Kysely with MysqlDialect': async () => {
          const pool = mysql.createPool({ uri: url(), connectionLimit: 4 })
          // biome-ignore lint/suspicious/noExplicitAny: the application's database type is not Keyward's
          const db = new Kysely<any>({ dialect: new MysqlDialect({ pool: pool.pool as never }) })
          return {
            db: kyselyDatabase(db),
            inTransaction: (body) =>
              db
                .transaction()
                .setIsolationLevel('read committed')
                .execute((trx) =>
                  body(kyselyDatabase(trx), (id) =>
                    trx.insertInto(`${tablePrefix}projects`).values({ id, name: 'Demo' }).execute(),
                  ),
                ),
            close: () => db.destroy(),
          }
        },
      },
    })
  },
)
