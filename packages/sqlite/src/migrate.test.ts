import { migrateSql, SQL_SCHEMA_VERSION, sqliteDialect } from '@keyward/sql'
import Database from 'better-sqlite3'
import { expect, it } from 'vitest'
import { sqliteDatabase } from './database.js'

it('brings a database of version 1 to version 2 (api_keys.pepper_id), and passes over a column already there', async () => {
  const raw = new Database(':memory:')
  try {
    const db = sqliteDatabase(raw)
    expect(await migrateSql(db, sqliteDialect)).toEqual([1, 2])
    expect(SQL_SCHEMA_VERSION).toBe(2)
    const columns = () => raw.prepare("SELECT name FROM pragma_table_info('keyward_api_keys')").pluck().all()
    // Version 1, as the first release wrote it: no pepper_id, no record of version 2.
    raw.exec('ALTER TABLE keyward_api_keys DROP COLUMN pepper_id')
    raw.exec('DELETE FROM keyward_migrations WHERE version = 2')
    expect(columns()).not.toContain('pepper_id')
    expect(await migrateSql(db, sqliteDialect)).toEqual([2])
    expect(columns()).toContain('pepper_id')
    // Cut short after the column was added, before version 2 was recorded: run again, it completes.
    raw.exec('DELETE FROM keyward_migrations WHERE version = 2')
    expect(await migrateSql(db, sqliteDialect)).toEqual([2])
    expect(await migrateSql(db, sqliteDialect)).toEqual([])
  } finally {
    raw.close()
  }
})
