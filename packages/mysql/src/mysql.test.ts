import { createKeyward, ErrorType, KeyChangeHub } from '@keyward/core'
import { migrateSql, mysqlDialect, SqlKeyStore, SqlOutcomeUnknownError } from '@keyward/sql'
import { runStoreConformance } from '@keyward/testkit'
import mysql from 'mysql2/promise'
import { describe, expect, it } from 'vitest'
import { mysqlDatabase } from './database.js'
import { createMysqlKeyStore } from './index.js'
import { MYSQL_URL, mysqlHarness } from './test/harness.js'

describe.skipIf(!MYSQL_URL)('on MariaDB or MySQL (set KEYWARD_MYSQL_URL to run)', () => {
  runStoreConformance({
    name: 'SqlKeyStore on MySQL (pool, a change feed on the change log)',
    makeStore: () => mysqlHarness({ feed: true }),
  })
})

// A store's tables, a migration of them through a pool of its own, and a count of a column of its keys.
async function withMigrations(
  test: (given: {
    store: SqlKeyStore
    migrate: () => Promise<number[]>
    keyColumn: (name: string) => Promise<number>
  }) => Promise<void>,
) {
  const { store, close } = await mysqlHarness()
  const { keys } = store.tables
  const db = mysqlDatabase(mysql.createPool(MYSQL_URL as string), { ownsPool: true })
  const migrate = () => migrateSql(db, mysqlDialect, { tablePrefix: keys.slice(0, -'api_keys'.length) })
  // SHOW takes no parameters in a prepared statement: the test's own names are written in.
  const keyColumn = async (name: string) =>
    (await store.query(`SHOW COLUMNS FROM ${keys} LIKE '${name}'`)).length
  try {
    await test({ store, migrate, keyColumn })
  } finally {
    await db.close?.()
    await close()
  }
}

describe.skipIf(!MYSQL_URL)('migrations (set KEYWARD_MYSQL_URL to run)', () => {
  it('bring tables of version 1 to version 2 (api_keys.pepper_id), passing over a column already there', () =>
    withMigrations(async ({ store, migrate, keyColumn }) => {
      const { keys, migrations } = store.tables
      // Version 1, as the first release wrote it; then version 2 cut short before its record.
      await store.query(`ALTER TABLE ${keys} DROP COLUMN pepper_id`)
      await store.query(`DELETE FROM ${migrations} WHERE version = 2`)
      expect(await keyColumn('pepper_id')).toBe(0)
      expect(await migrate()).toEqual([2])
      expect(await keyColumn('pepper_id')).toBe(1)
      await store.query(`DELETE FROM ${migrations} WHERE version = 2`)
      expect(await migrate()).toEqual([2])
      expect(await migrate()).toEqual([])
    }))

  it('bring tables of version 2 to version 3 (the table roles, api_keys.role_ids), passing over what is there', () =>
    withMigrations(async ({ store, migrate, keyColumn }) => {
      const { keys, roles, migrations } = store.tables
      // Version 2; then version 3 cut short after its table, its indexes and its column.
      await store.query(`DROP TABLE ${roles}`)
      await store.query(`ALTER TABLE ${keys} DROP COLUMN role_ids`)
      await store.query(`DELETE FROM ${migrations} WHERE version = 3`)
      expect(await keyColumn('role_ids')).toBe(0)
      expect(await migrate()).toEqual([3])
      expect(await keyColumn('role_ids')).toBe(1)
      const index = await store.query(`SHOW INDEX FROM ${roles} WHERE Key_name = '${roles}_name_key'`)
      expect(index.length).toBe(2)
      await store.query(`DELETE FROM ${migrations} WHERE version = 3`)
      expect(await migrate()).toEqual([3])
      expect(await migrate()).toEqual([])
    }))

  it('bring tables of version 3 to version 4 (the change log and its counter), passing over what is there', () =>
    withMigrations(async ({ store, migrate }) => {
      const { changeLog, changeCounter, migrations } = store.tables
      await store.query(`DROP TABLE ${changeLog}`)
      await store.query(`DROP TABLE ${changeCounter}`)
      await store.query(`DELETE FROM ${migrations} WHERE version = 4`)
      expect(await migrate()).toEqual([4])
      expect(await store.query(`SELECT id, seq FROM ${changeCounter}`)).toEqual([{ id: 1, seq: 0 }])
      // A write appends its change under the counter's next id.
      await createKeyward({ store }).issueProjectKey('proj-v4')
      expect((await store.query(`SELECT id FROM ${changeLog}`)).map((row) => Number(row.id))).toEqual([1])
      await store.query(`DELETE FROM ${migrations} WHERE version = 4`)
      expect(await migrate()).toEqual([4])
      expect(await store.query(`SELECT seq FROM ${changeCounter}`)).toEqual([{ seq: 1 }])
      expect(await migrate()).toEqual([])
    }))

  it('bring tables of version 4 to version 5 (identities.role_ids), passing over a column already there', () =>
    withMigrations(async ({ store, migrate }) => {
      const { identities, migrations } = store.tables
      const columns = async () =>
        (
          await store.query<{ name: string }>(
            'SELECT column_name AS name FROM information_schema.columns WHERE table_schema = DATABASE() AND table_name = ?',
            [identities],
          )
        ).map((row) => row.name)
      await store.query(`ALTER TABLE ${identities} DROP COLUMN role_ids`)
      await store.query(`DELETE FROM ${migrations} WHERE version = 5`)
      expect(await columns()).not.toContain('role_ids')
      expect(await migrate()).toEqual([5])
      expect(await columns()).toContain('role_ids')
      await store.query(`DELETE FROM ${migrations} WHERE version = 5`)
      expect(await migrate()).toEqual([5])
      expect(await migrate()).toEqual([])
    }))
})

