/**
 * Keyward with Drizzle: a driver that runs the store on the application's Drizzle database or
 * inside one of its transactions (on node-postgres or postgres.js), and the tables of Keyward's
 * schema for Drizzle's query builder and drizzle-kit.
 *
 * @packageDocumentation
 */

import { type SQL, sql } from 'drizzle-orm'
import {
  bigint,
  boolean,
  check,
  index,
  integer,
  jsonb,
  pgSchema,
  primaryKey,
  smallint,
  text,
  timestamp,
  unique,
  uniqueIndex,
  uuid,
} from 'drizzle-orm/pg-core'
import { type ClientDriverOptions, clientDriver, withDates } from './client-driver.js'
import type { SqlDriver, SqlRow } from './driver.js'

export type { ClientDriverOptions } from './client-driver.js'

/** What the driver needs of a Drizzle database or transaction (`PgDatabase`, `PgTransaction`). */
export interface DrizzlePgDatabase {
  execute(query: SQL): PromiseLike<unknown>
  transaction?: unknown
  rollback?: unknown
}

// What `execute` returns: node-postgres's result (`rows`, `fields`), or postgres.js's row list.
type Executed =
  | { rows: SqlRow[]; fields?: { name: string; dataTypeID: number }[] }
  | (SqlRow[] & { columns?: { name: string; type: number }[] })

/**
 * The statement `text` with `$1`-style parameters, as Drizzle's SQL: Drizzle numbers its
 * parameters itself, in order of appearance, so a parameter used twice is sent twice.
 */
function drizzleSql(text: string, params: readonly unknown[]): SQL {
  const parts = text.split(/\$(\d+)/)
  return sql.join(parts.map((part, i) => (i % 2 === 0 ? sql.raw(part) : sql.param(params[Number(part) - 1]))))
}

/** Rows with their dates as `Date`s, from either client under Drizzle. */
function rowsOf(result: Executed): SqlRow[] {
  if (Array.isArray(result)) return withDates([...result], result.columns)
  return withDates(
    result.rows,
    result.fields?.map((field) => ({ name: field.name, type: field.dataTypeID })),
  )
}

/**
 * A {@link SqlDriver} over Drizzle on node-postgres (`drizzle-orm/node-postgres`) or postgres.js
 * (`drizzle-orm/postgres-js`): it runs Keyward's statements through `db.execute`, whichever
 * client is underneath. Given the database, it opens transactions of its own
 * (`db.transaction`), bounded on the server by `SET LOCAL statement_timeout`; given a
 * transaction (`tx` of `db.transaction`), everything the store does joins it: the key commits
 * with the application's rows, or neither does. Drizzle cannot cancel a statement: one alone
 * that outlives `queryTimeoutMs` is abandoned (`QueryTimeoutError`) and runs on until it ends.
 *
 * @example
 * ```ts
 * import { createKeyward } from '@keyward/core'
 * import { PostgresKeyStore } from '@keyward/postgres'
 * import { drizzleDriver } from '@keyward/postgres/drizzle'
 *
 * const { key } = await db.transaction(async (tx) => {
 *   await tx.insert(projects).values({ id, name })
 *   const store = new PostgresKeyStore(drizzleDriver(tx))
 *   return createKeyward({ store }).issueProjectKey(id, { name: 'default' })
 * })
 * ```
 */
export function drizzleDriver(db: DrizzlePgDatabase, options: ClientDriverOptions = {}): SqlDriver {
  const who = 'drizzleDriver'
  if (typeof db?.execute !== 'function') {
    throw new TypeError(`${who}: expected a Drizzle PostgreSQL database or transaction.`)
  }
  // A transaction has `rollback`; the database has none.
  const joined = typeof db.rollback === 'function'
  if (!joined && typeof db.transaction !== 'function') {
    throw new TypeError(`${who}: expected a Drizzle PostgreSQL database or transaction.`)
  }
  type Transactional = {
    transaction<T>(fn: (tx: DrizzlePgDatabase) => Promise<T>, config?: object): Promise<T>
  }
  return clientDriver<DrizzlePgDatabase>(
    who,
    db,
    {
      query: (on, text, params) => ({
        rows: Promise.resolve(on.execute(drizzleSql(text, params))).then((result) =>
          rowsOf(result as Executed),
        ),
      }),
      transaction: joined
        ? undefined
        : <T>(fn: (tx: DrizzlePgDatabase) => Promise<T>) =>
            (db as unknown as Transactional).transaction(fn, { isolationLevel: 'read committed' }),
    },
    options,
  )
}

