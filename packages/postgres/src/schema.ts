import auditLogSql from './audit-log.sql?raw'
import changeFeedSql from './change-feed.sql?raw'
import closedOwnersSql from './closed-owners.sql?raw'
import creditEventsSql from './credit-events.sql?raw'
import creditsSql from './credits.sql?raw'
import identitiesSql from './identities.sql?raw'
import identityRolesSql from './identity-roles.sql?raw'
import keyPagesSql from './key-pages.sql?raw'
import keyPepperSql from './key-pepper.sql?raw'
import keyPoliciesSql from './key-policies.sql?raw'
import keyRatelimitsSql from './key-ratelimits.sql?raw'
import keySearchSql from './key-search.sql?raw'
import keyUsageSql from './key-usage.sql?raw'
import rolesSql from './roles.sql?raw'
import schemaV1Sql from './schema.sql?raw'
import schemaV2Sql from './schema-v2.sql?raw'
import webhooksSql from './webhooks.sql?raw'

/**
 * The SQL of Keyward's tables at the current schema version (17, in the schema `keyward`):
 * version 1 as shipped in `dist/schema.sql` of the package, then version 2 (the key
 * lifecycle) as shipped in `dist/schema-v2.sql`, then version 3 (the change feed) as shipped
 * in `dist/change-feed.sql`, then version 4 (closed owners) as shipped in
 * `dist/closed-owners.sql`, then version 5 (paged listings, the reason of a revocation) as
 * shipped in `dist/key-pages.sql`, then version 6 (access policies) as shipped in
 * `dist/key-policies.sql`, then version 7 (credits) as shipped in `dist/credits.sql`, version 8
 * (usage counts) as shipped in `dist/key-usage.sql`, version 9 (the audit log) as shipped in
 * `dist/audit-log.sql`, version 10 (identities) as shipped in `dist/identities.sql`, version 11
 * (stored rate limits of keys) as shipped in `dist/key-ratelimits.sql`, version 12 (indexed
 * search of listings) as shipped in `dist/key-search.sql`, version 13 (the pepper of a key's
 * hash) as shipped in `dist/key-pepper.sql`, version 14 (roles) as shipped in `dist/roles.sql`,
 * version 15 (webhooks) as shipped in `dist/webhooks.sql`, version 16 (the roles of
 * identities) as shipped in `dist/identity-roles.sql` and version 17 (credit events) as shipped
 * in `dist/credit-events.sql`. Readable,
 * idempotent, ready for `psql -f` or your own migration tool. {@link migrate} applies the same statements.
 *
 * @example
 * ```ts
 * import { SCHEMA_SQL } from '@keyward/postgres'
 * await writeFile('migrations/001_keyward.sql', SCHEMA_SQL)
 * ```
 */
export const SCHEMA_SQL: string = [
  schemaV1Sql,
  schemaV2Sql,
  changeFeedSql,
  closedOwnersSql,
  keyPagesSql,
  keyPoliciesSql,
  creditsSql,
  keyUsageSql,
  auditLogSql,
  identitiesSql,
  keyRatelimitsSql,
  keySearchSql,
  keyPepperSql,
  rolesSql,
  webhooksSql,
  identityRolesSql,
  creditEventsSql,
].join('\n')

/**
 * The SQL of schema version 3, the change feed: a trigger that sends a notification on the
 * channel {@link CHANGE_CHANNEL} for every write to a key record that verification reads (not
 * for a key's last use), in the writing transaction. Shipped as `dist/change-feed.sql`; apply
 * it after `schema.sql` and `schema-v2.sql` if you migrate with your own tool.
 *
 * @example
 * ```ts
 * import { CHANGE_FEED_SQL } from '@keyward/postgres'
 * await writeFile('migrations/003_keyward_change_feed.sql', CHANGE_FEED_SQL)
 * ```
 */
export const CHANGE_FEED_SQL: string = changeFeedSql