describe.skipIf(!MYSQL_URL)('roles through the service (set KEYWARD_MYSQL_URL to run)', () => {
  it("a key has its roles' permissions, loses one taken from its role (heard by a cache on the change feed), and keeps a held role from deletion unless detached", async () => {
    const first = await mysqlHarness()
    // The same tables, with a change feed: a cached verification hears the store's role writes.
    const store = new SqlKeyStore(
      mysqlDatabase(mysql.createPool(MYSQL_URL as string), { ownsPool: true }),
      mysqlDialect,
      {
        tablePrefix: first.store.tables.keys.slice(0, -'api_keys'.length),
        changes: new KeyChangeHub({ connected: true }),
      },
    )
    const permissions = ['reports:read', 'reports:write', 'billing:read']
    const keyward = createKeyward({ store, permissions, cache: { ttlMs: 600_000 }, trackLastUsed: false })
    const project = `roles-${Date.now().toString(36)}`
    const check = (key: string, wanted: string) =>
      keyward
        .authenticate({ projectKey: key }, { scope: 'project', projectId: project, permissions: wanted })
        .then(
          () => 'accepted',
          (error: { type?: string }) => error.type,
        )
    try {
      const role = await keyward.createRole(project, { name: 'reports', permissions: ['reports:*'] })
      const { key, record } = await keyward.issueProjectKey(project, {
        roles: ['reports'],
        permissions: ['billing:read'],
      })
      expect(record.roleIds).toEqual([role.id])
      expect(await check(key, 'reports:write')).toBe('accepted')
      expect(await check(key, 'billing:read')).toBe('accepted')
      // Written on the store, not through the service: the cache hears it on the feed.
      await store.roles.updateRole(role.id, { permissions: ['reports:read'] }, new Date())
      expect(await check(key, 'reports:write')).toBe(ErrorType.permissionDenied)
      expect(await check(key, 'reports:read')).toBe('accepted')
      const refused = await keyward.deleteRole(role.id).catch((error: { type?: string }) => error.type)
      expect(refused).toBe(ErrorType.roleInUse)
      const deleted = await keyward.deleteRole(role.id, { detach: true })
      expect(deleted?.detached.map((k) => k.id)).toEqual([record.id])
      // Its own permission only.
      expect(await check(key, 'reports:read')).toBe(ErrorType.permissionDenied)
      expect(await check(key, 'billing:read')).toBe('accepted')
      expect((await store.findKeyById(record.id))?.roleIds ?? null).toBeNull()
    } finally {
      await keyward.close()
      await store.close()
      await first.close()
    }
  })
})

