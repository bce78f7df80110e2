// The statements of an uncached verification on a SQLite file (better-sqlite3).
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { sqliteDialect } from '@keyward/sql'
import Database from 'better-sqlite3'
import { describe } from 'vitest'
import { describeVerificationStatements } from '../../sql/src/test/verification-statements.js'
import { sqliteDatabase } from './database.js'

describe('on SQLite', () => {
  describeVerificationStatements({
    dialect: sqliteDialect,
    tablePrefix: 'kwstmt_',
    open: async () => {
      const dir = mkdtempSync(join(tmpdir(), 'keyward-statements-'))
      const db = sqliteDatabase(new Database(join(dir, 'keys.db')))
      return {
        db,
        close: async () => {
          await db.close?.()
          rmSync(dir, { recursive: true, force: true })
        },
      }
    },
  })
})
