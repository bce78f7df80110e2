// The store on the application's Drizzle (better-sqlite3) and Kysely (SqliteDialect) in a SQLite file.
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { sqliteDialect } from '@keyward/sql'
import Database from 'better-sqlite3'
import { drizzle } from 'drizzle-orm/better-sqlite3'
import { sqliteTable, text } from 'drizzle-orm/sqlite-core'
import { Kysely, SqliteDialect } from 'kysely'
import { afterAll, describe } from 'vitest'
import { describeAppClients } from '../../sql/src/test/app-clients.js'
import { drizzleDatabase, drizzleTransaction } from './drizzle.js'
import { kyselyDatabase } from './kysely.js'

const tablePrefix = 'kwapp_'
const projects = sqliteTable(`${tablePrefix}projects`, {
  id: text('id').primaryKey(),
  name: text('name').notNull(),
})

describe("the store on the application's client, in a SQLite file", () => {
  const dir = mkdtempSync(join(tmpdir(), 'keyward-sqlite-app-'))
  let files = 0
  // A file of its own for each client, in WAL mode as the store opens it.
  const connection = () => {
    const client = new Database(join(dir, `app-${files++}.db`))
    client.pragma('journal_mode = WAL')
    return client
  }
  afterAll(() => rmSync(dir, { recursive: true, force: true }))

  describeAppClients({
    dialect: sqliteDialect,
    tablePrefix,
    clients: {
      'Drizzle on better-sqlite3 (drizzleTransaction)': async () => {
        const client = connection()
        const db = drizzle(client)
        return {
          db: drizzleDatabase(db),
          inTransaction: (body) =>
            drizzleTransaction(db, (tx) =>
              body(drizzleDatabase(tx), async (id) => tx.insert(projects).values({ id, name: 'Demo' }).run()),
            ),
          close: async () => {
            client.close()
          },
        }
      },
      'Kysely with SqliteDialect': async () => {
        // biome-ignore lint/suspicious/noExplicitAny: the application's database type is not Keyward's
        const db = new Kysely<any>({ dialect: new SqliteDialect({ database: connection() }) })
        return {
          db: kyselyDatabase(db),
          inTransaction: (body) =>
            db
              .transaction()
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
})