/**
 * Keyward's tables as Drizzle tables, in the SQL schema `schema` (default `keyward`): for
 * queries and joins of your own, and so that drizzle-kit, which compares your schema module with
 * the database, knows them. They are what Keyward's migrations create at the current version
 * (a test compares the two). drizzle-kit cannot create the change feed's triggers and functions:
 * apply Keyward's migrations with `migrate()` or `keyward schema sql`, and keep drizzle-kit off
 * the schema (`schemaFilter`) or let it find the tables already there.
 *
 * @example
 * ```ts
 * // drizzle/schema.ts, the module drizzle-kit reads
 * export { apiKeyOwners, apiKeys, identities, keywardMigrations } from '@keyward/postgres/drizzle'
 *
 * // A join of your own: a project's active keys.
 * const keys = await db.select().from(apiKeys).where(and(eq(apiKeys.projectId, id), eq(apiKeys.active, true)))
 * ```
 */
export function keywardTables(schema = 'keyward') {
  const keyward = pgSchema(schema)
  const at = (name: string) => timestamp(name, { withTimezone: true })
  const keywardMigrations = keyward.table('keyward_migrations', {
    version: integer('version').primaryKey(),
    name: text('name').notNull(),
    appliedAt: at('applied_at').notNull().defaultNow(),
  })
  const apiKeys = keyward.table(
    'api_keys',
    {
      id: uuid('id').primaryKey(),
      hash: text('hash').notNull(),
      keyPrefix: text('key_prefix').notNull(),
      developerId: text('developer_id'),
      projectId: text('project_id'),
      name: text('name'),
      active: boolean('active').notNull().default(true),
      createdAt: at('created_at').notNull().defaultNow(),
      expiresAt: at('expires_at'),
      lastUsedAt: at('last_used_at'),
      replacedBy: uuid('replaced_by'),
      revokedReason: text('revoked_reason').$type<'leaked' | 'revoked'>(),
      ipAllowlist: text('ip_allowlist').array(),
      permissions: text('permissions').array(),
      metadata: jsonb('metadata').$type<Record<string, unknown>>(),
      remaining: bigint('remaining', { mode: 'number' }),
      refillAmount: bigint('refill_amount', { mode: 'number' }),
      refillInterval: text('refill_interval').$type<'daily' | 'monthly'>(),
      refillDay: smallint('refill_day'),
      refilledAt: at('refilled_at'),
      identityId: uuid('identity_id'),
      ratelimits: jsonb('ratelimits').$type<{ name: string; limit: number; duration: number }[]>(),
      pepperId: text('pepper_id'),
      roleIds: uuid('role_ids').array(),
      creditsLowAt: jsonb('credits_low_at').$type<{ remaining: number } | { percent: number }>(),
      refillDueAt: at('refill_due_at'),
    },
    (t) => [
      check('api_keys_hash_check', sql`hash ~ '^[0-9a-f]{64}$'`),
      check('api_keys_key_prefix_check', sql`char_length(key_prefix) = 8`),
      check('api_keys_one_owner', sql`(developer_id IS NULL) <> (project_id IS NULL)`),
      check('api_keys_remaining_check', sql`remaining >= 0`),
      uniqueIndex('api_keys_hash_key').on(t.hash),
      index('api_keys_developer_idx').on(t.developerId, t.createdAt).where(sql`developer_id IS NOT NULL`),
      index('api_keys_project_idx').on(t.projectId, t.createdAt).where(sql`project_id IS NOT NULL`),
      // DESC is NULLS FIRST in PostgreSQL, as the migration leaves it; drizzle-kit would write NULLS LAST.
      index('api_keys_developer_page_idx')
        .on(t.developerId, t.createdAt.desc().nullsFirst(), t.id.desc().nullsFirst())
        .where(sql`developer_id IS NOT NULL`),
      index('api_keys_project_page_idx')
        .on(t.projectId, t.createdAt.desc().nullsFirst(), t.id.desc().nullsFirst())
        .where(sql`project_id IS NOT NULL`),
      index('api_keys_identity_idx')
        .on(t.identityId, t.createdAt.desc().nullsFirst(), t.id.desc().nullsFirst())
        .where(sql`identity_id IS NOT NULL`),
      // Version 12: a project's keys by prefix, by status and by expiry. The trigram index on
      // `name` is left out: the migration makes it only where pg_trgm is installed.
      index('api_keys_project_prefix_idx')
        .on(t.projectId, t.keyPrefix.op('text_pattern_ops'))
        .where(sql`project_id IS NOT NULL`),
      index('api_keys_project_status_idx')
        .on(t.projectId, t.active, t.createdAt.desc().nullsFirst(), t.id.desc().nullsFirst())
        .where(sql`project_id IS NOT NULL`),
      index('api_keys_project_expiry_idx')
        .on(t.projectId, t.expiresAt)
        .where(sql`project_id IS NOT NULL AND active AND expires_at IS NOT NULL`),
      index('api_keys_role_ids_idx').using('gin', t.roleIds).where(sql`role_ids IS NOT NULL`),
      index('api_keys_refill_due_idx')
        .on(t.refillDueAt)
        .where(sql`refill_amount IS NOT NULL AND remaining IS NOT NULL`),
      // Version 17: the expiry scheduler's scan, by expiry across every owner.
      index('api_keys_expiry_scan_idx')
        .on(t.expiresAt)
        .where(sql`active AND replaced_by IS NULL AND expires_at IS NOT NULL`),
    ],
  )
  const roles = keyward.table(
    'roles',
    {
      id: uuid('id').primaryKey(),
      projectId: text('project_id').notNull(),
      name: text('name').notNull(),
      permissions: text('permissions').array(),
      createdAt: at('created_at').notNull().defaultNow(),
      updatedAt: at('updated_at').notNull().defaultNow(),
    },
    (t) => [
      check('roles_name_check', sql`char_length(name) >= 1 AND char_length(name) <= 100`),
      uniqueIndex('roles_project_name_key').on(t.projectId, t.name),
      index('roles_project_page_idx').on(
        t.projectId,
        t.createdAt.desc().nullsFirst(),
        t.id.desc().nullsFirst(),
      ),
    ],
  )
  const identities = keyward.table(
    'identities',
    {
      id: uuid('id').primaryKey(),
      projectId: text('project_id').notNull(),
      externalId: text('external_id').notNull(),
      metadata: jsonb('metadata').$type<Record<string, unknown>>(),
      ratelimits: jsonb('ratelimits')
        .notNull()
        .default(sql`'[]'::jsonb`)
        .$type<{ name: string; limit: number; duration: number }[]>(),
      remaining: bigint('remaining', { mode: 'number' }),
      refillAmount: bigint('refill_amount', { mode: 'number' }),
      refillInterval: text('refill_interval').$type<'daily' | 'monthly'>(),
      refillDay: smallint('refill_day'),
      refilledAt: at('refilled_at'),
      createdAt: at('created_at').notNull().defaultNow(),
      updatedAt: at('updated_at').notNull().defaultNow(),
      roleIds: uuid('role_ids').array(),
      creditsLowAt: jsonb('credits_low_at').$type<{ remaining: number } | { percent: number }>(),
      refillDueAt: at('refill_due_at'),
    },
    (t) => [
      check(
        'identities_external_id_check',
        sql`char_length(external_id) >= 1 AND char_length(external_id) <= 255`,
      ),
      check('identities_remaining_check', sql`remaining >= 0`),
      uniqueIndex('identities_project_external_id_key').on(t.projectId, t.externalId),
      index('identities_project_page_idx').on(
        t.projectId,
        t.createdAt.desc().nullsFirst(),
        t.id.desc().nullsFirst(),
      ),
      index('identities_role_ids_idx').using('gin', t.roleIds).where(sql`role_ids IS NOT NULL`),
      index('identities_refill_due_idx')
        .on(t.refillDueAt)
        .where(sql`refill_amount IS NOT NULL AND remaining IS NOT NULL`),
    ],
  )
  const apiKeyOwners = keyward.table(
    'api_key_owners',
    {
      ownerType: text('owner_type').notNull().$type<'developer' | 'project'>(),
      ownerId: text('owner_id').notNull(),
      closedAt: at('closed_at'),
    },
    (t) => [
      primaryKey({ name: 'api_key_owners_pkey', columns: [t.ownerType, t.ownerId] }),
      check('api_key_owners_owner_type_check', sql`owner_type IN ('developer', 'project')`),
    ],
  )
  const keyUsage = keyward.table(
    'key_usage',
    {
      granularity: text('granularity').notNull().$type<'minute' | 'hour' | 'day'>(),
      bucket: at('bucket').notNull(),
      keyId: text('key_id').notNull(),
      ownerType: text('owner_type').notNull(),
      ownerId: text('owner_id').notNull(),
      outcome: text('outcome').notNull(),
      route: text('route').notNull(),
      address: text('address').notNull(),
      count: bigint('count', { mode: 'number' }).notNull(),
    },
    (t) => [
      primaryKey({
        name: 'key_usage_pkey',
        columns: [t.granularity, t.bucket, t.keyId, t.outcome, t.route, t.address],
      }),
      check('key_usage_granularity_check', sql`granularity IN ('minute', 'hour', 'day')`),
      index('key_usage_owner_idx').on(t.ownerType, t.ownerId, t.bucket).where(sql`key_id <> ''`),
    ],
  )
  const auditLog = keyward.table(
    'audit_log',
    {
      seq: bigint('seq', { mode: 'number' }).primaryKey(),
      at: at('at').notNull(),
      action: text('action').notNull(),
      actor: jsonb('actor').notNull().$type<Record<string, unknown>>(),
      clientAddress: text('client_address'),
      requestId: text('request_id'),
      developerId: text('developer_id'),
      projectId: text('project_id'),
      targetType: text('target_type').notNull(),
      targetId: text('target_id').notNull(),
      before: jsonb('before').$type<Record<string, unknown>>(),
      after: jsonb('after').$type<Record<string, unknown>>(),
      previousHash: text('previous_hash').notNull(),
      hash: text('hash').notNull(),
    },
    (t) => [
      index('audit_log_developer_idx').on(t.developerId, t.seq.desc().nullsFirst()),
      index('audit_log_project_idx')
        .on(t.projectId, t.seq.desc().nullsFirst())
        .where(sql`project_id IS NOT NULL`),
      index('audit_log_key_idx').on(t.targetId, t.seq.desc().nullsFirst()).where(sql`target_type = 'key'`),
    ],
  )
  const auditChain = keyward.table(
    'audit_chain',
    {
      id: smallint('id').primaryKey(),
      seq: bigint('seq', { mode: 'number' }).notNull(),
      hash: text('hash').notNull(),
      startSeq: bigint('start_seq', { mode: 'number' }).notNull(),
      startHash: text('start_hash').notNull(),
    },
    () => [check('audit_chain_id_check', sql`id = 1`)],
  )
  const webhookEndpoints = keyward.table(
    'webhook_endpoints',
    {
      id: uuid('id').primaryKey(),
      developerId: text('developer_id').notNull(),
      url: text('url').notNull(),
      description: text('description'),
      projectIds: text('project_ids').array(),
      eventTypes: text('event_types').array(),
      secret: text('secret').notNull(),
      previousSecret: text('previous_secret'),
      previousSecretExpiresAt: at('previous_secret_expires_at'),
      failingSince: at('failing_since'),
      disabledAt: at('disabled_at'),
      createdAt: at('created_at').notNull().defaultNow(),
      updatedAt: at('updated_at').notNull().defaultNow(),
    },
    (t) => [index('webhook_endpoints_developer_idx').on(t.developerId, t.createdAt)],
  )
  const webhookEvents = keyward.table(
    'webhook_events',
    {
      id: text('id').primaryKey(),
      type: text('type').notNull(),
      developerId: text('developer_id').notNull(),
      projectId: text('project_id'),
      data: jsonb('data').notNull().$type<Record<string, unknown>>(),
      createdAt: at('created_at').notNull(),
      fannedOut: boolean('fanned_out').notNull().default(false),
    },
    (t) => [index('webhook_events_pending_idx').on(t.createdAt).where(sql`NOT fanned_out`)],
  )
  const webhookDeliveries = keyward.table(
    'webhook_deliveries',
    {
      id: uuid('id').primaryKey().defaultRandom(),
      eventId: text('event_id').notNull(),
      endpointId: uuid('endpoint_id').notNull(),
      state: text('state').notNull().default('pending').$type<'pending' | 'delivered' | 'failed'>(),
      attempts: integer('attempts').notNull().default(0),
      dueAt: at('due_at').notNull(),
      createdAt: at('created_at').notNull(),
    },
    (t) => [
      unique('webhook_deliveries_event_id_endpoint_id_key').on(t.eventId, t.endpointId),
      check('webhook_deliveries_state_check', sql`state IN ('pending', 'delivered', 'failed')`),
      index('webhook_deliveries_due_idx').on(t.dueAt).where(sql`state = 'pending'`),
    ],
  )
  const webhookAttempts = keyward.table(
    'webhook_attempts',
    {
      id: uuid('id').primaryKey(),
      deliveryId: uuid('delivery_id').notNull(),
      eventId: text('event_id').notNull(),
      eventType: text('event_type').notNull(),
      endpointId: uuid('endpoint_id').notNull(),
      at: at('at').notNull(),
      status: integer('status'),
      durationMs: integer('duration_ms').notNull(),
      response: text('response').notNull(),
    },
    (t) => [
      index('webhook_attempts_endpoint_idx').on(t.endpointId, t.at.desc().nullsFirst()),
      index('webhook_attempts_at_idx').on(t.at),
    ],
  )
  return {
    keyward,
    keywardMigrations,
    apiKeys,
    apiKeyOwners,
    keyUsage,
    auditLog,
    auditChain,
    identities,
    roles,
    webhookEndpoints,
    webhookEvents,
    webhookDeliveries,
    webhookAttempts,
  }
}

