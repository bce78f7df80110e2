// Schema upgrades, run on every driver: from a real version-1 database holding keys.
import { createKeyward, ErrorType, generateKey, hashKey, keyPrefix } from '@keyward/core'
import { describe, expect, it } from 'vitest'
import { PostgresKeyStore } from '../base.js'
import type { SqlDriver } from '../driver.js'
import { applyMigrations, migrate, SchemaTooNewError } from '../migrate.js'
import { MIGRATIONS, statementsOf } from '../schema.js'
import { uniqueSchema } from './harness.js'

/** A database to upgrade: a driver, and a way to drop what the test made. */
export interface UpgradeTarget {
  readonly driver: SqlDriver
  close(): Promise<void>
}

/** A schema at version 1, made with the released version-1 schema file, holding `count` keys. */
export async function versionOneSchema(driver: SqlDriver, count: number) {
  const schema = uniqueSchema()
  const v1 = MIGRATIONS.find((m) => m.version === 1)!
  for (const statement of statementsOf(v1.sql, schema)) await driver.query(statement)
  const keys: string[] = []
  for (let i = 0; i < count; i++) {
    const key = generateKey()
    keys.push(key)
    await driver.query(
      `INSERT INTO "${schema}".api_keys (id, hash, key_prefix, project_id, name) VALUES ($1, $2, $3, $4, $5)`,
      [crypto.randomUUID(), await hashKey(key), keyPrefix(key), 'proj-v1', `key ${i}`],
    )
  }
  return { schema, keys }
}

const fileNode = async (driver: SqlDriver, schema: string, table = 'api_keys') =>
  (
    await driver.query<{ node: number }>('SELECT pg_relation_filenode($1::regclass)::int AS node', [
      `"${schema}".${table}`,
    ])
  )[0]?.node

