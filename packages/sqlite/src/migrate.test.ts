import { migrateSql, SQL_SCHEMA_VERSION, sqliteDialect } from '@keyward/sql'
import Database from 'better-sqlite3'
import { expect, it } from 'vitest'
import { sqliteDatabase } from './database.js'

it('brings a database of version 1 to version 2 (api_keys.pepper_id), and passes over a column already there', async () => {
  const raw = new Database(':memory:')
  try {
    const db = sqliteDatabase(raw)
    expect(await migrateSql(db, sqliteDialect)).toEqual([1, 2, 3, 4, 5, 6])
    expect(SQL_SCHEMA_VERSION).toBe(6)
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

it('brings a database of version 2 to version 3 (the table roles, api_keys.role_ids), and completes one cut short', async () => {
  const raw = new Database(':memory:')
  try {
    const db = sqliteDatabase(raw)
    await migrateSql(db, sqliteDialect)
    const columns = () => raw.prepare("SELECT name FROM pragma_table_info('keyward_api_keys')").pluck().all()
    const tables = () =>
      raw
        .prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name = 'keyward_roles'")
        .pluck()
        .all()
    // Version 2: no roles, no role_ids, no record of version 3.
    raw.exec('DROP TABLE keyward_roles')
    raw.exec('ALTER TABLE keyward_api_keys DROP COLUMN role_ids')
    raw.exec('DELETE FROM keyward_migrations WHERE version = 3')
    expect(await migrateSql(db, sqliteDialect)).toEqual([3])
    expect(columns()).toContain('role_ids')
    expect(tables()).toEqual(['keyward_roles'])
    // Cut short after the column was added: run again, it completes.
    raw.exec('DELETE FROM keyward_migrations WHERE version = 3')
    expect(await migrateSql(db, sqliteDialect)).toEqual([3])
    expect(await migrateSql(db, sqliteDialect)).toEqual([])
  } finally {
    raw.close()
  }
})

it('brings a database of version 4 to version 5 (identities.role_ids), and completes one cut short', async () => {
  const raw = new Database(':memory:')
  try {
    const db = sqliteDatabase(raw)
    await migrateSql(db, sqliteDialect)
    const columns = () =>
      raw.prepare("SELECT name FROM pragma_table_info('keyward_identities')").pluck().all()
    raw.exec('ALTER TABLE keyward_identities DROP COLUMN role_ids')
    raw.exec('DELETE FROM keyward_migrations WHERE version = 5')
    expect(columns()).not.toContain('role_ids')
    expect(await migrateSql(db, sqliteDialect)).toEqual([5])
    expect(columns()).toContain('role_ids')
    // Cut short after the column was added: run again, it completes.
    raw.exec('DELETE FROM keyward_migrations WHERE version = 5')
    expect(await migrateSql(db, sqliteDialect)).toEqual([5])
    expect(await migrateSql(db, sqliteDialect)).toEqual([])
  } finally {
    raw.close()
  }
})

it("brings a database of version 5 to version 6 (the low-credits threshold), keeping the keys' rows", async () => {
  const raw = new Database(':memory:')
  try {
    const db = sqliteDatabase(raw)
    await migrateSql(db, sqliteDialect)
    const columns = (table: string) =>
      raw.prepare(`SELECT name FROM pragma_table_info('${table}')`).pluck().all()
    raw.exec('ALTER TABLE keyward_api_keys DROP COLUMN credits_low_at')
    raw.exec('ALTER TABLE keyward_identities DROP COLUMN credits_low_at')
    raw.exec('DELETE FROM keyward_migrations WHERE version = 6')
    expect(columns('keyward_api_keys')).not.toContain('credits_low_at')
    expect(await migrateSql(db, sqliteDialect)).toEqual([6])
    expect(columns('keyward_api_keys')).toContain('credits_low_at')
    expect(columns('keyward_identities')).toContain('credits_low_at')
    expect(await migrateSql(db, sqliteDialect)).toEqual([])
  } finally {
    raw.close()
  }
})