/**
 * The SQL of schema version 4, closed owners: the column `closed_at` of `api_key_owners`, which
 * `deactivateOwnerKeys` (deleting a project or a developer) writes and every creation checks
 * under the owner's row lock. Shipped as `dist/closed-owners.sql`; apply it after
 * `change-feed.sql` if you migrate with your own tool.
 *
 * @example
 * ```ts
 * import { CLOSED_OWNERS_SQL } from '@keyward/postgres'
 * await writeFile('migrations/004_keyward_closed_owners.sql', CLOSED_OWNERS_SQL)
 * ```
 */
export const CLOSED_OWNERS_SQL: string = closedOwnersSql

/**
 * The SQL of schema version 5, paged listings: the column `revoked_reason` of `api_keys` (why a
 * key was deactivated) and the indexes on (owner, created_at DESC, id DESC) that serve one page
 * of an owner's keys with one index scan. Shipped as `dist/key-pages.sql`; apply it after
 * `closed-owners.sql` if you migrate with your own tool.
 *
 * @example
 * ```ts
 * import { KEY_PAGES_SQL } from '@keyward/postgres'
 * await writeFile('migrations/005_keyward_key_pages.sql', KEY_PAGES_SQL)
 * ```
 */
export const KEY_PAGES_SQL: string = keyPagesSql

/**
 * The SQL of schema version 6, access policies: the columns `ip_allowlist`, `permissions` and
 * `metadata` of `api_keys`, and the change feed's trigger on them, so that a change of a key's
 * policies reaches every process's cache. Shipped as `dist/key-policies.sql`; apply it after
 * `key-pages.sql` if you migrate with your own tool.
 *
 * @example
 * ```ts
 * import { KEY_POLICIES_SQL } from '@keyward/postgres'
 * await writeFile('migrations/006_keyward_key_policies.sql', KEY_POLICIES_SQL)
 * ```
 */
export const KEY_POLICIES_SQL: string = keyPoliciesSql

/**
 * The SQL of schema version 7, credits: the columns `remaining`, `refill_amount`,
 * `refill_interval`, `refill_day` and `refilled_at` of `api_keys`, the function
 * `credit_period_start` that leases use to refill once per period, and the trigger that reports a
 * change between unlimited and limited on the change feed. Shipped as `dist/credits.sql`; apply
 * it after `key-policies.sql` if you migrate with your own tool.
 *
 * @example
 * ```ts
 * import { CREDITS_SQL } from '@keyward/postgres'
 * await writeFile('migrations/007_keyward_credits.sql', CREDITS_SQL)
 * ```
 */
export const CREDITS_SQL: string = creditsSql

/**
 * The SQL of schema version 8, usage counts: the table `key_usage` (per bucket, key and outcome,
 * or route and address for refusals of unknown keys) that `recordUsage` adds to and compaction
 * rolls up. Shipped as `dist/key-usage.sql`; apply it after `credits.sql` if you migrate
 * with your own tool.
 *
 * @example
 * ```ts
 * import { KEY_USAGE_SQL } from '@keyward/postgres'
 * await writeFile('migrations/008_keyward_usage.sql', KEY_USAGE_SQL)
 * ```
 */
export const KEY_USAGE_SQL: string = keyUsageSql

/**
 * The SQL of schema version 9, the audit log: the append-only table `audit_log` (a trigger
 * refuses UPDATE, DELETE and TRUNCATE), its hash chain's head `audit_chain`, and their indexes.
 * Shipped as `dist/audit-log.sql`; apply it after the versions before it if you migrate with
 * your own tool.
 *
 * @example
 * ```ts
 * import { AUDIT_LOG_SQL } from '@keyward/postgres'
 * await writeFile('migrations/009_keyward_audit_log.sql', AUDIT_LOG_SQL)
 * ```
 */
export const AUDIT_LOG_SQL: string = auditLogSql