export function runSchemaUpgrade(name: string, connect: () => Promise<UpgradeTarget>): void {
  describe(`schema upgrade on ${name}`, () => {
    it('brings a version-1 database holding keys to version 2, then 3 to 6, online: no table rewrite', async () => {
      const { driver, close } = await connect()
      const { schema, keys } = await versionOneSchema(driver, 3)
      try {
        const before = await fileNode(driver, schema)
        expect(await applyMigrations(driver, schema, MIGRATIONS.slice(0, 2))).toEqual({
          version: 2,
          applied: [2],
        })
        expect(await fileNode(driver, schema)).toBe(before)
        expect(await migrate(driver, { schema })).toEqual({
          version: 17,
          applied: [3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17],
        })
        expect(await fileNode(driver, schema)).toBe(before)
        expect(await migrate(driver, { schema })).toEqual({ version: 17, applied: [] })

        const keyward = createKeyward({
          store: new PostgresKeyStore(driver, { schema }),
          trackLastUsed: false,
        })
        const auth = await keyward.authenticate(
          { projectKey: keys[0] },
          { scope: 'project', projectId: 'proj-v1' },
        )
        const listed = await keyward.listKeys({ type: 'project', id: 'proj-v1' })
        expect(listed).toHaveLength(3)
        expect(listed[0]).toMatchObject({ expiresAt: null, lastUsedAt: null, replacedBy: null })
        const rolled = await keyward.rollKey(auth.projectKey.id, { graceSeconds: 0 })
        expect(rolled?.record).toMatchObject({ ownerId: 'proj-v1', name: 'key 0' })
      } finally {
        await driver.query(`DROP SCHEMA "${schema}" CASCADE`)
        await close()
      }
    })

    it('brings a version-3 database holding keys and owners to version 4 (and on) online; its owners can be closed', async () => {
      const { driver, close } = await connect()
      const { schema, keys } = await versionOneSchema(driver, 2)
      try {
        expect(await applyMigrations(driver, schema, MIGRATIONS.slice(0, 3))).toEqual({
          version: 3,
          applied: [2, 3],
        })
        // A developer key issued at version 3, and the developer's row its limit made.
        const developerId = crypto.randomUUID()
        await driver.query(
          `INSERT INTO "${schema}".api_key_owners (owner_type, owner_id) VALUES ('developer', 'dev-v3')`,
        )
        await driver.query(
          `INSERT INTO "${schema}".api_keys (id, hash, key_prefix, developer_id) VALUES ($1, $2, $3, 'dev-v3')`,
          [developerId, await hashKey(generateKey()), 'ak_Ab3xY'],
        )
        const before = await fileNode(driver, schema, 'api_key_owners')
        expect(await migrate(driver, { schema })).toEqual({
          version: 17,
          applied: [4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17],
        })
        expect(await fileNode(driver, schema, 'api_key_owners')).toBe(before)
        expect(await driver.query(`SELECT owner_id, closed_at FROM "${schema}".api_key_owners`)).toEqual([
          { owner_id: 'dev-v3', closed_at: null },
        ])

        const keyward = createKeyward({
          store: new PostgresKeyStore(driver, { schema }),
          trackLastUsed: false,
        })
        // An owner with a row from version 3, and one with none (project keys took no lock then).
        expect(
          (await keyward.deactivateOwnerKeys({ type: 'developer', id: 'dev-v3' })).map((r) => r.id),
        ).toEqual([developerId])
        expect(await keyward.deactivateOwnerKeys({ type: 'project', id: 'proj-v1' })).toHaveLength(2)
        for (const projectKey of keys) {
          await expect(
            keyward.authenticate({ projectKey }, { scope: 'project', projectId: 'proj-v1' }),
          ).rejects.toMatchObject({ type: ErrorType.keyInvalid })
        }
        await expect(keyward.issueProjectKey('proj-v1')).rejects.toMatchObject({ type: ErrorType.notFound })
        await expect(keyward.issueDeveloperKey('dev-v3')).rejects.toMatchObject({ type: ErrorType.notFound })
      } finally {
        await driver.query(`DROP SCHEMA "${schema}" CASCADE`)
        await close()
      }
    })

    it('brings a version-4 database holding keys to version 5 online: old revoked keys read revoked, pages are indexed', async () => {
      const { driver, close } = await connect()
      const { schema, keys } = await versionOneSchema(driver, 3)
      try {
        await applyMigrations(driver, schema, MIGRATIONS.slice(0, 4))
        await driver.query(`UPDATE "${schema}".api_keys SET active = false WHERE hash = $1`, [
          await hashKey(keys[0]!),
        ])
        const before = await fileNode(driver, schema)
        expect(await applyMigrations(driver, schema, MIGRATIONS.slice(0, 5))).toEqual({
          version: 5,
          applied: [5],
        })
        expect(await fileNode(driver, schema)).toBe(before)
        await migrate(driver, { schema })
        const indexes = await driver.query<{ indexname: string }>(
          'SELECT indexname FROM pg_indexes WHERE schemaname = $1 AND indexname LIKE $2 ORDER BY indexname',
          [schema, 'api_keys_%page_idx'],
        )
        expect(indexes.map((row) => row.indexname)).toEqual([
          'api_keys_developer_page_idx',
          'api_keys_project_page_idx',
        ])
        const store = new PostgresKeyStore(driver, { schema })
        const page = await store.listKeysPage({ type: 'project', id: 'proj-v1' }, { limit: 2 })
        const rest = await store.listKeysPage(
          { type: 'project', id: 'proj-v1' },
          { limit: 2, after: page.next! },
        )
        expect([page.records.length, rest.records.length, rest.next]).toEqual([2, 1, null])
        const old = [...page.records, ...rest.records].find((record) => !record.active)
        expect(old).not.toHaveProperty('revokedReason')
        const keyward = createKeyward({ store, trackLastUsed: false })
        expect((await keyward.activateKey(old!.id))?.active).toBe(true)
        expect((await keyward.deactivateKey(old!.id))?.revokedReason).toBe('revoked')
      } finally {
        await driver.query(`DROP SCHEMA "${schema}" CASCADE`)
        await close()
      }
    })

    it('brings a version-10 database holding keys to version 11 online: old keys have no stored limits, new ones keep theirs', async () => {
      const { driver, close } = await connect()
      const { schema, keys } = await versionOneSchema(driver, 1)
      try {
        await applyMigrations(driver, schema, MIGRATIONS.slice(0, 10))
        const before = await fileNode(driver, schema)
        expect(await migrate(driver, { schema })).toEqual({
          version: 17,
          applied: [11, 12, 13, 14, 15, 16, 17],
        })
        expect(await fileNode(driver, schema)).toBe(before)
        const store = new PostgresKeyStore(driver, { schema })
        const keyward = createKeyward({ store, trackLastUsed: false })
        const old = await keyward.authenticate(
          { projectKey: keys[0] },
          { scope: 'project', projectId: 'proj-v1' },
        )
        const oldRecord = await store.findKeyById(old.projectKey.id)
        expect(oldRecord).not.toHaveProperty('ratelimits')
        const limits = [{ name: 'requests', limit: 10, duration: 1000 }]
        expect((await keyward.setKeyPolicies(old.projectKey.id, { ratelimits: limits }))?.ratelimits).toEqual(
          limits,
        )
        const { record } = await keyward.issueProjectKey('proj-v1', { ratelimits: limits })
        expect((await store.findKeyByHash(record.hash))?.ratelimits).toEqual(limits)
      } finally {
        await driver.query(`DROP SCHEMA "${schema}" CASCADE`)
        await close()
      }
    })

    it('brings a version-12 database holding keys to version 13 online: old keys keep their plain hash, new ones name their pepper, a rotation keeps all', async () => {
      const { driver, close } = await connect()
      const { schema, keys } = await versionOneSchema(driver, 1)
      const P1 = { id: 'p1', secret: 'the first pepper of this upgrade test' }
      const P2 = { id: 'p2', secret: 'the second pepper of this upgrade test' }
      try {
        await applyMigrations(driver, schema, MIGRATIONS.slice(0, 12))
        const before = await fileNode(driver, schema)
        expect(await migrate(driver, { schema })).toEqual({ version: 17, applied: [13, 14, 15, 16, 17] })
        expect(await fileNode(driver, schema)).toBe(before)
        const store = new PostgresKeyStore(driver, { schema })
        const first = createKeyward({ store, trackLastUsed: false, hashing: { pepper: [P1] } })
        const peppered = await first.issueProjectKey('proj-v1')
        expect(peppered.record.pepperId).toBe('p1')
        const keyward = createKeyward({ store, trackLastUsed: false, hashing: { pepper: [P1, P2] } })
        const newest = await keyward.issueProjectKey('proj-v1')
        const rows = await driver.query(
          `SELECT hash, pepper_id FROM "${schema}".api_keys WHERE id = ANY($1::uuid[]) ORDER BY pepper_id`,
          [[peppered.record.id, newest.record.id]],
        )
        expect(rows).toEqual([
          { hash: peppered.record.hash, pepper_id: 'p1' },
          { hash: newest.record.hash, pepper_id: 'p2' },
        ])
        expect(rows.map((row) => row.hash)).not.toContain(await hashKey(newest.key))
        const project = { scope: 'project', projectId: 'proj-v1' } as const
        for (const key of [keys[0]!, peppered.key, newest.key]) {
          expect((await keyward.authenticate({ projectKey: key }, project)).projectId).toBe('proj-v1')
        }
        const old = await keyward.authenticate({ projectKey: keys[0] }, project)
        expect(await store.findKeyById(old.projectKey.id)).not.toHaveProperty('pepperId')
        expect((await store.findKeyById(newest.record.id))?.pepperId).toBe('p2')
      } finally {
        await driver.query(`DROP SCHEMA "${schema}" CASCADE`)
        await close()
      }
    })

    it('brings a version-15 database holding an identity to version 16 online: the identity holds no role until given one, and its keys follow its roles', async () => {
      const { driver, close } = await connect()
      const { schema } = await versionOneSchema(driver, 0)
      try {
        await applyMigrations(driver, schema, MIGRATIONS.slice(0, 15))
        // An identity written at version 15, by a release that knew no roles of identities.
        const old = { id: crypto.randomUUID() }
        await driver.query(
          `INSERT INTO "${schema}".identities (id, project_id, external_id) VALUES ($1, 'proj-v1', 'acme')`,
          [old.id],
        )
        const before = await fileNode(driver, schema, 'identities')
        expect(await migrate(driver, { schema })).toEqual({ version: 17, applied: [16, 17] })
        expect(await fileNode(driver, schema, 'identities')).toBe(before)
        const store = new PostgresKeyStore(driver, { schema })
        const permissions = ['billing:read', 'reports:read']
        const keyward = createKeyward({ store, trackLastUsed: false, permissions })
        expect(await keyward.findIdentity(old.id)).not.toHaveProperty('roleIds')
        const billing = await keyward.createRole('proj-v1', {
          name: 'billing',
          permissions: ['billing:read'],
        })
        const { key } = await keyward.issueProjectKey('proj-v1', {
          identityId: old.id,
          permissions: ['reports:read'],
        })
        const billingRead = { scope: 'project', projectId: 'proj-v1', permissions: 'billing:read' } as const
        const allowed = () =>
          keyward.authenticate({ projectKey: key }, billingRead).then(
            () => true,
            () => false,
          )
        expect(await allowed()).toBe(false)
        expect((await keyward.updateIdentity(old.id, { roles: ['billing'] }))?.roleIds).toEqual([billing.id])
        expect(await allowed()).toBe(true)
      } finally {
        await driver.query(`DROP SCHEMA "${schema}" CASCADE`)
        await close()
      }
    })

    it('brings a version-5 database holding keys to version 6 online: old keys have no policies, new ones keep theirs, a change is on the feed', async () => {
      const { driver, close } = await connect()
      const { schema, keys } = await versionOneSchema(driver, 2)
      try {
        await applyMigrations(driver, schema, MIGRATIONS.slice(0, 5))
        const before = await fileNode(driver, schema)
        expect(await migrate(driver, { schema })).toEqual({
          version: 17,
          applied: [6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17],
        })
        expect(await fileNode(driver, schema)).toBe(before)
        const keyward = createKeyward({
          store: new PostgresKeyStore(driver, { schema }),
          trackLastUsed: false,
          permissions: ['reports:read', 'reports:write'],
        })
        const projectId = 'proj-v1'
        const old = await keyward.authenticate(
          { projectKey: keys[0] },
          { scope: 'project', projectId, permissions: { allOf: ['reports:write'] } },
        )
        expect([old.permissions, old.metadata]).toEqual([null, null])
        const updated = await keyward.setKeyPolicies(old.projectKey.id, {
          permissions: ['reports:read'],
          ipAllowlist: ['2001:db8::/32', '198.51.100.0/24'],
          metadata: { plan: 'pro', seats: 3 },
        })
        expect(updated).toMatchObject({
          permissions: ['reports:read'],
          ipAllowlist: ['2001:db8::/32', '198.51.100.0/24'],
          metadata: { plan: 'pro', seats: 3 },
        })
        await expect(
          keyward.authenticate(
            { projectKey: keys[0], address: '::ffff:198.51.100.9' },
            { scope: 'project', projectId, permissions: { allOf: ['reports:write'] } },
          ),
        ).rejects.toMatchObject({
          type: ErrorType.permissionDenied,
          msg: expect.stringContaining('reports:write'),
        })
        await expect(
          keyward.authenticate(
            { projectKey: keys[0], address: '203.0.113.1' },
            { scope: 'project', projectId },
          ),
        ).rejects.toMatchObject({ type: ErrorType.ipNotAllowed, status: 403 })
        // A list written past the service that cannot be read refuses every request (fail closed).
        await driver.query(
          `UPDATE "${schema}".api_keys SET ip_allowlist = '{not-an-address}' WHERE id = $1`,
          [old.projectKey.id],
        )
        await expect(
          keyward.authenticate(
            { projectKey: keys[0], address: '198.51.100.9' },
            { scope: 'project', projectId },
          ),
        ).rejects.toMatchObject({ type: ErrorType.ipNotAllowed })
      } finally {
        await driver.query(`DROP SCHEMA "${schema}" CASCADE`)
        await close()
      }
    })

    it('refuses a database that a newer release migrated, with a clear message', async () => {
      const { driver, close } = await connect()
      const schema = uniqueSchema()
      try {
        await migrate(driver, { schema })
        await driver.query(`INSERT INTO "${schema}".keyward_migrations (version, name) VALUES (99, 'future')`)
        const error = await migrate(driver, { schema }).catch((e: unknown) => e)
        expect(error).toBeInstanceOf(SchemaTooNewError)
        expect(error).toMatchObject({ found: 99, known: 17 })
        expect((error as Error).message).toBe(
          `The Keyward schema "${schema}" is at version 99, newer than this @keyward/postgres knows (version 17). ` +
            'A newer release migrated it; upgrade @keyward/postgres here instead of running an older one against it.',
        )
      } finally {
        await driver.query(`DROP SCHEMA "${schema}" CASCADE`)
        await close()
      }
    })
  })
}
