// What the Postgres store does beyond the KeyStore conformance suite, run on every driver.
import { createKeyward, ErrorType, type KeyRecord } from '@keyward/core'
import { afterEach, describe, expect, it } from 'vitest'
import { migrate } from '../migrate.js'
import { runAuditScenarios } from './audit-scenarios.js'
import { creditEventScenarios } from './credit-event-scenarios.js'
import type { Harness } from './harness.js'
import { identityScenarios } from './identity-scenarios.js'
import { webhookScenarios } from './webhook-scenarios.js'

const record = (overrides: Partial<KeyRecord> = {}): KeyRecord => ({
  id: crypto.randomUUID(),
  hash: Array.from(crypto.getRandomValues(new Uint8Array(32)), (b) => b.toString(16).padStart(2, '0')).join(
    '',
  ),
  keyPrefix: 'ak_Ab3xY',
  ownerType: 'developer',
  ownerId: `dev-${crypto.randomUUID()}`,
  name: null,
  active: true,
  createdAt: new Date('2025-01-02T03:04:05.678Z'),
  expiresAt: null,
  lastUsedAt: null,
  replacedBy: null,
  ...overrides,
})

export function runPostgresScenarios(name: string, makeHarness: () => Promise<Harness>): void {
  runAuditScenarios(name, makeHarness)
  describe(`PostgresKeyStore on ${name}`, () => {
    const open: Harness[] = []
    const make = async () => {
      const harness = await makeHarness()
      open.push(harness)
      return harness
    }
    afterEach(async () => {
      for (const harness of open.splice(0)) await harness.close()
    })

    identityScenarios(make)
    webhookScenarios(make)
    creditEventScenarios(make)

    it('keeps keys in snake_case columns: key_prefix, developer_id or project_id, timestamptz', async () => {
      const { store, sql, schema } = await make()
      const developerKey = record({ name: 'laptop' })
      const projectKey = record({
        ownerType: 'project',
        ownerId: 'proj-1',
        ipAllowlist: ['10.0.0.0/8', '::1'],
        permissions: ['reports:read'],
        metadata: { plan: 'pro', 'quoted "key"': [1, 'two'] },
        remaining: 5,
        refill: { amount: 100, interval: 'monthly', day: 31 },
        refilledAt: new Date('2027-01-31T00:00:00Z'),
        ratelimits: [{ name: 'requests', limit: 10, duration: 1000 }],
      })
      await store.insertKey(developerKey, 10)
      await store.insertKey(projectKey)
      const rows = await sql<Record<string, unknown>>(
        `SELECT * FROM "${schema}".api_keys ORDER BY developer_id NULLS LAST`,
      )
      expect(rows).toEqual([
        {
          id: developerKey.id,
          hash: developerKey.hash,
          key_prefix: 'ak_Ab3xY',
          developer_id: developerKey.ownerId,
          project_id: null,
          name: 'laptop',
          active: true,
          created_at: developerKey.createdAt,
          expires_at: null,
          last_used_at: null,
          replaced_by: null,
          revoked_reason: null,
          ip_allowlist: null,
          permissions: null,
          metadata: null,
          remaining: null,
          refill_amount: null,
          refill_interval: null,
          refill_day: null,
          refilled_at: null,
          identity_id: null,
          ratelimits: null,
          pepper_id: null,
          role_ids: null,
          credits_low_at: null,
          refill_due_at: null,
        },
        expect.objectContaining({
          id: projectKey.id,
          developer_id: null,
          project_id: 'proj-1',
          ip_allowlist: ['10.0.0.0/8', '::1'],
          permissions: ['reports:read'],
          metadata: { plan: 'pro', 'quoted "key"': [1, 'two'] },
          ratelimits: [{ name: 'requests', limit: 10, duration: 1000 }],
          refill_interval: 'monthly',
          refill_day: 31,
          refilled_at: new Date('2027-01-31T00:00:00Z'),
        }),
      ])
      expect(await store.findKeyByHash(projectKey.hash)).toEqual(projectKey)
    })

    it('has a unique index on the hash and indexes for listing by owner', async () => {
      const { sql, schema } = await make()
      const indexes = await sql<{ indexname: string; indexdef: string }>(
        'SELECT indexname, indexdef FROM pg_indexes WHERE schemaname = $1 AND tablename = $2 ORDER BY indexname',
        [schema, 'api_keys'],
      )
      const byName = Object.fromEntries(indexes.map((i) => [i.indexname, i.indexdef]))
      expect(byName.api_keys_hash_key).toMatch(/^CREATE UNIQUE INDEX .* \(hash\)$/)
      expect(byName.api_keys_developer_idx).toMatch(
        /\(developer_id, created_at\) WHERE \(developer_id IS NOT NULL\)/,
      )
      expect(byName.api_keys_project_idx).toMatch(
        /\(project_id, created_at\) WHERE \(project_id IS NOT NULL\)/,
      )
    })

    it('refuses rows that could hold a key: a prefix longer than 8, a hash that is not SHA-256 hex', async () => {
      const { store } = await make()
      const key = `ak_${'a'.repeat(32)}`
      await expect(store.insertKey(record({ keyPrefix: key }))).rejects.toThrow(/check constraint/)
      await expect(store.insertKey(record({ hash: key }))).rejects.toThrow(/check constraint/)
    })

    it('answers null, not an error, for an id that is not a UUID', async () => {
      const { store } = await make()
      expect(await store.findKeyById('not-a-uuid')).toBeNull()
      expect(await store.setKeyActive('not-a-uuid', true, 10)).toBeNull()
      expect(await store.setKeyActive('not-a-uuid', false)).toBeNull()
    })

    it('commits your SQL and a key together in store.transaction, or neither', async () => {
      const { store, sql, schema } = await make()
      const projects = `"${schema}".projects`
      await store.query(`CREATE TABLE ${projects} (id text PRIMARY KEY, name text NOT NULL)`)

      const issued = await store.transaction(async (tx) => {
        await tx.query(`INSERT INTO ${projects} (id, name) VALUES ($1, $2)`, ['p1', 'one'])
        return createKeyward({ store: tx.store }).issueProjectKey('p1', { name: 'default' })
      })
      expect(await store.query(`SELECT id, name FROM ${projects}`)).toEqual([{ id: 'p1', name: 'one' }])
      const auth = await createKeyward({ store }).authenticate(
        { projectKey: issued.key },
        { scope: 'project', projectId: 'p1' },
      )
      expect(auth.projectKey.id).toBe(issued.record.id)

      const failure = new Error('the host changed its mind')
      await expect(
        store.transaction(async (tx) => {
          await tx.query(`INSERT INTO ${projects} (id, name) VALUES ($1, $2)`, ['p2', 'two'])
          await tx.store.insertKey(record({ ownerType: 'project', ownerId: 'p2' }))
          throw failure
        }),
      ).rejects.toBe(failure)
      expect(await sql(`SELECT id FROM ${projects} WHERE id = 'p2'`)).toEqual([])
      expect(await store.listKeysByOwner({ type: 'project', id: 'p2' })).toEqual([])
    })

    it('enforces the limit inside a host transaction, which stays usable after a refusal', async () => {
      const { store } = await make()
      const developer = `dev-${crypto.randomUUID()}`
      const outcome = await store.transaction(async (tx) => {
        const keyward = createKeyward({ store: tx.store, developerKeyLimit: 2 })
        await keyward.issueDeveloperKey(developer)
        await keyward.issueDeveloperKey(developer)
        const refused = await keyward.issueDeveloperKey(developer).catch((error: unknown) => error)
        const [{ n }] = (await tx.query<{ n: number }>('SELECT 1 AS n')) as [{ n: number }]
        return { refused, n }
      })
      expect(outcome.refused).toMatchObject({ type: ErrorType.limitExceeded, status: 409 })
      expect(outcome.n).toBe(1)
      expect(await store.listKeysByOwner({ type: 'developer', id: developer })).toHaveLength(2)
    })

    it("closes an owner inside a host transaction: with the host's own deletion, or not at all", async () => {
      const { store, sql, schema } = await make()
      const project = `proj-${crypto.randomUUID()}`
      const keyward = createKeyward({ store })
      const { record } = await keyward.issueProjectKey(project)

      const failure = new Error('the host changed its mind')
      await expect(
        store.transaction(async (tx) => {
          await createKeyward({ store: tx.store }).deactivateOwnerKeys({ type: 'project', id: project })
          throw failure
        }),
      ).rejects.toBe(failure)
      expect((await store.findKeyById(record.id))?.active).toBe(true)
      expect((await keyward.issueProjectKey(project)).record.active).toBe(true)

      const deactivated = await store.transaction((tx) =>
        createKeyward({ store: tx.store }).deactivateOwnerKeys({ type: 'project', id: project }),
      )
      expect(deactivated).toHaveLength(2)
      const owners = await sql<{ owner_type: string; closed: boolean }>(
        `SELECT owner_type, closed_at IS NOT NULL AS closed FROM "${schema}".api_key_owners WHERE owner_id = $1`,
        [project],
      )
      expect(owners).toEqual([{ owner_type: 'project', closed: true }])
      await expect(keyward.issueProjectKey(project)).rejects.toMatchObject({ type: ErrorType.notFound })
    })

    it('pages from a cursor whose id is not a UUID without an error, in the same order', async () => {
      const { store } = await make()
      const owner = { type: 'project', id: `proj-${crypto.randomUUID()}` } as const
      const at = new Date('2025-01-02T03:04:05.678Z')
      const ids = []
      for (let i = 0; i < 3; i++)
        ids.push(
          (await store.insertKey(record({ ownerType: 'project', ownerId: owner.id, createdAt: at }))).id,
        )
      // 'g' sorts after every hex digit: the whole instant comes after it, as text compares.
      const page = await store.listKeysPage(owner, { limit: 10, after: { createdAt: at, id: 'g' } })
      expect(page.records.map((r) => r.id)).toEqual([...ids].sort().reverse())
      const none = await store.listKeysPage(owner, { limit: 10, after: { createdAt: at, id: '0' } })
      expect(none).toEqual({ records: [], next: null })
    })

    it('migrate() is idempotent and records the version once', async () => {
      const { driver, sql, schema } = await make()
      expect(await migrate(driver, { schema })).toEqual({ version: 17, applied: [] })
      expect(await sql(`SELECT version, name FROM "${schema}".keyward_migrations ORDER BY version`)).toEqual([
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
      ])
    })
  })
}
