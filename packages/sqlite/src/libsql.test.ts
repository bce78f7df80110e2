import { mkdtempSync, rmSync } from 'node:fs'
import { createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createKeyward } from '@keyward/core'
import { SqlOutcomeUnknownError } from '@keyward/sql'
import { runStoreConformance } from '@keyward/testkit'
import { createClient } from '@libsql/client'
import { afterAll, describe, expect, it } from 'vitest'
import { createLibsqlKeyStore, libsqlDatabase } from './libsql.js'

const dir = mkdtempSync(join(tmpdir(), 'keyward-libsql-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))
let files = 0
const fileClient = () => createClient({ url: `file:${join(dir, `store-${files++}.db`)}` })

runStoreConformance({
  name: 'SqlKeyStore on libSQL (@libsql/client, a file)',
  makeStore: async () => {
    const store = await createLibsqlKeyStore({ client: fileClient() })
    return {
      store,
      readRaw: () => store.query(`SELECT * FROM ${store.tables.keys}`),
      readRawAudit: () => store.query(`SELECT * FROM ${store.tables.auditLog}`),
      close: () => store.close(),
    }
  },
})

/** A port where nothing listens: taken, then let go. */
async function closedPort(): Promise<number> {
  const server = createServer()
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as { port: number }
  await new Promise((resolve) => server.close(resolve))
  return port
}

describe('createLibsqlKeyStore', () => {
  it('puts a local file in WAL mode, and runs your statements in a transaction with its writes', async () => {
    const store = await createLibsqlKeyStore({ client: fileClient() })
    try {
      expect(await store.query('PRAGMA journal_mode')).toEqual([{ journal_mode: 'wal' }])
      await store.query('CREATE TABLE projects (id TEXT PRIMARY KEY, name TEXT NOT NULL)')
      const keyward = createKeyward({ store })
      await expect(
        store.transaction(async (tx) => {
          await tx.run('INSERT INTO projects (id, name) VALUES (?, ?)', ['p1', 'One'])
          await createKeyward({ store: tx.store }).issueProjectKey('p1')
          throw new Error('changed my mind')
        }),
      ).rejects.toThrow('changed my mind')
      expect(await store.query('SELECT id FROM projects')).toEqual([])
      expect(await keyward.listKeys({ type: 'project', id: 'p1' })).toEqual([])
      const { key } = await store.transaction(async (tx) => {
        await tx.run('INSERT INTO projects (id, name) VALUES (?, ?)', ['p1', 'One'])
        return createKeyward({ store: tx.store }).issueProjectKey('p1')
      })
      expect(await store.query('SELECT id, name FROM projects')).toEqual([{ id: 'p1', name: 'One' }])
      expect(
        (await keyward.authenticate({ projectKey: key }, { scope: 'project', projectId: 'p1' })).projectId,
      ).toBe('p1')
    } finally {
      await store.close()
    }
  })

  it('has no change feed, so a verification cache is refused on it', async () => {
    const store = await createLibsqlKeyStore({ client: fileClient() })
    try {
      expect(store.changes).toBeUndefined()
      expect(() => createKeyward({ store, cache: {} })).toThrow(/needs a store with a change feed/)
    } finally {
      await store.close()
    }
  })

  it('refuses what is not a libSQL client', async () => {
    await expect(createLibsqlKeyStore({ client: {} as never })).rejects.toThrow(
      'libsqlDatabase: expected a client of @libsql/client (createClient).',
    )
  })
})

describe('libsqlDatabase on a remote database that cannot be reached', () => {
  it('reports a write outside a transaction, and a transaction, as of unknown outcome; a read fails as it is', async () => {
    const client = createClient({ url: `http://127.0.0.1:${await closedPort()}` })
    const db = libsqlDatabase(client)
    try {
      await expect(db.run('INSERT INTO t (id) VALUES (?)', ['a'])).rejects.toBeInstanceOf(
        SqlOutcomeUnknownError,
      )
      await expect(db.query('SELECT 1')).rejects.not.toBeInstanceOf(SqlOutcomeUnknownError)
      await expect(db.query('SELECT 1')).rejects.toThrow()
      await expect(db.transaction((tx) => tx.run('INSERT INTO t (id) VALUES (?)', ['a']))).rejects.toThrow()
    } finally {
      await db.close?.()
    }
  })
})
