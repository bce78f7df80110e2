// `keyward doctor --sqlite PATH` and `--mysql-url URL`: the tables of @keyward/sqlite and
// @keyward/mysql against what their migrations create.
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { mysqlDatabase } from '@keyward/mysql'
import { migrateSql, mysqlDialect, SQL_SCHEMA_VERSION, sqliteDialect } from '@keyward/sql'
import { sqliteDatabase } from '@keyward/sqlite'
import Database from 'better-sqlite3'
import mysql from 'mysql2/promise'
import { afterAll, describe, expect, it } from 'vitest'
import { harness } from '../test/harness.js'

const MYSQL_URL = process.env.KEYWARD_MYSQL_URL
const V = SQL_SCHEMA_VERSION

describe('keyward doctor --sqlite', () => {
  const dir = mkdtempSync(join(tmpdir(), 'keyward-doctor-'))
  afterAll(() => rmSync(dir, { recursive: true, force: true }))

  it('exits 0 on tables made by the statements `keyward schema sql --dialect sqlite` prints', async () => {
    const printed = await harness().run('schema', 'sql', '--dialect', 'sqlite', '--table-prefix', 'app_')
    expect(printed.code).toBe(0)
    const path = join(dir, 'printed.db')
    const client = new Database(path)
    client.exec(printed.stdout)
    client.close()
    const healthy = await harness().run('doctor', '--sqlite', path, '--table-prefix', 'app_')
    expect(healthy.stderr).toBe('')
    expect(healthy.stdout).toContain(
      `(version ${V}) are what the migrations of version ${V} create: no drift.`,
    )
    expect(healthy.code).toBe(0)
  })

  it('exits 0 on tables as the migrations make them, 1 naming a dropped column, a dropped index and the version', async () => {
    const path = join(dir, 'keys.db')
    const client = new Database(path)
    const db = sqliteDatabase(client)
    await migrateSql(db, sqliteDialect, { tablePrefix: 'auth_' })
    const healthy = await harness().run('doctor', '--sqlite', path, '--table-prefix', 'auth_')
    expect(healthy).toMatchObject({ code: 0, stderr: '' })
    expect(healthy.stdout).toBe(
      `Tables auth_* (version ${V}) are what the migrations of version ${V} create: no drift.\n`,
    )
    client.exec('ALTER TABLE auth_api_keys DROP COLUMN pepper_id')
    client.exec('DROP INDEX auth_roles_name_key')
    client.exec(`DELETE FROM auth_migrations WHERE version = ${V}`)
    const drifted = await harness().run('doctor', '--sqlite', path, '--table-prefix', 'auth_')
    expect(drifted.code).toBe(1)
    expect(drifted.stdout.trimEnd().split('\n')).toEqual([
      `Tables auth_* (version ${V - 1}; expected ${V}): 3 drifts.`,
      '  Column auth_api_keys.pepper_id is missing.',
      '  Index auth_roles_name_key on auth_roles UNIQUE (project_id, name) is missing.',
      `  auth_migrations records version ${V - 1}, expected ${V}.`,
    ])
    await db.close?.()
  })

  it('exits 2 on a usage error, 3 on a file that is not there (it creates none)', async () => {
    const both = await harness().run('doctor', '--sqlite', 'a.db', '--mysql-url', 'mysql://x')
    expect(both.code).toBe(2)
    const missing = await harness().run('doctor', '--sqlite', join(dir, 'none.db'))
    expect(missing.code).toBe(3)
    expect(missing.stderr).toMatch(/^keyward: The database is unavailable: /)
  })
})

describe.skipIf(!MYSQL_URL)('keyward doctor --mysql-url (set KEYWARD_MYSQL_URL to run)', () => {
  const database = `kw_doctor_${process.pid}_${Date.now().toString(36)}`
  afterAll(async () => {
    const admin = await mysql.createConnection(MYSQL_URL as string)
    await admin.query(`DROP DATABASE IF EXISTS ${database}`)
    await admin.query(`DROP DATABASE IF EXISTS ${database}_printed`)
    await admin.end()
  })

  it('exits 0 on tables made by the statements `keyward schema sql --dialect mysql` prints', async () => {
    const printed = await harness().run('schema', 'sql', '--dialect', 'mysql')
    expect(printed.code).toBe(0)
    const admin = await mysql.createConnection({ uri: MYSQL_URL as string, multipleStatements: true })
    try {
      await admin.query(`CREATE DATABASE ${database}_printed`)
      await admin.query(`USE ${database}_printed`)
      await admin.query(printed.stdout)
    } finally {
      await admin.end()
    }
    const address = new URL(MYSQL_URL as string)
    address.pathname = `/${database}_printed`
    const healthy = await harness().run('doctor', '--mysql-url', address.toString())
    expect(healthy).toMatchObject({ code: 0, stderr: '' })
    expect(healthy.stdout).toContain(
      `(version ${V}) are what the migrations of version ${V} create: no drift.`,
    )
  })

  it('exits 0 on tables as the migrations make them, 1 naming a column of another type, engine or collation', async () => {
    const admin = await mysql.createConnection(MYSQL_URL as string)
    await admin.query(`CREATE DATABASE ${database}`)
    await admin.end()
    const address = new URL(MYSQL_URL as string)
    address.pathname = `/${database}`
    const url = address.toString()
    const db = mysqlDatabase(mysql.createPool(url), { ownsPool: true })
    try {
      await migrateSql(db, mysqlDialect)
      const healthy = await harness().run('doctor', '--mysql-url', url)
      expect(healthy).toMatchObject({ code: 0, stderr: '' })
      expect(healthy.stdout).toBe(
        `Tables keyward_* (version ${V}) are what the migrations of version ${V} create: no drift.\n`,
      )
      await db.run('ALTER TABLE keyward_api_keys MODIFY name VARCHAR(10)')
      // Rows locked by no transaction, and a key prefix that compares without its case.
      await db.run('ALTER TABLE keyward_migrations ENGINE=MyISAM')
      await db.run(
        'ALTER TABLE keyward_api_keys MODIFY key_prefix VARCHAR(255) NOT NULL COLLATE utf8mb4_general_ci',
      )
      const drifted = await harness().run('doctor', '--mysql-url', url, '--json')
      expect(drifted.code).toBe(1)
      const report = JSON.parse(drifted.stdout) as {
        version: number
        drift: { object: string; message: string }[]
      }
      expect(report.version).toBe(V)
      expect(
        report.drift
          .map(({ object, message }) => ({ object, message }))
          .sort((a, b) => a.object.localeCompare(b.object)),
      ).toEqual([
        {
          object: 'keyward_api_keys.key_prefix',
          message: 'Column keyward_api_keys.key_prefix collates utf8mb4_general_ci, expected utf8mb4_bin.',
        },
        {
          object: 'keyward_api_keys.name',
          message: 'Column keyward_api_keys.name is varchar(10), expected mediumtext.',
        },
        {
          object: 'keyward_migrations',
          message:
            'Table keyward_migrations is ENGINE=MyISAM COLLATE=utf8mb4_bin, expected ENGINE=InnoDB COLLATE=utf8mb4_bin.',
        },
      ])
    } finally {
      await db.close?.()
    }
  })
})
