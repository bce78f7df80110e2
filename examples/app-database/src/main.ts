// src/main.ts: a project of the application's and its first API key, in one transaction.
import { createKeyward, displayKey, isKeywardError } from '@keyward/core'
import { migrate, PostgresKeyStore } from '@keyward/postgres'
import { drizzleDriver } from '@keyward/postgres/drizzle'
import { sql, TransactionRollbackError } from 'drizzle-orm'
import { drizzle } from 'drizzle-orm/node-postgres'
import { pgTable, text } from 'drizzle-orm/pg-core'
import pg from 'pg'

// The application's table, beside Keyward's (in the schema `keyward`, or KEYWARD_PG_SCHEMA).
const projects = pgTable('app_projects', { id: text('id').primaryKey(), name: text('name').notNull() })
const schema = process.env.KEYWARD_PG_SCHEMA ?? 'keyward'

const pool = new pg.Pool({
  connectionString: process.env.DATABASE_URL ?? 'postgres://127.0.0.1:5432/postgres',
})
const db = drizzle(pool)
await migrate(drizzleDriver(db), { schema })
await db.execute(sql`CREATE TABLE IF NOT EXISTS app_projects (id text PRIMARY KEY, name text NOT NULL)`)

// Verifies keys outside any transaction, as the application's routes do.
const keyward = createKeyward({ store: new PostgresKeyStore(drizzleDriver(db), { schema }) })

/** Creates a project and its first API key: both commit, or neither does. */
async function createProject(name: string, fail = false) {
  const id = `proj_${crypto.randomUUID()}`
  let key = ''
  const created = db.transaction(async (tx) => {
    await tx.insert(projects).values({ id, name })
    const inTransaction = createKeyward({ store: new PostgresKeyStore(drizzleDriver(tx), { schema }) })
    key = (await inTransaction.issueProjectKey(id, { name: 'default' })).key
    if (fail) tx.rollback()
  })
  const committed = await created.then(
    () => true,
    (error: unknown) => (error instanceof TransactionRollbackError ? false : Promise.reject(error)),
  )
  return { id, key, committed }
}

const verifies = (project: { id: string; key: string }) =>
  keyward.authenticate({ projectKey: project.key }, { scope: 'project', projectId: project.id }).then(
    () => 'verifies',
    (error: unknown) => (isKeywardError(error) ? `is refused (${error.type})` : Promise.reject(error)),
  )

const report = async (project: Awaited<ReturnType<typeof createProject>>) =>
  console.log(
    `${project.committed ? 'Committed' : 'Rolled back'}: project ${project.id}, ` +
      `key ${displayKey(project.key)} ${await verifies(project)}`,
  )

const kept = await createProject('Demo')
await report(kept)
await report(await createProject('Abandoned', true))
await pool.end()