/**
 * The SQL of schema version 10, identities: the table `identities` (a project's customers, their
 * `external_id` unique in the project, metadata, shared rate limits and credit pool), the column
 * `identity_id` of `api_keys` with its index, and the change feed's triggers, so that a change of
 * an identity reaches every process's cache for each of its keys. Shipped as
 * `dist/identities.sql`; apply it after the versions before it if you migrate with your own tool.
 *
 * @example
 * ```ts
 * import { IDENTITIES_SQL } from '@keyward/postgres'
 * await writeFile('migrations/010_keyward_identities.sql', IDENTITIES_SQL)
 * ```
 */
export const IDENTITIES_SQL: string = identitiesSql

/**
 * The SQL of schema version 11, stored rate limits of API keys: the column `ratelimits` of
 * `api_keys` (a JSON array of `{name, limit, duration}`, `NULL` for none) and the change feed's
 * trigger on it, so that a change of a key's limits reaches every process's cache. Requests are
 * counted by the limiter backend, never in this table. Shipped as `dist/key-ratelimits.sql`;
 * apply it after `identities.sql` if you migrate with your own tool.
 *
 * @example
 * ```ts
 * import { KEY_RATELIMITS_SQL } from '@keyward/postgres'
 * await writeFile('migrations/011_keyward_key_ratelimits.sql', KEY_RATELIMITS_SQL)
 * ```
 */
export const KEY_RATELIMITS_SQL: string = keyRatelimitsSql

/**
 * The SQL of schema version 12, indexed search of listings: indexes on `api_keys` that serve a
 * project's keys narrowed by `?q=` (a prefix) and `?status=`, one on `audit_log` for a key's rows,
 * and, where the extension `pg_trgm` is installed when it is applied, trigram indexes for a name
 * or an identity's external id that contains the search. New indexes only. Shipped as
 * `dist/key-search.sql`; apply it after `key-ratelimits.sql` if you migrate with your own tool.
 *
 * @example
 * ```ts
 * import { KEY_SEARCH_SQL } from '@keyward/postgres'
 * await writeFile('migrations/012_keyward_key_search.sql', KEY_SEARCH_SQL)
 * ```
 */
export const KEY_SEARCH_SQL: string = keySearchSql

/**
 * The SQL of schema version 13, the pepper of a key's hash: the nullable column `pepper_id` of
 * `api_keys`, which names the pepper (option `hashing.pepper` of `createKeyward`) that a key's
 * hash was made with, `NULL` for a plain SHA-256. Never a secret. Shipped as
 * `dist/key-pepper.sql`; apply it after `key-search.sql` if you migrate with your own tool.
 *
 * @example
 * ```ts
 * import { KEY_PEPPER_SQL } from '@keyward/postgres'
 * await writeFile('migrations/013_keyward_key_pepper.sql', KEY_PEPPER_SQL)
 * ```
 */
export const KEY_PEPPER_SQL: string = keyPepperSql

/**
 * The SQL of schema version 14, roles: the table `roles` (a project's named sets of
 * permissions), the column `role_ids` of `api_keys` with its index, and the change feed's
 * triggers, so that a change of a role reaches every process's cache for each key that holds it.
 * Shipped as `dist/roles.sql`; apply it after `key-pepper.sql` if you migrate with your own tool.
 *
 * @example
 * ```ts
 * import { ROLES_SQL } from '@keyward/postgres'
 * await writeFile('migrations/014_keyward_roles.sql', ROLES_SQL)
 * ```
 */
export const ROLES_SQL: string = rolesSql

/**
 * The SQL of schema version 15, webhooks: the tables `webhook_endpoints` (a developer's endpoints
 * and their signing secrets), `webhook_events` (the outbox, written with the audit rows in the
 * transaction of a change), `webhook_deliveries` (one per event and endpoint, claimed with
 * `FOR UPDATE SKIP LOCKED`) and `webhook_attempts` (the delivery log). New tables only. Shipped as
 * `dist/webhooks.sql`; apply it after `roles.sql` if you migrate with your own tool.
 *
 * @example
 * ```ts
 * import { WEBHOOKS_SQL } from '@keyward/postgres'
 * await writeFile('migrations/015_keyward_webhooks.sql', WEBHOOKS_SQL)
 * ```
 */
