export {
  auditPageOf,
  type ChainRow,
  chainAfter,
  chainHeadOf,
} from './audit.js'
export {
  boundParams,
  type ClientCalls,
  clientDatabase,
  type KyselyLike,
  kyselyClientDatabase,
  statementParts,
} from './client-database.js'
export {
  placeholders,
  type SqlColumnTypes,
  type SqlDatabase,
  type SqlDialect,
  type SqlExecutor,
  type SqlRow,
} from './dialect.js'
export { mysqlDialect } from './dialects/mysql.js'
export { sqliteDialect } from './dialects/sqlite.js'
export {
  type IdentityFeed,
  type IdentityWrite,
  identityCreditChange,
  SqlIdentitiesBase,
} from './identities-base.js'
export {
  all,
  type ColumnTypes,
  type CreditRowOf,
  creditValues,
  type IdentityRowOf,
  identityOf,
  jsonOrNull,
  type KeyRowOf,
  keyValues,
  one,
  type RoleRowOf,
  type RowValues,
  recordOf,
  refillOf,
  roleOf,
  UUID,
} from './key-rows.js'
export { type MigrateSqlOptions, migrateSql, SQL_SCHEMA_VERSION } from './migrate.js'
export { SqlOutcomeUnknownError } from './outcome.js'
export { type RoleRemoval, type RoleUpdate, SqlRolesBase } from './roles-base.js'
export {
  DEFAULT_TABLE_PREFIX,
  migrationsTableSql,
  type SqlMigration,
  type SqlTables,
  schemaSql,
  sqlMigrations,
  sqlTables,
} from './schema.js'
export { checkSqlSchema, type SqlSchemaDrift, type SqlSchemaReport } from './schema-check.js'
export {
  type SqlColumn,
  type SqlColumnKind,
  type SqlIndex,
  type SqlTableModel,
  sqlSchemaModel,
} from './schema-model.js'
export { SqlKeyStore, type SqlKeyStoreOptions, type SqlTransaction } from './store.js'
export {
  type AuditLog,
  type KeyChange,
  type KeyRoll,
  keyCreditChange,
  publishChange,
  SqlStoreBase,
  type Transactional,
  type UsageLog,
} from './store-base.js'