const tables = keywardTables()

/**
 * The SQL schema `keyward` as Drizzle's `pgSchema`.
 *
 * @example
 * ```ts
 * export default defineConfig({ schemaFilter: ['public'] }) // drizzle-kit leaves `keyward` to Keyward
 * ```
 */
export const keyward = tables.keyward

/**
 * `keyward.api_keys`: one row per issued key (its SHA-256 and prefix, never the key).
 *
 * @example
 * ```ts
 * const [{ count }] = await db.select({ count: count() }).from(apiKeys).where(eq(apiKeys.active, true))
 * ```
 */
export const apiKeys = tables.apiKeys

/**
 * `keyward.api_key_owners`: the row each owner's creations lock, and when it was closed.
 *
 * @example
 * ```ts
 * const closed = await db.select().from(apiKeyOwners).where(isNotNull(apiKeyOwners.closedAt))
 * ```
 */
export const apiKeyOwners = tables.apiKeyOwners

/**
 * `keyward.keyward_migrations`: which versions of Keyward's schema are applied.
 *
 * @example
 * ```ts
 * const [latest] = await db.select().from(keywardMigrations).orderBy(desc(keywardMigrations.version)).limit(1)
 * ```
 */
export const keywardMigrations = tables.keywardMigrations

/**
 * The table `keyward.key_usage` (usage counts per bucket, key and outcome), for reading them
 * with Drizzle.
 *
 * @example
 * ```ts
 * const rows = await db.select().from(keyUsage).where(eq(keyUsage.keyId, keyId))
 * ```
 */
