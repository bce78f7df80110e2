import { readFileSync } from 'node:fs'
import { afterAll, describe, expect, it } from 'vitest'
import { applyMigrations, migrate } from './migrate.js'
import { pgliteDriver } from './pglite.js'
import {
  AUDIT_LOG_SQL,
  CHANGE_FEED_SQL,
  CLOSED_OWNERS_SQL,
  CREDIT_EVENTS_SQL,
  CREDITS_SQL,
  IDENTITIES_SQL,
  IDENTITY_ROLES_SQL,
  KEY_PAGES_SQL,
  KEY_PEPPER_SQL,
  KEY_POLICIES_SQL,
  KEY_RATELIMITS_SQL,
  KEY_SEARCH_SQL,
  MIGRATIONS,
  ROLES_SQL,
  SCHEMA_SQL,
  statementsOf,
  WEBHOOKS_SQL,
} from './schema.js'
import { pgliteDatabase, uniqueSchema } from './test/harness.js'

afterAll(async () => {
  await (await pgliteDatabase()).close()
})

describe('schema.sql', () => {
  it('is the first migration, schema-v2.sql the second, change-feed.sql the third, closed-owners.sql the fourth, key-pages.sql the fifth, key-policies.sql the sixth, credits.sql the seventh, key-usage.sql the eighth, audit-log.sql the ninth, identities.sql the tenth, key-ratelimits.sql the eleventh, key-search.sql the twelfth, key-pepper.sql the thirteenth, roles.sql the fourteenth, webhooks.sql the fifteenth, identity-roles.sql the sixteenth, credit-events.sql the seventeenth, and SCHEMA_SQL all', () => {
    const v1 = readFileSync(new URL('./schema.sql', import.meta.url), 'utf8')
    const v2 = readFileSync(new URL('./schema-v2.sql', import.meta.url), 'utf8')
    const v3 = readFileSync(new URL('./change-feed.sql', import.meta.url), 'utf8')
    const v4 = readFileSync(new URL('./closed-owners.sql', import.meta.url), 'utf8')
    const v5 = readFileSync(new URL('./key-pages.sql', import.meta.url), 'utf8')
    const v6 = readFileSync(new URL('./key-policies.sql', import.meta.url), 'utf8')
    const v7 = readFileSync(new URL('./credits.sql', import.meta.url), 'utf8')
    const v8 = readFileSync(new URL('./key-usage.sql', import.meta.url), 'utf8')
    const v9 = readFileSync(new URL('./audit-log.sql', import.meta.url), 'utf8')
    const v10 = readFileSync(new URL('./identities.sql', import.meta.url), 'utf8')
    const v11 = readFileSync(new URL('./key-ratelimits.sql', import.meta.url), 'utf8')
    const v12 = readFileSync(new URL('./key-search.sql', import.meta.url), 'utf8')
    const v13 = readFileSync(new URL('./key-pepper.sql', import.meta.url), 'utf8')
    const v14 = readFileSync(new URL('./roles.sql', import.meta.url), 'utf8')
    const v15 = readFileSync(new URL('./webhooks.sql', import.meta.url), 'utf8')
    const v16 = readFileSync(new URL('./identity-roles.sql', import.meta.url), 'utf8')
    const v17 = readFileSync(new URL('./credit-events.sql', import.meta.url), 'utf8')
    expect(MIGRATIONS).toEqual([
      { version: 1, name: 'initial', sql: v1 },
      { version: 2, name: 'lifecycle', sql: v2 },
      { version: 3, name: 'change_feed', sql: v3 },
      { version: 4, name: 'closed_owners', sql: v4 },
      { version: 5, name: 'key_pages', sql: v5 },
      { version: 6, name: 'key_policies', sql: v6 },
      { version: 7, name: 'credits', sql: v7 },
      { version: 8, name: 'usage', sql: v8 },
      { version: 9, name: 'audit_log', sql: v9 },
      { version: 10, name: 'identities', sql: v10 },
      { version: 11, name: 'key_ratelimits', sql: v11 },
      { version: 12, name: 'key_search', sql: v12 },
      { version: 13, name: 'key_pepper', sql: v13 },
      { version: 14, name: 'roles', sql: v14 },
      { version: 15, name: 'webhooks', sql: v15 },
      { version: 16, name: 'identity_roles', sql: v16 },
      { version: 17, name: 'credit_events', sql: v17 },
    ])
    expect(SCHEMA_SQL).toBe(
      `${v1}\n${v2}\n${v3}\n${v4}\n${v5}\n${v6}\n${v7}\n${v8}\n${v9}\n${v10}\n${v11}\n${v12}\n${v13}\n${v14}\n${v15}\n${v16}\n${v17}`,
    )
    expect(CREDITS_SQL).toBe(v7)
    expect(AUDIT_LOG_SQL).toBe(v9)
    expect(IDENTITIES_SQL).toBe(v10)
    expect(KEY_RATELIMITS_SQL).toBe(v11)
    expect(KEY_SEARCH_SQL).toBe(v12)
    expect(KEY_PEPPER_SQL).toBe(v13)
    expect(ROLES_SQL).toBe(v14)
    expect(WEBHOOKS_SQL).toBe(v15)
    expect(IDENTITY_ROLES_SQL).toBe(v16)
    expect(CREDIT_EVENTS_SQL).toBe(v17)
    expect(KEY_POLICIES_SQL).toBe(v6)
    expect(CLOSED_OWNERS_SQL).toBe(v4)
    expect(KEY_PAGES_SQL).toBe(v5)
  })

  it('adds in version 5 a nullable column without a default or check, and two indexes if missing', () => {
    expect(statementsOf(KEY_PAGES_SQL, 'tenant_a')).toEqual([
      'ALTER TABLE "tenant_a".api_keys ADD COLUMN IF NOT EXISTS revoked_reason text',
      'CREATE INDEX IF NOT EXISTS api_keys_developer_page_idx\n  ON "tenant_a".api_keys (developer_id, created_at DESC, id DESC) WHERE developer_id IS NOT NULL',
      'CREATE INDEX IF NOT EXISTS api_keys_project_page_idx\n  ON "tenant_a".api_keys (project_id, created_at DESC, id DESC) WHERE project_id IS NOT NULL',
      `INSERT INTO "tenant_a".keyward_migrations (version, name) VALUES (5, 'key_pages')\n  ON CONFLICT (version) DO NOTHING`,
    ])
  })

  it('adds in version 12 indexes only, the trigram ones in one DO block that the split keeps whole', () => {
    const statements = statementsOf(KEY_SEARCH_SQL, 'tenant_a')
    expect(statements).toHaveLength(6)
    for (const statement of statements.slice(0, 4)) {
      expect(statement).toMatch(/^CREATE INDEX IF NOT EXISTS \w+\n {2}ON "tenant_a"\.(api_keys|audit_log) /)
    }
    expect(statements[4]).toMatch(/^DO \$\$ .* END IF; END \$\$$/s)
    expect(statements[4]).toContain('ON "tenant_a".api_keys USING gin (name %s.gin_trgm_ops)')
    expect(statements[4]).toContain('ON "tenant_a".identities USING gin (external_id %s.gin_trgm_ops)')
    expect(statements[5]).toMatch(/VALUES \(12, 'key_search'\)/)
  })

  it('adds in version 6 three nullable columns without defaults, and the feed trigger on them', () => {
    const statements = statementsOf(KEY_POLICIES_SQL, 'tenant_a')
    expect(statements.slice(0, 4)).toEqual([
      'ALTER TABLE "tenant_a".api_keys ADD COLUMN IF NOT EXISTS ip_allowlist text[]',
      'ALTER TABLE "tenant_a".api_keys ADD COLUMN IF NOT EXISTS permissions text[]',
      'ALTER TABLE "tenant_a".api_keys ADD COLUMN IF NOT EXISTS metadata jsonb',
      'DROP TRIGGER IF EXISTS api_keys_notify_change ON "tenant_a".api_keys',
    ])
    expect(statements[4]).toMatch(
      /UPDATE OF .*\breplaced_by\b.*\bip_allowlist\b.*\bpermissions\b.*\bmetadata\b/s,
    )
    expect(statements[4]).not.toMatch(/last_used_at/)
    expect(statements[5]).toMatch(/VALUES \(6, 'key_policies'\)/)
  })

  it('adds in version 7 five nullable columns without defaults, a NOT VALID check, the period function and a trigger on the limit', () => {
    const statements = statementsOf(CREDITS_SQL, 'tenant_a')
    expect(statements.slice(0, 5)).toEqual([
      'ALTER TABLE "tenant_a".api_keys ADD COLUMN IF NOT EXISTS remaining bigint',
      'ALTER TABLE "tenant_a".api_keys ADD COLUMN IF NOT EXISTS refill_amount bigint',
      'ALTER TABLE "tenant_a".api_keys ADD COLUMN IF NOT EXISTS refill_interval text',
      'ALTER TABLE "tenant_a".api_keys ADD COLUMN IF NOT EXISTS refill_day smallint',
      'ALTER TABLE "tenant_a".api_keys ADD COLUMN IF NOT EXISTS refilled_at timestamptz',
    ])
    expect(statements[6]).toMatch(/CHECK \(remaining >= 0\) NOT VALID$/)
    expect(statements[7]).toMatch(/^CREATE OR REPLACE FUNCTION "tenant_a".credit_period_start\(.*\$\$$/s)
    expect(statements[9]).toMatch(/AFTER UPDATE OF remaining ON "tenant_a".api_keys/)
    expect(statements[9]).toMatch(/EXECUTE FUNCTION "tenant_a".notify_key_change\(\)$/)
    expect(statements.at(-1)).toMatch(/VALUES \(7, 'credits'\)/)
  })

  it('adds only a nullable column without a default in version 4: no table rewrite', () => {
    expect(statementsOf(CLOSED_OWNERS_SQL, 'tenant_a')).toEqual([
      'ALTER TABLE "tenant_a".api_key_owners ADD COLUMN IF NOT EXISTS closed_at timestamptz',
      `INSERT INTO "tenant_a".keyward_migrations (version, name) VALUES (4, 'closed_owners')\n  ON CONFLICT (version) DO NOTHING`,
    ])
  })

  it('adds only nullable columns without defaults in version 2: no table rewrite', () => {
    const statements = statementsOf(MIGRATIONS[1]!.sql, 'keyward')
    expect(statements.slice(0, -1)).toEqual([
      'ALTER TABLE "keyward".api_keys ADD COLUMN IF NOT EXISTS expires_at timestamptz',
      'ALTER TABLE "keyward".api_keys ADD COLUMN IF NOT EXISTS last_used_at timestamptz',
      'ALTER TABLE "keyward".api_keys ADD COLUMN IF NOT EXISTS replaced_by uuid',
    ])
  })

  it('the change feed is the third migration: a trigger function, its trigger, not on last_used_at', () => {
    expect(CHANGE_FEED_SQL).toBe(readFileSync(new URL('./change-feed.sql', import.meta.url), 'utf8'))
    expect(MIGRATIONS[2]).toEqual({ version: 3, name: 'change_feed', sql: CHANGE_FEED_SQL })
    const statements = statementsOf(CHANGE_FEED_SQL, 'tenant_a')
    expect(statements).toHaveLength(4)
    expect(statements[0]).toMatch(/^CREATE OR REPLACE FUNCTION "tenant_a".notify_key_change\(\)/)
    expect(statements[2]).toMatch(
      /ON "tenant_a".api_keys\s+FOR EACH ROW EXECUTE FUNCTION "tenant_a".notify_key_change\(\)$/,
    )
    expect(statements[2]).toMatch(/UPDATE OF .*\bactive\b.*\bexpires_at\b.*\breplaced_by\b/s)
    expect(statements[2]).not.toMatch(/last_used_at/)
    expect(statements[3]).toMatch(
      /^INSERT INTO "tenant_a".keyward_migrations .* VALUES \(3, 'change_feed'\)/s,
    )
  })

  it('splits into statements, without comments, in the schema asked for', () => {
    const statements = statementsOf(MIGRATIONS[0]!.sql, 'tenant_a')
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
    expect(await applyMigrations(driver, schema, MIGRATIONS.slice(0, 1))).toEqual({
      version: 1,
      applied: [1],
    })
    expect(await applyMigrations(driver, schema, MIGRATIONS.slice(0, 5))).toEqual({
      version: 5,
      applied: [2, 3, 4, 5],
    })
    // A key written at version 5 keeps its row, with no policies, after version 6.
    await db.query(
      `INSERT INTO "${schema}".api_keys (id, hash, key_prefix, project_id, active) VALUES ($1, $2, 'ak_abcde', 'p1', true)`,
      [crypto.randomUUID(), 'f'.repeat(64)],
    )
    expect(await migrate(driver, { schema })).toEqual({
      version: 17,
      applied: [6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17],
    })
    expect(await migrate(driver, { schema })).toEqual({ version: 17, applied: [] })
    const kept = await db.query(`SELECT ip_allowlist, permissions, metadata FROM "${schema}".api_keys`)
    expect(kept.rows).toEqual([{ ip_allowlist: null, permissions: null, metadata: null }])

    const next = {
      version: 100,
      name: 'next',
      sql: 'ALTER TABLE keyward.api_keys ADD COLUMN note text;',
    }
    expect(await applyMigrations(driver, schema, [...MIGRATIONS, next])).toEqual({
      version: 100,
      applied: [100],
    })
    expect(await applyMigrations(driver, schema, [...MIGRATIONS, next])).toEqual({
      version: 100,
      applied: [],
    })
    const versions = await db.query(
      `SELECT version, name FROM "${schema}".keyward_migrations ORDER BY version`,
    )
    expect(versions.rows).toEqual([
      { version: 1, name: 'initial' },
      { version: 2, name: 'lifecycle' },
      { version: 3, name: 'change_feed' },
      { version: 4, name: 'closed_owners' },
      { version: 5, name: 'key_pages' },
      { version: 6, name: 'key_policies' },
      { version: 7, name: 'credits' },
      { version: 8, name: 'usage' },
      { version: 9, name: 'audit_log' },
      { version: 10, name: 'identities' },
      { version: 11, name: 'key_ratelimits' },
      { version: 12, name: 'key_search' },
      { version: 13, name: 'key_pepper' },
      { version: 14, name: 'roles' },
      { version: 15, name: 'webhooks' },
      { version: 16, name: 'identity_roles' },
      { version: 17, name: 'credit_events' },
      { version: 100, name: 'next' },
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
