// The store on the application's own client (Drizzle, Kysely) on MySQL and SQLite: the
// application writes its row and a key in one transaction of its own; committed, both are there
// and the key verifies; rolled back, neither is, nor the key's audit row.
import { createKeyward } from '@keyward/core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { SqlDatabase, SqlDialect } from '../dialect.js'
import { migrateSql } from '../migrate.js'
import { SqlKeyStore } from '../store.js'

/** One client library as an application uses it. */
export interface AppClient {
  /** The store's database on the library's top-level handle: transactions of Keyward's own. */
  readonly db: SqlDatabase
  /**
   * Runs `body` in a transaction of the application's, with the library's own API: `insert`
   * writes a row of the application's, `db` joins the transaction.
   */
  inTransaction<T>(
    body: (db: SqlDatabase, insert: (id: string) => Promise<unknown>) => Promise<T>,
  ): Promise<T>
  close(): Promise<void>
}

class Abandoned extends Error {}

/**
 * Runs the commit and rollback cases of each client, on tables under `tablePrefix` that the
 * client's top-level handle migrates and reads (the application's `projects` among them).
 */
export function describeAppClients(given: {
  readonly dialect: SqlDialect
  readonly tablePrefix: string
  readonly clients: Record<string, () => Promise<AppClient>>
}) {
  const { dialect, tablePrefix } = given
  let admin: SqlKeyStore
  const rowsOf = async (projectId: string) => {
    const count = async (table: string) =>
      Number(
        (
          await admin.query<{ n: number }>(`SELECT COUNT(*) AS n FROM ${table} WHERE project_id = ?`, [
            projectId,
          ])
        )[0]?.n,
      )
    return {
      projects: Number(
        (
          await admin.query<{ n: number }>(`SELECT COUNT(*) AS n FROM ${tablePrefix}projects WHERE id = ?`, [
            projectId,
          ])
        )[0]?.n,
      ),
      keys: await count(admin.tables.keys),
      audit: await count(admin.tables.auditLog),
    }
  }
  const verify = (key: string, projectId: string) =>
    createKeyward({ store: admin })
      .authenticate({ projectKey: key }, { scope: 'project', projectId })
      .then(
        () => ({ ok: true as const }),
        (error: { type?: string }) => ({ ok: false as const, type: error.type }),
      )

  for (const [name, open] of Object.entries(given.clients)) {
    describe(name, () => {
      let client: AppClient
      beforeAll(async () => {
        client = await open()
        await migrateSql(client.db, dialect, { tablePrefix })
        await client.db.run(
          `CREATE TABLE IF NOT EXISTS ${tablePrefix}projects (id VARCHAR(64) NOT NULL PRIMARY KEY, name VARCHAR(64) NOT NULL)`,
        )
        admin = new SqlKeyStore(client.db, dialect, { tablePrefix })
      })
      afterAll(() => client?.close())

      it('commits the application row and the key together: the key verifies, its audit row is there', async () => {
        const projectId = `p-${crypto.randomUUID()}`
        const issued = await client.inTransaction(async (db, insert) => {
          await insert(projectId)
          const store = new SqlKeyStore(db, dialect, { tablePrefix })
          return createKeyward({ store }).issueProjectKey(projectId, { name: 'default' })
        })
        expect(await rowsOf(projectId)).toEqual({ projects: 1, keys: 1, audit: 1 })
        expect(await verify(issued.key, projectId)).toEqual({ ok: true })
      })

      it('opens transactions of its own on the top-level handle: a key issued there commits and verifies', async () => {
        const projectId = `p-${crypto.randomUUID()}`
        const issued = await createKeyward({ store: admin }).issueProjectKey(projectId, { name: 'own' })
        const deactivated = await createKeyward({ store: admin }).issueProjectKey(projectId, { name: 'gone' })
        await createKeyward({ store: admin }).deactivateKey(deactivated.record.id)
        expect(await rowsOf(projectId)).toMatchObject({ projects: 0, keys: 2 })
        expect(await verify(issued.key, projectId)).toEqual({ ok: true })
        expect(await verify(deactivated.key, projectId)).toMatchObject({ ok: false })
      })

      it('rolls back the key with the application row: no key, no audit row, the key does not verify', async () => {
        const projectId = `p-${crypto.randomUUID()}`
        let key: string | undefined
        await expect(
          client.inTransaction(async (db, insert) => {
            await insert(projectId)
            const keyward = createKeyward({ store: new SqlKeyStore(db, dialect, { tablePrefix }) })
            const issued = await keyward.issueProjectKey(projectId, { name: 'default' })
            key = issued.key
            // Inside the transaction the key is there.
            expect((await keyward.listKeys({ type: 'project', id: projectId })).map((r) => r.id)).toEqual([
              issued.record.id,
            ])
            throw new Abandoned('the application changed its mind')
          }),
        ).rejects.toThrow(Abandoned)
        expect(key).toMatch(/^ak_/)
        expect(await rowsOf(projectId)).toEqual({ projects: 0, keys: 0, audit: 0 })
        expect(await verify(key as string, projectId)).toEqual({ ok: false, type: 'key_invalid' })
      })
    })
  }
}