export const keyUsage = tables.keyUsage

/**
 * The table `keyward.audit_log` (the append-only, hash-chained audit log), for reading it with
 * Drizzle. Keyward appends to it; a trigger refuses updates and deletes.
 *
 * @example
 * ```ts
 * const rows = await db.select().from(auditLog).where(eq(auditLog.developerId, developerId))
 * ```
 */
export const auditLog = tables.auditLog

/**
 * The table `keyward.identities` (a project's customers, whose keys share rate limits and a
 * credit pool, and hold roles by id in `role_ids` since schema version 16), for reading it with
 * Drizzle and joining it to `api_keys.identity_id`. Write identities through Keyward: it keeps the
 * change feed and the audit log.
 *
 * @example
 * ```ts
 * const keys = await db.select().from(apiKeys).innerJoin(identities, eq(apiKeys.identityId, identities.id))
 * ```
 */
export const identities = tables.identities

/**
 * The table `keyward.roles` (a project's named sets of permissions, schema version 14), which
 * keys hold by id in `api_keys.role_ids`, and identities in `identities.role_ids`. Read it
 * freely; write roles through Keyward: it keeps the change feed and the audit log.
 *
 * @example
 * ```ts
 * const billing = await db.select().from(roles).where(and(eq(roles.projectId, id), eq(roles.name, 'billing')))
 * ```
 */
export const roles = tables.roles

/**
 * The webhook tables of schema version 15: `webhook_endpoints` (a developer's endpoints and
 * their signing secrets), `webhook_events` (the outbox), `webhook_deliveries` and
 * `webhook_attempts` (the delivery log), for reading them with Drizzle. Write them through
 * Keyward: the outbox is written with the audit rows, and deliveries are claimed under locks.
 *
 * @example
 * ```ts
 * const failing = await db.select().from(webhookEndpoints).where(isNotNull(webhookEndpoints.failingSince))
 * ```
 */
export const webhookEndpoints = tables.webhookEndpoints
/** `keyward.webhook_events`: the outbox, one row per event. See {@link webhookEndpoints}. */
export const webhookEvents = tables.webhookEvents
/** `keyward.webhook_deliveries`: one row per event and endpoint. See {@link webhookEndpoints}. */
export const webhookDeliveries = tables.webhookDeliveries
/** `keyward.webhook_attempts`: the delivery log, kept 30 days. See {@link webhookEndpoints}. */
export const webhookAttempts = tables.webhookAttempts
