import { checkSchemaDrift, MIGRATIONS, migrate } from '@keyward/postgres'
import { pgDriver } from '@keyward/postgres/pg'
import pg from 'pg'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { harness } from '../test/harness.js'

const PG_URL = process.env.KEYWARD_PG_URL as string
const LATEST = MIGRATIONS.at(-1)?.version as number

describe('keyward schema sql', () => {
  it('prints every version of the migrations, in order, for the schema asked for', async () => {
    const { code, stdout } = await harness().run('schema', 'sql', '--pg-schema', 'billing_keys')
    expect(code).toBe(0)
    const headers = [...stdout.matchAll(/^-- Keyward schema version (\d+) \((\w+)\)/gm)].map((m) => [
      Number(m[1]),
      m[2],
    ])
    expect(headers).toEqual(MIGRATIONS.map((m) => [m.version, m.name]))
    expect(stdout).toContain('CREATE TABLE IF NOT EXISTS "billing_keys".api_keys')
    // Version 10: identities, and the column that joins a key to one.
    expect(stdout).toMatch(/^-- Keyward schema version 10 \(identities\)/m)
    expect(stdout).toContain('CREATE TABLE IF NOT EXISTS "billing_keys".identities')
    expect(stdout).toContain('ALTER TABLE "billing_keys".api_keys ADD COLUMN IF NOT EXISTS identity_id uuid')
    // Version 14: roles, and the column by which a key holds them.
    expect(stdout).toMatch(/^-- Keyward schema version 14 \(roles\)/m)
    expect(stdout).toContain('CREATE TABLE IF NOT EXISTS "billing_keys".roles')
    expect(stdout).toContain('ALTER TABLE "billing_keys".api_keys ADD COLUMN IF NOT EXISTS role_ids uuid[]')
    expect(stdout).not.toMatch(/\bkeyward\.(api_keys|identities|roles)/)
  })

  it('prints only the versions after --from, and the list as JSON with --json', async () => {
    const { code, stdout } = await harness().run('schema', 'sql', '--from', String(LATEST - 1), '--json')
    expect(code).toBe(0)
    const versions = JSON.parse(stdout) as { version: number; name: string; sql: string }[]
    expect(versions.map((v) => v.version)).toEqual([LATEST])
    expect(versions[0]?.sql).toContain(`VALUES (${LATEST}, `)
    expect((await harness().run('schema', 'sql', '--from', String(LATEST))).stdout).toBe(
      `-- Nothing after version ${LATEST}, the newest.\n`,
    )
  })

  it('prints the schema of MySQL and of SQLite with --dialect, under --table-prefix', async () => {
    const mysql = await harness().run('schema', 'sql', '--dialect', 'mysql', '--table-prefix', 'auth_')
    expect(mysql.code).toBe(0)
    expect(mysql.stdout).toMatch(/^-- Keyward mysql schema version 1/)
    expect(mysql.stdout).toContain('CREATE TABLE IF NOT EXISTS auth_api_keys (')
    expect(mysql.stdout).toContain('ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin')
    expect(mysql.stdout).not.toContain('FOREIGN KEY')
    const sqlite = await harness().run('schema', 'sql', '--dialect', 'sqlite')
    expect(sqlite.code).toBe(0)
    expect(sqlite.stdout).toContain('CREATE TABLE IF NOT EXISTS keyward_identities (')
    expect(sqlite.stdout).toContain('CREATE UNIQUE INDEX IF NOT EXISTS keyward_api_keys_hash_key')
    const bad = await harness().run('schema', 'sql', '--dialect', 'oracle')
    expect(bad.code).toBe(2)
    expect(bad.stderr).toContain('--dialect must be postgres, mysql or sqlite, got "oracle".')
  })

  it('refuses a bad schema name and a bad --from as usage errors', async () => {
    const badSchema = await harness().run('schema', 'sql', '--pg-schema', 'Bad-Name')
    expect(badSchema.code).toBe(2)
    expect(badSchema.stderr).toContain('--pg-schema must be a lower-case SQL identifier')
    const badFrom = await harness().run('schema', 'sql', '--from', String(LATEST + 1))
    expect(badFrom.code).toBe(2)
    expect(badFrom.stderr).toContain(`--from must be a schema version from 0 to ${LATEST}`)
  })
})

