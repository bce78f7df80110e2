// The Drizzle tables of `@keyward/postgres/drizzle` against Keyward's migrations: drizzle-kit
// generates the SQL of the tables into one fresh schema, the migrations build another, and the
// catalogs of the two must hold the same tables, columns, constraints and indexes. A schema
// version that changes a table without changing the Drizzle module fails here.
import { generateDrizzleJson, generateMigration } from 'drizzle-kit/api'
import pg from 'pg'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { catalogOf, compareCatalogs } from './doctor.js'
import { apiKeyOwners, apiKeys, keyward, keywardMigrations, keywardTables } from './drizzle.js'
import { migrate } from './migrate.js'
import { pgDriver } from './pg.js'
import { PG_URL, uniqueSchema } from './test/harness.js'

// drizzle-kit makes tables, columns, constraints and indexes; the change feed's trigger and its
// function come from the migrations only (the guide says so).
const DRIZZLE_KINDS = new Set(['table', 'column', 'constraint', 'index'])

describe('the Drizzle tables', () => {
  it('are in the schema `keyward` by default, and in any schema asked for', () => {
    expect(keyward.schemaName).toBe('keyward')
    const other = keywardTables('billing_keys')
    expect(other.keyward.schemaName).toBe('billing_keys')
    expect(Object.keys(other).sort()).toEqual([
      'apiKeyOwners',
      'apiKeys',
      'auditChain',
      'auditLog',
      'identities',
      'keyUsage',
      'keyward',
      'keywardMigrations',
      'roles',
      'webhookAttempts',
      'webhookDeliveries',
      'webhookEndpoints',
      'webhookEvents',
    ])
    expect([apiKeys, apiKeyOwners, keywardMigrations].every(Boolean)).toBe(true)
  })
})

describe.skipIf(!PG_URL)(
  'drizzle-kit on the Drizzle tables, against the migrations (set KEYWARD_PG_URL to run)',
  () => {
    const admin = new pg.Client({ connectionString: PG_URL })
    const migrated = uniqueSchema()
    const generated = uniqueSchema()
    beforeAll(async () => {
      await admin.connect()
      await migrate(pgDriver(admin, { queryTimeoutMs: 30_000 }), { schema: migrated })
    })
    afterAll(async () => {
      for (const schema of [migrated, generated])
        await admin.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`)
      await admin.end()
    })

    it('generates the tables, columns, constraints and indexes that the migrations create', async () => {
      const statements = await generateMigration(
        generateDrizzleJson({}),
        generateDrizzleJson({ ...keywardTables(generated) }),
      )
      expect(statements.join('\n')).toContain(`CREATE SCHEMA "${generated}"`)
      for (const statement of statements) await admin.query(statement)
      const driver = pgDriver(admin)
      // A CHECK that a migration adds NOT VALID to an existing table (no scan) is the same rule
      // that drizzle-kit creates validated on a new one.
      // The trigram indexes of version 12 exist only where pg_trgm is installed: not in Drizzle.
      const expected = (await catalogOf(driver, migrated))
        .filter((e) => DRIZZLE_KINDS.has(e.kind) && !e.name.endsWith('_trgm_idx'))
        .map((e) => ({ ...e, definition: e.definition.replace(/ NOT VALID$/, '') }))
      const found = await catalogOf(driver, generated, migrated)
      expect(compareCatalogs(migrated, expected, found).map((d) => d.message)).toEqual([])
      // The comparison sees every kind it is asked about (a test that cannot fail proves nothing).
      expect(new Set(expected.map((e) => e.kind))).toEqual(DRIZZLE_KINDS)
    })
  },
)
