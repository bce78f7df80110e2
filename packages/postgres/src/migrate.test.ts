import { readFileSync } from 'node:fs'
import { afterAll, describe, expect, it } from 'vitest'
import { applyMigrations, migrate } from './migrate.js'
import { pgliteDriver } from './pglite.js'
import { CHANGE_FEED_SQL, MIGRATIONS, SCHEMA_SQL, statementsOf } from './schema.js'
import { pgliteDatabase, uniqueSchema } from './test/harness.js'

afterAll(async () => {
  await (await pgliteDatabase()).close()
})

describe('schema.sql', () => {
  it('is what SCHEMA_SQL and the first migration hold', () => {
    expect(SCHEMA_SQL).toBe(readFileSync(new URL('./schema.sql', import.meta.url), 'utf8'))
    expect(MIGRATIONS[0]).toEqual({ version: 1, name: 'initial', sql: SCHEMA_SQL })
  })

  it('the change feed is the second migration, one trigger function and its trigger', () => {
    expect(CHANGE_FEED_SQL).toBe(readFileSync(new URL('./change-feed.sql', import.meta.url), 'utf8'))
    expect(MIGRATIONS[1]).toEqual({ version: 2, name: 'change_feed', sql: CHANGE_FEED_SQL })
    const statements = statementsOf(CHANGE_FEED_SQL, 'tenant_a')
    expect(statements).toHaveLength(3)
    expect(statements[0]).toMatch(/^CREATE OR REPLACE FUNCTION "tenant_a".notify_key_change\(\)/)
    expect(statements[2]).toMatch(
      /ON "tenant_a".api_keys\s+FOR EACH ROW EXECUTE FUNCTION "tenant_a".notify_key_change\(\)$/,
    )
  })

  it('splits into statements, without comments, in the schema asked for', () => {
    const statements = statementsOf(SCHEMA_SQL, 'tenant_a')
    expect(statements[0]).toBe('CREATE SCHEMA IF NOT EXISTS "tenant_a"')
    expect(statements).toHaveLength(8)
    for (const statement of statements) {
      expect(statement).not.toMatch(/^--|\n--|;$/)
      expect(statement).not.toMatch(/\bkeyward\./)
    }
    expect(statements).toContain(
      'CREATE UNIQUE INDEX IF NOT EXISTS api_keys_hash_key ON "tenant_a".api_keys (hash)',
    )
    expect(statements.at(-1)).toMatch(
      /^INSERT INTO "tenant_a".keyward_migrations .* ON CONFLICT \(version\) DO NOTHING$/s,
    )
  })
})

describe('migrate', () => {
  it('creates the schema, then applies only the versions not yet recorded', async () => {
    const db = await pgliteDatabase()
    const driver = pgliteDriver(db)
    const schema = uniqueSchema()
    expect(await migrate(driver, { schema })).toEqual({ version: 2, applied: [1, 2] })
    expect(await migrate(driver, { schema })).toEqual({ version: 2, applied: [] })

    const next = {
      version: 3,
      name: 'last_used',
      sql: 'ALTER TABLE keyward.api_keys ADD COLUMN last_used_at timestamptz;',
    }
    expect(await applyMigrations(driver, schema, [...MIGRATIONS, next])).toEqual({ version: 3, applied: [3] })
    expect(await applyMigrations(driver, schema, [...MIGRATIONS, next])).toEqual({ version: 3, applied: [] })
    const versions = await db.query(
      `SELECT version, name FROM "${schema}".keyward_migrations ORDER BY version`,
    )
    expect(versions.rows).toEqual([
      { version: 1, name: 'initial' },
      { version: 2, name: 'change_feed' },
      { version: 3, name: 'last_used' },
    ])
    await db.query(`DROP SCHEMA "${schema}" CASCADE`)
  })

  it('rolls back a migration that fails, leaving nothing half done', async () => {
    const db = await pgliteDatabase()
    const driver = pgliteDriver(db)
    const schema = uniqueSchema()
    const broken = {
      version: 1,
      name: 'broken',
      sql: 'CREATE SCHEMA keyward;\nCREATE TABLE keyward.t (x nosuchtype);',
    }
    await expect(applyMigrations(driver, schema, [broken])).rejects.toThrow(/nosuchtype/)
    const found = await db.query('SELECT 1 FROM pg_namespace WHERE nspname = $1', [schema])
    expect(found.rows).toEqual([])
  })

  it('checks the schema name', async () => {
    const driver = pgliteDriver(await pgliteDatabase())
    await expect(migrate(driver, { schema: 'x"; DROP TABLE users; --' })).rejects.toThrow(
      'migrate: option `schema` must be a lower-case SQL identifier',
    )
  })
})