describe.skipIf(!PG_URL)(
  'keyward schema sql and keyward doctor on PostgreSQL (set KEYWARD_PG_URL to run)',
  () => {
    const admin = new pg.Client({ connectionString: PG_URL })
    const schemas: string[] = []
    const fresh = () => {
      const schema = `kw_cli_doctor_${process.pid}_${Date.now().toString(36)}_${schemas.length}`
      schemas.push(schema)
      return schema
    }
    beforeAll(() => admin.connect())
    afterAll(async () => {
      for (const schema of schemas) await admin.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`)
      await admin.end()
    })

    it('prints SQL that builds the schema migrate() builds: no drift, nothing left to migrate', async () => {
      const schema = fresh()
      const { stdout } = await harness().run('schema', 'sql', '--pg-schema', schema)
      // Version 12's indexes, its DO block (the trigram indexes where pg_trgm is) kept whole.
      expect(stdout).toContain(
        `CREATE INDEX IF NOT EXISTS api_keys_project_prefix_idx\n  ON "${schema}".api_keys (project_id, key_prefix text_pattern_ops)`,
      )
      expect(stdout).toMatch(/^DO \$\$ DECLARE trgm text .* END IF; END \$\$;$/ms)
      await admin.query(stdout)
      const driver = pgDriver(admin, { queryTimeoutMs: 30_000 })
      expect((await checkSchemaDrift(driver, { schema })).drift).toEqual([])
      expect(await migrate(driver, { schema })).toEqual({ version: LATEST, applied: [] })
    })

    it('doctor: exits 0 on a schema as the migrations make it, 1 naming a dropped column and a missing index', async () => {
      const schema = fresh()
      await migrate(pgDriver(admin, { queryTimeoutMs: 30_000 }), { schema })
      const cli = harness({ env: { KEYWARD_PG_URL: PG_URL } })
      const healthy = await cli.run('doctor', '--pg-schema', schema)
      expect(healthy).toMatchObject({ code: 0, stderr: '' })
      expect(healthy.stdout).toBe(
        `Schema ${schema} (version ${LATEST}) is what the migrations of version ${LATEST} create: no drift.\n`,
      )
      await admin.query(`ALTER TABLE "${schema}".api_keys DROP COLUMN revoked_reason`)
      await admin.query(`DROP INDEX "${schema}".api_keys_hash_key`)
      await admin.query(`DROP INDEX "${schema}".api_keys_identity_idx`)
      const drifted = await cli.run('doctor', '--pg-url', PG_URL, '--pg-schema', schema)
      expect(drifted.code).toBe(1)
      expect(drifted.stdout.split('\n')).toEqual([
        `Schema ${schema} (version ${LATEST}; expected ${LATEST}): 3 drifts.`,
        `  column ${schema}.api_keys.revoked_reason is missing: expected text`,
        `  index ${schema}.api_keys_hash_key is missing: expected CREATE UNIQUE INDEX api_keys_hash_key ON ${schema}.api_keys USING btree (hash)`,
        `  index ${schema}.api_keys_identity_idx is missing: expected CREATE INDEX api_keys_identity_idx ON ${schema}.api_keys USING btree (identity_id, created_at DESC, id DESC) WHERE (identity_id IS NOT NULL)`,
        '',
      ])
      const json = await cli.run('doctor', '--pg-schema', schema, '--json')
      expect(json.code).toBe(1)
      expect(JSON.parse(json.stdout)).toMatchObject({
        schema,
        version: LATEST,
        drift: [
          { type: 'missing', kind: 'column', object: `${schema}.api_keys.revoked_reason` },
          { type: 'missing', kind: 'index', object: `${schema}.api_keys_hash_key` },
          { type: 'missing', kind: 'index', object: `${schema}.api_keys_identity_idx` },
        ],
      })
    })

    it('doctor: exits 3 when the database cannot be reached, 2 for a PGlite directory', async () => {
      const down = await harness().run('doctor', '--pg-url', 'postgres://postgres@127.0.0.1:1/none')
      expect(down.code).toBe(3)
      expect(down.stderr).toMatch(/^keyward: The database is unavailable: /)
      const pglite = await harness().run('doctor', '--data-dir', '/var/lib/keyward')
      expect(pglite.code).toBe(2)
      expect(pglite.stderr).toContain('keyward doctor checks a PostgreSQL schema')
    })
  },
)
