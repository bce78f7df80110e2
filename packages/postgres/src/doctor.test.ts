// Drift between the live schema and what Keyward's migrations create, on a real PostgreSQL:
// a dropped column, a missing index, a changed default, an object of the application's, an old
// version. The expected side comes from the migrations, so a new version is covered as it lands.
import pg from 'pg'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { checkSchemaDrift } from './doctor.js'
import { applyMigrations, migrate } from './migrate.js'
import { pgDriver } from './pg.js'
import { MIGRATIONS } from './schema.js'
import { PG_URL, uniqueSchema } from './test/harness.js'

// What doctor names of a schema recorded at version 14 that only has version 13's objects (a
// missing table stands for its columns, indexes and triggers).
// Without version 14 (and with 16, which defines notify_role_change again).
const DRIFT_14 = (schema: string) => [
  ['missing', 'column', `${schema}.api_keys.role_ids`],
  ['missing', 'index', `${schema}.api_keys_role_ids_idx`],
  ['missing', 'table', `${schema}.roles`],
  ['different', 'trigger', `${schema}.api_keys.api_keys_notify_change`],
]

describe.skipIf(!PG_URL)('checkSchemaDrift on PostgreSQL (set KEYWARD_PG_URL to run)', () => {
  const admin = new pg.Client({ connectionString: PG_URL })
  const driver = pgDriver(admin, { queryTimeoutMs: 30_000 })
  const schemas: string[] = []
  const fresh = async () => {
    const schema = uniqueSchema()
    schemas.push(schema)
    await migrate(driver, { schema })
    return schema
  }
  beforeAll(() => admin.connect())
  afterAll(async () => {
    for (const schema of schemas) await admin.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`)
    await admin.end()
  })

  it('finds no drift in a schema the migrations made, and leaves no scratch schema behind', async () => {
    const schema = await fresh()
    const report = await checkSchemaDrift(driver, { schema })
    expect(report).toEqual({
      schema,
      version: MIGRATIONS.at(-1)?.version,
      expectedVersion: MIGRATIONS.at(-1)?.version,
      drift: [],
    })
    const { rows } = await admin.query(
      `SELECT nspname FROM pg_namespace WHERE nspname LIKE 'keyward_doctor_%'`,
    )
    expect(rows).toEqual([])
  })

  it('names a dropped column and a missing index, each plainly', async () => {
    const schema = await fresh()
    await admin.query(`ALTER TABLE "${schema}".api_keys DROP COLUMN last_used_at`)
    await admin.query(`DROP INDEX "${schema}".api_keys_project_page_idx`)
    const { drift } = await checkSchemaDrift(driver, { schema })
    expect(drift.map((d) => d.message)).toEqual([
      `column ${schema}.api_keys.last_used_at is missing: expected timestamp with time zone`,
      `index ${schema}.api_keys_project_page_idx is missing: expected CREATE INDEX api_keys_project_page_idx ` +
        `ON ${schema}.api_keys USING btree (project_id, created_at DESC, id DESC) WHERE (project_id IS NOT NULL)`,
    ])
    expect(drift.map((d) => [d.type, d.kind, d.object])).toEqual([
      ['missing', 'column', `${schema}.api_keys.last_used_at`],
      ['missing', 'index', `${schema}.api_keys_project_page_idx`],
    ])
  })

  it('names a changed column, a changed index, an extra column, and a dropped trigger', async () => {
    const schema = await fresh()
    await admin.query(`ALTER TABLE "${schema}".api_keys ALTER COLUMN active DROP DEFAULT`)
    await admin.query(`ALTER TABLE "${schema}".api_keys ADD COLUMN tenant text`)
    await admin.query(`DROP INDEX "${schema}".api_keys_hash_key`)
    await admin.query(`CREATE INDEX api_keys_hash_key ON "${schema}".api_keys (hash)`)
    await admin.query(`DROP TRIGGER api_keys_notify_change ON "${schema}".api_keys`)
    const { drift } = await checkSchemaDrift(driver, { schema })
    expect(drift.map((d) => d.message)).toEqual([
      `column ${schema}.api_keys.active differs: expected boolean NOT NULL DEFAULT true, found boolean NOT NULL`,
      `index ${schema}.api_keys_hash_key differs: expected CREATE UNIQUE INDEX api_keys_hash_key ON ${schema}.api_keys ` +
        `USING btree (hash), found CREATE INDEX api_keys_hash_key ON ${schema}.api_keys USING btree (hash)`,
      expect.stringMatching(
        new RegExp(
          `^trigger ${schema}\\.api_keys\\.api_keys_notify_change is missing: expected CREATE TRIGGER`,
        ),
      ),
      `column ${schema}.api_keys.tenant is not in Keyward's schema: text`,
    ])
  })

  it("names what differs of the identities: a column's default, the keys' index, the feed's trigger", async () => {
    const schema = await fresh()
    await admin.query(`ALTER TABLE "${schema}".identities ALTER COLUMN ratelimits DROP DEFAULT`)
    await admin.query(`DROP INDEX "${schema}".api_keys_identity_idx`)
    await admin.query(`DROP TRIGGER identities_notify_change ON "${schema}".identities`)
    const { drift } = await checkSchemaDrift(driver, { schema })
    expect(drift.map((d) => [d.type, d.kind, d.object])).toEqual([
      ['different', 'column', `${schema}.identities.ratelimits`],
      ['missing', 'index', `${schema}.api_keys_identity_idx`],
      ['missing', 'trigger', `${schema}.identities.identities_notify_change`],
    ])
    expect(drift[0]?.message).toBe(
      `column ${schema}.identities.ratelimits differs: expected jsonb NOT NULL DEFAULT '[]'::jsonb, found jsonb NOT NULL`,
    )
  })

  it("names what version 13 adds when it is missing: the keys' pepper_id column", async () => {
    const schema = uniqueSchema()
    schemas.push(schema)
    await applyMigrations(
      driver,
      schema,
      MIGRATIONS.filter((m) => m.version !== 13),
    )
    const { drift } = await checkSchemaDrift(driver, { schema })
    expect(drift.map((d) => d.message)).toEqual([
      `column ${schema}.api_keys.pepper_id is missing: expected text`,
    ])
  })

  it("names what version 14 adds when it is missing: the roles, the keys' role_ids, and a trigger blind to them", async () => {
    const schema = uniqueSchema()
    schemas.push(schema)
    await applyMigrations(
      driver,
      schema,
      MIGRATIONS.filter((m) => m.version !== 14),
    )
    const { drift } = await checkSchemaDrift(driver, { schema })
    expect(drift.map((d) => [d.type, d.kind, d.object])).toEqual(DRIFT_14(schema))
    expect(drift.find((d) => d.kind === 'column')?.message).toBe(
      `column ${schema}.api_keys.role_ids is missing: expected uuid[]`,
    )
  })

  it('names what version 15 adds when it is missing: the webhook tables', async () => {
    const schema = uniqueSchema()
    schemas.push(schema)
    await applyMigrations(
      driver,
      schema,
      MIGRATIONS.filter((m) => m.version !== 15),
    )
    const { drift } = await checkSchemaDrift(driver, { schema })
    expect(drift.filter((d) => d.kind === 'table').map((d) => [d.type, d.object])).toEqual([
      ['missing', `${schema}.webhook_attempts`],
      ['missing', `${schema}.webhook_deliveries`],
      ['missing', `${schema}.webhook_endpoints`],
      ['missing', `${schema}.webhook_events`],
    ])
  })

  it("names what version 16 adds when it is missing: the identities' role_ids, and triggers blind to them", async () => {
    const schema = uniqueSchema()
    schemas.push(schema)
    await applyMigrations(driver, schema, MIGRATIONS.slice(0, -2))
    await admin.query(
      `INSERT INTO "${schema}".keyward_migrations (version, name) VALUES (16, 'identity_roles')`,
    )
    // The versions after it, as they are.
    await applyMigrations(driver, schema, MIGRATIONS)
    const { drift } = await checkSchemaDrift(driver, { schema })
    expect(drift.map((d) => [d.type, d.kind, d.object])).toEqual([
      ['missing', 'column', `${schema}.identities.role_ids`],
      ['different', 'function', `${schema}.notify_role_change()`],
      ['missing', 'index', `${schema}.identities_role_ids_idx`],
      ['different', 'trigger', `${schema}.identities.identities_notify_change`],
    ])
  })

  it("names what version 17 adds when it is missing: the thresholds and refill due times, their indexes, the expiry scan index and the threshold's trigger", async () => {
    const schema = uniqueSchema()
    schemas.push(schema)
    await applyMigrations(driver, schema, MIGRATIONS.slice(0, -1))
    await admin.query(
      `INSERT INTO "${schema}".keyward_migrations (version, name) VALUES (17, 'credit_events')`,
    )
    const { drift } = await checkSchemaDrift(driver, { schema })
    expect(drift.map((d) => [d.type, d.kind, d.object])).toEqual([
      ['missing', 'column', `${schema}.api_keys.credits_low_at`],
      ['missing', 'column', `${schema}.api_keys.refill_due_at`],
      ['missing', 'column', `${schema}.identities.credits_low_at`],
      ['missing', 'column', `${schema}.identities.refill_due_at`],
      ['missing', 'index', `${schema}.api_keys_expiry_scan_idx`],
      ['missing', 'index', `${schema}.api_keys_refill_due_idx`],
      ['missing', 'index', `${schema}.identities_refill_due_idx`],
      ['missing', 'trigger', `${schema}.api_keys.api_keys_notify_credits_low_at`],
    ])
  })

  it('names an old version and a schema that was never migrated', async () => {
    const schema = uniqueSchema()
    schemas.push(schema)
    await applyMigrations(driver, schema, MIGRATIONS.slice(0, -1))
    const old = await checkSchemaDrift(driver, { schema })
    const previous = MIGRATIONS.at(-2)?.version
    expect(old.version).toBe(previous)
    expect(old.drift[0]?.message).toBe(
      `schema ${schema} is at version ${previous}; this @keyward/postgres expects ${MIGRATIONS.at(-1)?.version}: ` +
        'run migrate() or apply `keyward schema sql`',
    )
    // What the last version adds is named too.
    expect(old.drift.length).toBeGreaterThan(1)
    const empty = await checkSchemaDrift(driver, { schema: `${schema}_none` })
    expect(empty.drift.map((d) => d.message)).toEqual([
      `schema ${schema}_none holds none of Keyward's tables: run migrate() or apply \`keyward schema sql\``,
    ])
  })
})
