import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { runStoreConformance } from '@keyward/testkit'
import { afterAll, describe, expect, it } from 'vitest'
import { createSqliteKeyStore } from './index.js'

const dir = mkdtempSync(join(tmpdir(), 'keyward-sqlite-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))
let files = 0

runStoreConformance({
  name: 'SqlKeyStore on SQLite (a file, WAL)',
  makeStore: async () => {
    const store = await createSqliteKeyStore({ path: join(dir, `store-${files++}.db`) })
    return {
      store,
      readRaw: () => store.query(`SELECT * FROM ${store.tables.keys}`),
      readRawAudit: () => store.query(`SELECT * FROM ${store.tables.auditLog}`),
      close: () => store.close(),
    }
  },
})

describe('store.query', () => {
  it('runs a statement that returns no rows and gives none, as on MySQL', async () => {
    const store = await createSqliteKeyStore({ path: join(dir, 'query.db') })
    try {
      expect(await store.query('CREATE TABLE projects (id TEXT PRIMARY KEY, name TEXT NOT NULL)')).toEqual([])
      expect(await store.query('INSERT INTO projects (id, name) VALUES (?, ?)', ['p1', 'One'])).toEqual([])
      expect(await store.query('SELECT id, name FROM projects')).toEqual([{ id: 'p1', name: 'One' }])
      expect(await store.query('INSERT INTO projects VALUES (?, ?) RETURNING id', ['p2', 'Two'])).toEqual([
        { id: 'p2' },
      ])
    } finally {
      await store.close()
    }
  })
})
