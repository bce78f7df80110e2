/**
 * Keyward's key store on PostgreSQL: one SQL schema and the same statements on
 * node-postgres (`@keyward/postgres/pg`) and embedded PGlite (`@keyward/postgres/pglite`).
 *
 * @packageDocumentation
 */
export {
  DEFAULT_SCHEMA,
  PostgresKeyStore,
  type PostgresKeyStoreOptions,
  type PostgresTransaction,
} from './base.js'
export type { ClientDriverOptions } from './client-driver.js'
export { connectionStringProblem, PG_URL_EXAMPLE } from './connection-string.js'
export {
  type CheckSchemaDriftOptions,
  checkSchemaDrift,
  type SchemaDrift,
  type SchemaDriftReport,
  type SchemaObjectKind,
} from './doctor.js'
export {
  DEFAULT_QUERY_TIMEOUT_MS,
  type PoolStats,
  QueryTimeoutError,
  type SqlDriver,
  type SqlQueryable,
  type SqlQueryOptions,
  type SqlRow,
} from './driver.js'
export {
  ChangeFeedLateError,
  DEFAULT_REVOCATION_BOUND_MS,
  RevocationUnconfirmedError,
  type StrictRevocationOptions,
} from './fences.js'
export {
  type MigrateOptions,
  type MigrateResult,
  type MigrationSql,
  migrate,
  migrationSql,
  SchemaTooNewError,
} from './migrate.js'
export { PoolerError } from './pooler.js'
export type {
  ReadReplica,
  ReplicaEvent,
  ReplicaReadOptions,
  ReplicaReadStats,
} from './replicas/reads.js'
export {
  AUDIT_LOG_SQL,
  CHANGE_CHANNEL,
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
  KEY_USAGE_SQL,
  MIGRATIONS,
  type Migration,
  ROLES_SQL,
  SCHEMA_SQL,
  WEBHOOKS_SQL,
} from './schema.js'
