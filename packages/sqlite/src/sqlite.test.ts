import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { runStoreConformance } from '@keyward/testkit'
import { afterAll } from 'vitest'
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