describe.skipIf(!MYSQL_URL)('the active-key limit across pools (set KEYWARD_MYSQL_URL to run)', () => {
  it('two pools (two processes) creating at once for one developer never make the limit + 1', async () => {
    const first = await mysqlHarness()
    const second = await createMysqlKeyStore(
      { connectionString: MYSQL_URL as string },
      { tablePrefix: first.store.tables.keys.slice(0, -'api_keys'.length), migrate: false },
    )
    try {
      for (let round = 0; round < 5; round++) {
        const developer = `race-${Date.now().toString(36)}-${round}`
        const [a, b] = [createKeyward({ store: first.store }), createKeyward({ store: second })]
        const results = await Promise.allSettled(
          Array.from({ length: 60 }, (_, i) => (i % 2 ? a : b).issueDeveloperKey(developer)),
        )
        expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(10)
        const refused = results.flatMap((r) =>
          r.status === 'rejected' ? [(r.reason as { type?: string }).type] : [],
        )
        expect(refused).toEqual(Array(50).fill(ErrorType.limitExceeded))
        const [row] = await first.store.query<{ n: number }>(
          `SELECT COUNT(*) AS n FROM ${first.store.tables.keys} WHERE developer_id = ? AND active = 1`,
          [developer],
        )
        expect(Number(row?.n)).toBe(10)
      }
    } finally {
      await second.close()
      await first.close()
    }
  })
})

describe('createMysqlKeyStore options', () => {
  it('are checked when called, with messages that name the option and never echo the URL', async () => {
    await expect(createMysqlKeyStore({} as never)).rejects.toThrow(
      'createMysqlKeyStore: pass `{ pool }` or `{ connectionString }`.',
    )
    const refused = await createMysqlKeyStore({ connectionString: 'postgres://u:secret@db/keys' }).catch(
      (e: Error) => e,
    )
    expect(refused).toBeInstanceOf(TypeError)
    expect((refused as Error).message).toBe(
      'createMysqlKeyStore: option `connectionString` must start with mysql:// or mariadb://: give one such as mysql://user:password@localhost:3306/keys.',
    )
    await expect(
      createMysqlKeyStore({ connectionString: 'mysql://db/keys' }, { queryTimeoutMs: 0, migrate: false }),
    ).rejects.toThrow('mysqlDatabase: option `queryTimeoutMs` must be a positive integer, got 0.')
  })
})

describe.skipIf(!MYSQL_URL)('statement timeouts on MySQL (set KEYWARD_MYSQL_URL to run)', () => {
  it('a read past its timeout fails, a write past it is of unknown outcome, and the connection serves again after', async () => {
    // One connection: the statements after the timeouts wait for the slept ones to end on it.
    const pool = mysql.createPool({ uri: MYSQL_URL as string, connectionLimit: 1 })
    const db = mysqlDatabase(pool, { queryTimeoutMs: 150, ownsPool: true })
    try {
      const started = performance.now()
      await expect(db.query('SELECT SLEEP(0.6) AS slept')).rejects.toMatchObject({
        code: 'PROTOCOL_SEQUENCE_TIMEOUT',
      })
      expect(performance.now() - started).toBeLessThan(550)
      await expect(db.run('DO SLEEP(0.6)')).rejects.toBeInstanceOf(SqlOutcomeUnknownError)
      await expect(db.transaction((tx) => tx.query('SELECT SLEEP(0.6) AS slept'))).rejects.toMatchObject({
        code: 'PROTOCOL_SEQUENCE_TIMEOUT',
      })
      expect(await db.query('SELECT 1 AS one')).toEqual([{ one: 1 }])
      expect(await db.query('SELECT 2 AS two')).toEqual([{ two: 2 }])
    } finally {
      await db.close!()
    }
  })
})