export const WEBHOOKS_SQL: string = webhooksSql

/**
 * The SQL of schema version 16, the roles of identities: the column `role_ids` of `identities`
 * with its index, the identity's trigger watching it, and the role's trigger notifying the keys
 * whose identity holds the role too. Online (a nullable column, no rewrite). Shipped as
 * `dist/identity-roles.sql`; apply it after `webhooks.sql` if you migrate with your own tool.
 *
 * @example
 * ```ts
 * import { IDENTITY_ROLES_SQL } from '@keyward/postgres'
 * await writeFile('migrations/016_keyward_identity_roles.sql', IDENTITY_ROLES_SQL)
 * ```
 */
export const IDENTITY_ROLES_SQL: string = identityRolesSql

/**
 * The SQL of schema version 17, credit events: the columns `credits_low_at` (the low-credits
 * threshold) and `refill_due_at` (when the scheduler of `credits.refilled` next looks) of
 * `api_keys` and `identities`, with partial indexes of the rows with a refill rule, and the change
 * feed's trigger on a key's threshold. Online
 * (nullable columns, no rewrite). Shipped as `dist/credit-events.sql`; apply it after
 * `identity-roles.sql` if you migrate with your own tool.
 *
 * @example
 * ```ts
 * import { CREDIT_EVENTS_SQL } from '@keyward/postgres'
 * await writeFile('migrations/017_keyward_credit_events.sql', CREDIT_EVENTS_SQL)
 * ```
 */
export const CREDIT_EVENTS_SQL: string = creditEventsSql

/**
 * The channel on which the change feed's trigger notifies, for every schema (the payload
 * names the schema).
 *
 * @example
 * ```ts
 * await client.query(`LISTEN ${CHANGE_CHANNEL}`)
 * ```
 */
export const CHANGE_CHANNEL = 'keyward_key_changes'

/** One versioned step of the schema. */
export interface Migration {
  readonly version: number
  readonly name: string
  /** Statements that write the schema `keyward`; {@link migrate} renames it. */
  readonly sql: string
}

/**
 * Every version of the schema, oldest first. A later version adds a file and an entry here;
 * a shipped entry never changes.
 *
 * @example
 * ```ts
 * MIGRATIONS.at(-1)?.version // 17
 * ```
 */
export const MIGRATIONS: readonly Migration[] = [
  { version: 1, name: 'initial', sql: schemaV1Sql },
  { version: 2, name: 'lifecycle', sql: schemaV2Sql },
  { version: 3, name: 'change_feed', sql: changeFeedSql },
  { version: 4, name: 'closed_owners', sql: closedOwnersSql },
  { version: 5, name: 'key_pages', sql: keyPagesSql },
  { version: 6, name: 'key_policies', sql: keyPoliciesSql },
  { version: 7, name: 'credits', sql: creditsSql },
  { version: 8, name: 'usage', sql: keyUsageSql },
  { version: 9, name: 'audit_log', sql: auditLogSql },
  { version: 10, name: 'identities', sql: identitiesSql },
  { version: 11, name: 'key_ratelimits', sql: keyRatelimitsSql },
  { version: 12, name: 'key_search', sql: keySearchSql },
  { version: 13, name: 'key_pepper', sql: keyPepperSql },
  { version: 14, name: 'roles', sql: rolesSql },
  { version: 15, name: 'webhooks', sql: webhooksSql },
  { version: 16, name: 'identity_roles', sql: identityRolesSql },
  { version: 17, name: 'credit_events', sql: creditEventsSql },
]

/**
 * @internal The statements of a migration for `schema`: comments dropped, one statement per
 * entry, the schema `keyward` renamed.
 */
export function statementsOf(sql: string, schema: string): string[] {
  return sql
    .split('\n')
    .filter((line) => !line.trimStart().startsWith('--'))
    .join('\n')
    .split(/;[ \t]*(?:\n|$)/)
    .map((statement) => statement.trim().replace(/\bkeyward(?=[.;]|$)/g, `"${schema}"`))
    .filter((statement) => statement !== '')
}
